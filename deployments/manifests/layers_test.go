package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// This file checks the one dependency rule of the services' code (STYLE.md
// §3): a domain package imports neither gin, nor the MongoDB driver, nor a
// Kafka client, nor another service's code, not even through a library.
//
// A domain package is services/<svc>/internal/<ctx>[/...] where neither
// <ctx> nor a folder below it ends in one of adapterSuffixes: spacehttp,
// spacemongo, visitkafka, contentclient and section/sectiontest are adapters
// and test helpers, space is a domain.

// platformPath prefixes the import paths of the repository's modules.
const platformPath = "github.com/docspub/platform/"

// adapterSuffixes end the names of the contexts that are no domain.
var adapterSuffixes = []string{"http", "mongo", "kafka", "client", "test"}

// layerForbidden are the import path prefixes no domain package may depend on,
// with what they are.
var layerForbidden = []struct{ prefix, what string }{
	{"github.com/gin-gonic/gin", "gin"},
	{"go.mongodb.org/mongo-driver", "the MongoDB driver"},
	{"github.com/segmentio/kafka-go", "a Kafka client (kafka-go)"},
	{"github.com/twmb/franz-go", "a Kafka client (franz-go)"},
}

// layerExceptions are domain packages (by path from services/) that still
// break the rule, each with why and the issue that removes it. Keep it short:
// an entry that no longer breaks the rule fails the test, so it is removed
// when its package is fixed.
var layerExceptions = map[string]string{
	// Projections that are their consumer and their MongoDB store in one
	// package: split into a domain and a ...mongo store (issue 24, item 1).
	"sites/internal/spaceview": "projection with its store",
	// These hold the spaceview projection's store type (site.Service has a
	// *spaceview.Store; section and sharelink use site): they should take an
	// interface over a spaceview.Space that lives apart from its store, once
	// spaceview is split (issue 24, item 1).
	"sites/internal/reader":    "uses spaceview's store",
	"sites/internal/site":      "uses spaceview's store",
	"sites/internal/section":   "uses site, which uses spaceview's store",
	"sites/internal/sharelink": "uses site, which uses spaceview's store",
	// libs/jobs is the job queue and its MongoDB store in one package; the
	// domains use its types (jobs.Queue, jobs.Run): the queue's domain side
	// should be split from its store (issue 24, items 1 and 4).
	"integrations/internal/gitsync": "uses libs/jobs, which holds its store",
	"integrations/internal/openapi": "uses libs/jobs, which holds its store",
}

// goPackage is what `go list -json` says of a package.
type goPackage struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func TestDomainPackagesImportNoAdapters(t *testing.T) {
	if testing.Short() {
		t.Skip("lists every package of the services")
	}
	pkgs := listPackages(t)
	var domains []string
	for path := range pkgs {
		if isDomain(path) {
			domains = append(domains, path)
		}
	}
	slices.Sort(domains)
	if len(domains) < 10 {
		t.Fatalf("found %d domain packages (%v): is the pattern right?", len(domains), domains)
	}
	for _, d := range domains {
		rel := strings.TrimPrefix(d, platformPath+"services/")
		chain, what := badDependency(pkgs, d)
		why, excepted := layerExceptions[rel]
		switch {
		case chain != nil && !excepted:
			t.Errorf("domain package %s depends on %s: %s", rel, what, strings.Join(chain, " -> "))
		case chain == nil && excepted:
			t.Errorf("domain package %s no longer breaks the rule: remove it from layerExceptions (%s)", rel, why)
		}
	}
	for rel := range layerExceptions {
		if !slices.Contains(domains, platformPath+"services/"+rel) {
			t.Errorf("layerExceptions names %s, which is no domain package", rel)
		}
	}
}

// TestIsDomain pins which packages the rule applies to.
func TestIsDomain(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]bool{
		platformPath + "services/content/internal/space":              true,
		platformPath + "services/content/internal/spacehttp":          false,
		platformPath + "services/content/internal/spacemongo":         false,
		platformPath + "services/sites/internal/contentclient":        false,
		platformPath + "services/content/internal/contenttest":        false,
		platformPath + "services/identity/internal/org/orgpolicy":     true,
		platformPath + "services/identity/internal/orghttp/sub":       false,
		platformPath + "services/sites/internal/section/sectiontest":  false,
		platformPath + "services/content":                             false,
		platformPath + "services/content/cmd/content":                 false,
		platformPath + "libs/httpx":                                   false,
		platformPath + "gateway":                                      false,
		"example.com/services/content/internal/space":                 false,
		platformPath + "services/integrations/internal/gitsync":       true,
		platformPath + "services/integrations/internal/gitsynchttp":   false,
		platformPath + "services/integrations/internal/translation":   true,
		platformPath + "services/integrations/internal/openapimongo":  false,
		platformPath + "services/insights/internal/insightshttp":      false,
		platformPath + "services/insights/internal/visitkafka":        false,
		platformPath + "services/insights/internal/siteview":          true,
		platformPath + "services/sites/internal/reader":               true,
		platformPath + "services/sites/internal/readerhttp":           false,
		platformPath + "services/identity/internal/directorymongo":    false,
		platformPath + "services/identity/internal/directory":         true,
		platformPath + "services/content/internal/changerequestmongo": false,
	} {
		if got := isDomain(path); got != want {
			t.Errorf("isDomain(%s) = %v, want %v", path, got, want)
		}
	}
}

// isDomain reports whether path is services/<svc>/internal/<ctx>[/...]
// without an adapter's folder.
func isDomain(path string) bool {
	rest, ok := strings.CutPrefix(path, platformPath+"services/")
	if !ok {
		return false
	}
	parts := strings.Split(rest, "/")
	if len(parts) < 3 || parts[1] != "internal" {
		return false
	}
	for _, part := range parts[2:] {
		for _, s := range adapterSuffixes {
			if strings.HasSuffix(part, s) {
				return false
			}
		}
	}
	return true
}

// badDependency returns the shortest import chain from the domain package d
// to a package it must not depend on, and what that package is; nil when
// there is none.
func badDependency(pkgs map[string]goPackage, d string) ([]string, string) {
	svc := strings.SplitN(strings.TrimPrefix(d, platformPath+"services/"), "/", 2)[0]
	from := map[string]string{d: ""}
	queue := []string{d}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if what := forbiddenDependency(p, svc); what != "" && p != d {
			var chain []string
			for q := p; q != ""; q = from[q] {
				chain = append(chain, strings.TrimPrefix(q, platformPath))
			}
			slices.Reverse(chain)
			return chain, what
		}
		for _, imp := range pkgs[p].Imports {
			if _, seen := from[imp]; !seen && !pkgs[imp].Standard {
				from[imp] = p
				queue = append(queue, imp)
			}
		}
	}
	return nil, ""
}

// forbiddenDependency says what p is when a domain package of service svc
// must not depend on it, "" when it may.
func forbiddenDependency(p, svc string) string {
	for _, f := range layerForbidden {
		if p == f.prefix || strings.HasPrefix(p, f.prefix+"/") {
			return f.what
		}
	}
	if rest, ok := strings.CutPrefix(p, platformPath+"services/"); ok && strings.SplitN(rest, "/", 2)[0] != svc {
		return "another service's code"
	}
	if p == platformPath+"gateway" || strings.HasPrefix(p, platformPath+"gateway/") {
		return "the gateway's code"
	}
	return ""
}

// listPackages lists every package of the services with its dependencies,
// by import path (go list, in the repository's workspace).
func listPackages(t *testing.T) map[string]goPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Imports,Standard", platformPath+"services/...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]goPackage{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goPackage
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}
