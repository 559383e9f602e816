package manifests

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// root is the repository root, seen from this package.
const root = "../.."

// announced are components whose modules land on other branches; their
// deployment files are checked already.
var announced = []string{"insights", "integrations"}

// component is one deployable part of the platform.
type component struct {
	name       string
	dir        string // its module's directory, from the root
	dockerfile string // from the root
	port       int
	addrVar    string // the environment variable of its listen address
	module     bool   // its module is on this branch
}

// ports are the components' listen ports, as their configurations default.
var ports = map[string]int{"gateway": 8080, "identity": 8081, "content": 8082, "sites": 8083, "insights": 8084, "integrations": 8085}

// components returns the gateway and every module directory under
// services/ (plus the announced ones), so that a service added later
// without its deployment files fails these tests.
func components(t *testing.T) []component {
	t.Helper()
	cs := []component{{name: "gateway", dir: "gateway", dockerfile: "gateway/Dockerfile", addrVar: "ADDR", module: true}}
	entries, err := os.ReadDir(filepath.Join(root, "services"))
	if err != nil {
		t.Fatal(err)
	}
	names := slices.Clone(announced)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(root, "services", e.Name(), "go.mod")); err == nil && !slices.Contains(names, e.Name()) {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	for _, n := range names {
		dir := "services/" + n
		_, err := os.Stat(filepath.Join(root, dir, "go.mod"))
		cs = append(cs, component{name: n, dir: dir, dockerfile: dir + "/Dockerfile", addrVar: upper(n) + "_ADDR", module: err == nil})
	}
	for i := range cs {
		p, ok := ports[cs[i].name]
		if !ok {
			t.Errorf("component %s has no port in this test's table: add it", cs[i].name)
		}
		cs[i].port = p
	}
	return cs
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestComponentsIncludeEveryServiceModule(t *testing.T) {
	var got []string
	for _, c := range components(t) {
		got = append(got, c.name)
	}
	for _, want := range []string{"gateway", "identity", "content", "sites", "insights", "integrations"} {
		if !slices.Contains(got, want) {
			t.Errorf("components = %v, want %s among them", got, want)
		}
	}
}
