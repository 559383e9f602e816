# The two commands of the README: `make run` starts the whole platform locally
# with embedded infrastructure; `make test` runs every module's tests.
GO      ?= go
MODULES := libs gateway services/identity services/content services/sites services/insights services/integrations deployments/local deployments/manifests
PKGS    := $(foreach m,$(MODULES),./$(m)/...)

# The Consul agent the discovery tests run in -dev mode, built once from
# deployments/tools/consul (not in go.work: its dependency graph is huge) into
# a cache outside the repository; the tests find it through CONSUL_BIN.
CONSUL_VERSION := 1.22.0
CONSUL_BIN     ?= $(HOME)/.cache/docspub/consul-$(CONSUL_VERSION)/consul
export CONSUL_BIN

# Deployable components: the gateway and every service module.
COMPONENTS := gateway $(notdir $(patsubst %/go.mod,%,$(wildcard services/*/go.mod)))
COMPOSE    := docker compose -f deployments/compose/compose.yaml

.PHONY: run cluster test test-long race vet fmt bench bench-http bench-scale bench-tenants bench-cluster tidy fuzz oneway consul images release compose-up compose-down

run:
	$(GO) run ./deployments/local/cmd/platform

# The platform as the distributed system it is deployed as, on one machine:
# the real binaries as separate processes (CLUSTER_REPLICAS of every
# service, CLUSTER_GATEWAYS gateways, default 2 each), one embedded
# database, broker and Redis process, a Consul agent, one entry at ADDR;
# $(DATA_DIR)/cluster.json lists the processes (deployments/local/cluster.go).
cluster: consul
	$(GO) run ./deployments/local/cmd/cluster

# A plain `go test ./...` at the root does not reach the workspace's modules.
# `make test` is what a newcomer waits for: vet and every module's tests;
# the tests that run a Consul agent skip when none is built (consultest).
# `make test-long` is the rest CI runs after it: the Consul agent built
# (about 10 minutes on a fresh machine) and its tests required, the
# cluster's tests (LONG_TESTS: restarts, kills, version skew, caches),
# the end-to-end suite's API part against the cluster (E2E_CLUSTER), then
# the race suites.
test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 25m $(PKGS)

CONSUL_PKGS := ./libs/discovery/... ./libs/service/... ./deployments/manifests/...
test-long: consul
	CONSUL_REQUIRED=1 $(GO) test -count=1 -timeout 10m -run '^(TestConsul.*|TestRunAnnouncesThenWithdrawsBeforeDraining|TestOverlayConfigurationStartsEveryComponent)$$' $(CONSUL_PKGS)
	CONSUL_REQUIRED=1 LONG_TESTS=1 $(GO) test -count=1 -timeout 20m -run '^(TestPlatformOnConsul|TestCluster).*' ./deployments/local/
	CONSUL_REQUIRED=1 E2E_CLUSTER=1 $(GO) test -count=1 -timeout 20m ./deployments/local/
	$(MAKE) race

# The race suites: tests named TestRace… run two conflicting requests at once
# racetest.Reps (200) times each, under the race detector. The embedded
# MongoDB server runs as its own process, built without the detector
# (in-process, the detector would slow the database tenfold).
RACE_PKGS := ./libs/racetest/... ./services/content/... ./services/sites/internal/readerhttp/...
race:
	@set -e; tmp=$$(mktemp -d); \
	$(GO) build -o $$tmp/mongo ./deployments/local/cmd/mongo; \
	$$tmp/mongo -dir $$tmp/data -uri-file $$tmp/uri & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid 2>/dev/null; rm -rf $$tmp' EXIT; \
	for i in $$(seq 100); do [ -s $$tmp/uri ] && break; sleep 0.1; done; \
	MONGOTEST_URI=$$(cat $$tmp/uri) $(GO) test -race -count=1 -timeout 20m -run '^TestRace' $(RACE_PKGS)

# No prerequisite on the tools module's files: a fresh clone must not
# rebuild the cached agent (about 6 minutes on 2 cores).
consul: $(CONSUL_BIN)
$(CONSUL_BIN):
	mkdir -p $(dir $@)
	cd deployments/tools/consul && GOWORK=off GONOSUMDB=github.com/hashicorp/consul \
	  $(GO) build -trimpath -o $@.tmp github.com/hashicorp/consul
	mv $@.tmp $@

# Container images, where Docker exists: docspub/<component>:latest, from
# deployments/docker/Dockerfile with the build arguments compose.yaml gives.
images:
	@command -v docker >/dev/null || { echo "make images needs Docker"; exit 1; }
	$(COMPOSE) build $(COMPONENTS)

# Each component's Dockerfile arguments beside COMPONENT (compose.yaml and
# skaffold.yaml pass the same; a manifests test compares them).
BUILD_ARGS_gateway      := DIR=gateway ADDR_ENV=ADDR PORT=8080
BUILD_ARGS_identity     := DIR=services/identity ADDR_ENV=IDENTITY_ADDR PORT=8081 TOOLS=./services/identity/cmd/identity-admin
BUILD_ARGS_content      := DIR=services/content ADDR_ENV=CONTENT_ADDR PORT=8082
BUILD_ARGS_sites        := DIR=services/sites ADDR_ENV=SITES_ADDR PORT=8083
BUILD_ARGS_insights     := DIR=services/insights ADDR_ENV=INSIGHTS_ADDR PORT=8084
BUILD_ARGS_integrations := DIR=services/integrations ADDR_ENV=INTEGRATIONS_ADDR PORT=8085

# A release, where Docker (buildx) exists: every component's image built
# with its version and commit (OCI labels), pushed to
# $(REGISTRY)/<component>:$(VERSION), and k8s/components/release rewritten
# to pin each by the digest the registry returned (the prod overlays use it).
#   make release REGISTRY=ghcr.io/acme VERSION=1.2.3
REGISTRY    ?=
VERSION     ?=
COMMIT      ?= $(shell git rev-parse HEAD 2>/dev/null)
RELEASE_TMP := $(or $(TMPDIR),/tmp)/docspub-release
release:
	@test -n "$(REGISTRY)" && test -n "$(VERSION)" || { echo "usage: make release REGISTRY=ghcr.io/acme VERSION=1.2.3"; exit 1; }
	@command -v docker >/dev/null || { echo "make release needs Docker (buildx)"; exit 1; }
	@rm -rf $(RELEASE_TMP) && mkdir -p $(RELEASE_TMP)
	$(foreach c,$(COMPONENTS),docker buildx build --push -f deployments/docker/Dockerfile \
	  --build-arg COMPONENT=$(c) $(addprefix --build-arg ,$(BUILD_ARGS_$(c))) \
	  --build-arg VERSION=$(VERSION) --build-arg COMMIT=$(COMMIT) \
	  --tag $(REGISTRY)/$(c):$(VERSION) --metadata-file $(RELEASE_TMP)/$(c).json . && ) true
	$(GO) run ./deployments/manifests/cmd/release-kustomization -registry $(REGISTRY) -version $(VERSION) \
	  $(foreach c,$(COMPONENTS),-metadata $(c)=$(RELEASE_TMP)/$(c).json) -out k8s/components/release/kustomization.yaml

# The real stack (MongoDB replica set, Kafka, Redis, Consul, OTel collector,
# Jaeger) and every component, built from deployments/docker/Dockerfile.
compose-up:
	$(COMPOSE) up --build --detach --wait

compose-down:
	$(COMPOSE) down --volumes

vet:
	$(GO) vet $(PKGS)

fmt:
	gofmt -l -w $(MODULES)

# bench-http: the local platform in-process, a ~190-page GitBook space (and
# 10,000 pages in another organization for search), and requests/s, p50, p99
# and CPU per request for each target, in one table.
bench-http:
	$(GO) test -run '^$$' -bench '^BenchmarkHTTPTable$$' -benchtime 1x -count 1 -timeout 20m ./deployments/local/

# bench-scale: bench-http's table, then the cross-tenant figure in the same
# run: the demo organization's list and search before and after the other
# user's grows by 10,000 spaces and to 100,000 pages (BENCH_HTTP_TENANT_SPACES,
# BENCH_HTTP_TENANT_PAGES; about 40 minutes on 2 cores, most of it the imports).
bench-scale:
	BENCH_HTTP_TENANT_SPACES=$${BENCH_HTTP_TENANT_SPACES:-10000} BENCH_HTTP_TENANT_PAGES=$${BENCH_HTTP_TENANT_PAGES:-100000} \
		$(GO) test -run '^$$' -bench '^BenchmarkHTTPTable$$' -benchtime 1x -count 1 -timeout 90m ./deployments/local/

# bench-cluster: GET space and a published page through the two-gateway
# cluster of processes against make run's one process, in one run.
bench-cluster: consul
	$(GO) test -run '^$$' -bench '^BenchmarkClusterVersusRun$$' -benchtime 1x -count 1 -timeout 20m ./deployments/local/

# bench-tenants: another organization's list and search before and after one
# organization grows to 10,000 spaces and 100,000 pages (BENCH_TENANT_SPACES,
# BENCH_TENANT_PAGES), in one run (about 35 minutes on 2 cores, most of it the imports).
bench-tenants:
	$(GO) test -run '^$$' -bench '^BenchmarkCrossTenant$$' -benchtime 1x -count 1 -timeout 60m ./deployments/local/

bench: consul
	$(GO) test -run '^$$' -bench . -benchtime 2000x -count 1 ./gateway/...
	$(GO) test -run '^$$' -bench 'GatewayOverhead|PublishedView' -benchtime 2000x -count 1 ./deployments/local/...
	$(GO) test -run '^$$' -bench Resolve -count 1 ./libs/discovery/
	$(GO) test -run '^$$' -bench ImageThroughReader -benchtime 2000x -count 1 ./deployments/local/
	$(GO) test -run '^$$' -bench FileReadWithOtherData -benchtime 300x -count 1 -timeout 30m ./deployments/local/
	$(GO) test -run '^$$' -bench GitImport1000Pages -benchtime 1x -count 1 -timeout 30m ./deployments/local/
	$(GO) test -run '^$$' -bench GitSyncAssets -benchtime 1x -count 1 -timeout 60m ./deployments/local/
	$(GO) test -run '^$$' -bench Process5MB -benchtime 1x -count 1 ./services/integrations/internal/openapihttp/
	$(GO) test -run '^$$' -bench 'RefChain3MB|Summary4MB|Content2MBYAML' -benchtime 5x -count 1 ./services/integrations/internal/openapi/ ./services/integrations/internal/gitbook/ ./services/integrations/internal/openapihttp/
	$(GO) test -run '^$$' -bench SpaceListKeyset -benchtime 5x -count 1 -timeout 30m ./services/content/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 1 ./services/content/internal/merge/
	$(GO) test -run '^$$' -bench Search10kPages -benchtime 1000x -count 1 -timeout 30m ./services/content/internal/searchmongo/
	$(GO) test -run '^$$' -bench AggregateYear -benchtime 20x -count 1 -timeout 60m ./services/insights/internal/rollupmongo/
	$(GO) test -run '^$$' -bench SpacesAccess -benchtime 50x -count 1 ./services/content/internal/spacehttp/
	$(GO) test -run '^$$' -bench ValidateAdaptiveSchema -count 1 ./services/sites/internal/site/
	$(GO) test -run '^$$' -bench . -benchtime 20x -count 1 ./services/content/internal/revisionmongo/

tidy:
	for m in $(MODULES); do (cd $$m && $(GO) mod tidy) || exit 1; done

# Fuzz targets, "<package dir> <FuzzName>" per line; `make test` runs their
# seed corpora as plain tests, `make fuzz` explores each for FUZZTIME.
FUZZTIME ?= 30s
FUZZ_TARGETS := \
	services/sites/internal/site FuzzValidateAdaptiveSchema \
	services/sites/internal/condition FuzzConditionCheck \
	services/content/internal/importer FuzzConvert \
	services/content/internal/pdf FuzzRender \
	services/integrations/internal/gitbook FuzzSummary \

# oneway: how many ways the code does each cross-cutting job (compare-and-set,
# paging, caller, cache, backoff, routes, event types) at REV (default HEAD).
oneway:
	bash deployments/tools/oneway.sh $(REV)

fuzz:
	@set -e; set -- $(FUZZ_TARGETS); while [ $$# -ge 2 ]; do \
	  echo "fuzz $$1 $$2"; $(GO) test -run '^$$' -fuzz "^$$2$$" -fuzztime $(FUZZTIME) "./$$1"; shift 2; done
