# The two commands of the README: `make run` starts the whole platform locally
# with embedded infrastructure; `make test` runs every module's tests.
GO      ?= go
MODULES := libs gateway services/identity services/content services/sites services/insights deployments/local
PKGS    := $(foreach m,$(MODULES),./$(m)/...)

.PHONY: run test vet fmt bench tidy fuzz

run:
	$(GO) run ./deployments/local/cmd/platform

# A plain `go test ./...` at the root does not reach the workspace's modules.
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 25m $(PKGS)

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -l -w $(MODULES)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 2000x -count 1 ./gateway/... ./deployments/local/...
	$(GO) test -run '^$$' -bench SpaceListKeyset -benchtime 5x -count 1 -timeout 30m ./services/content/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 1 ./services/content/internal/merge/
	$(GO) test -run '^$$' -bench . -count 1 -timeout 30m ./services/content/internal/searchmongo/
	$(GO) test -run '^$$' -bench AggregateYear -benchtime 20x -count 1 -timeout 60m ./services/insights/internal/rollupmongo/

tidy:
	for m in $(MODULES); do (cd $$m && $(GO) mod tidy) || exit 1; done

# Fuzz targets, "<package dir> <FuzzName>" per line; `make test` runs their
# seed corpora as plain tests, `make fuzz` explores each for FUZZTIME.
FUZZTIME ?= 30s
FUZZ_TARGETS := \

fuzz:
	@set -e; set -- $(FUZZ_TARGETS); while [ $$# -ge 2 ]; do \
	  echo "fuzz $$1 $$2"; $(GO) test -run '^$$' -fuzz "^$$2$$" -fuzztime $(FUZZTIME) "./$$1"; shift 2; done
