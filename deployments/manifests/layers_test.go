package manifests

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
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
var layerExceptions = map[string]string{}

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
		platformPath + "services/identity/internal/organizationmongo": false,
		platformPath + "services/identity/internal/organization":      true,
		platformPath + "services/content/internal/changerequestmongo": false,
		platformPath + "services/content/internal/changerequest":      true,
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

// TestContentDomainLayerHoldsNoQueries checks that content's domain packages
// hand their stores typed values and named operations, never MongoDB
// operators ("$set", "$exists", ...) to pass through (issue 24, item 1).
func TestContentDomainLayerHoldsNoQueries(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(root, "services/content/internal/*"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, dir := range dirs {
		if !isDomain(platformPath + "services/content/internal/" + filepath.Base(dir)) {
			continue
		}
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			checked++
			parsed, err := parser.ParseFile(token.NewFileSet(), f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(parsed, func(n ast.Node) bool {
				if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING && mongoOperator.MatchString(lit.Value) {
					rel, _ := filepath.Rel(root, f)
					t.Errorf("%s: MongoDB operator %s in a domain package: give the store a named operation", rel, lit.Value)
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files of content's domain packages: is the pattern right?", checked)
	}
}

// mongoOperator matches a quoted string that is a MongoDB operator.
var mongoOperator = regexp.MustCompile("^[\"`]\\$[a-zA-Z]+[\"`]$")
