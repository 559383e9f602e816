package manifests

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the repository root, seen from this package.
const root = "../.."

// announced are components whose modules land on other branches; their
// deployment files are checked already.
var announced = []string{"insights", "integrations"}

// dockerfile builds every component's image, told which by build arguments
// (component.buildArgs); from the root.
const dockerfile = "deployments/docker/Dockerfile"

// component is one deployable part of the platform.
type component struct {
	name    string
	dir     string // its module's directory, from the root
	port    int
	addrVar string   // the environment variable of its listen address
	tools   []string // its further commands' packages (./dir/cmd/x), which its image carries
	module  bool     // its module is on this branch
}

// buildArgs are the arguments that build c's image from the Dockerfile.
func (c component) buildArgs() map[string]string {
	args := map[string]string{"COMPONENT": c.name, "DIR": c.dir, "ADDR_ENV": c.addrVar, "PORT": strconv.Itoa(c.port)}
	if len(c.tools) > 0 {
		args["TOOLS"] = strings.Join(c.tools, " ")
	}
	return args
}

// ports are the components' listen ports, as their configurations default.
var ports = map[string]int{"gateway": 8080, "identity": 8081, "content": 8082, "sites": 8083, "insights": 8084, "integrations": 8085}

// components returns the gateway and every module directory under
// services/ (plus the announced ones), so that a service added later
// without its deployment files fails these tests.
func components(t *testing.T) []component {
	t.Helper()
	cs := []component{{name: "gateway", dir: "gateway", addrVar: "ADDR", module: true}}
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
		cs = append(cs, component{name: n, dir: dir, addrVar: upper(n) + "_ADDR", module: err == nil})
	}
	for i := range cs {
		cs[i].tools = tools(t, cs[i])
		p, ok := ports[cs[i].name]
		if !ok {
			t.Errorf("component %s has no port in this test's table: add it", cs[i].name)
		}
		cs[i].port = p
	}
	return cs
}

// tools returns the packages of c's commands other than c itself: every
// directory under its cmd/ (identity-admin beside identity).
func tools(t *testing.T, c component) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, c.dir, "cmd"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		t.Fatal(err)
	}
	var pkgs []string
	for _, e := range entries {
		if e.IsDir() && e.Name() != c.name {
			pkgs = append(pkgs, "./"+c.dir+"/cmd/"+e.Name())
		}
	}
	return pkgs
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
