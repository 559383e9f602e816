package manifests

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// peerURL matches a configuration field naming another component's URL
// (`env:"CONTENT_URL, default=…"`).
var peerURL = regexp.MustCompile("`env:\"([A-Z]+)_URL[,\"]")

// peerVars are the <COMPONENT>_URL variables a component's configuration
// reads (its module's top-level Go files), for the components there are.
func peerVars(t *testing.T, c component, names []string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, c.dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range peerURL.FindAllStringSubmatch(string(b), -1) {
			if slices.Contains(names, strings.ToLower(m[1])) && !slices.Contains(out, m[1]+"_URL") {
				out = append(out, m[1]+"_URL")
			}
		}
	}
	return out
}

// TestPeerURLsAreSet: a component that reaches another by URL (static
// discovery, the default) has that URL set in its Kubernetes configuration
// and its compose service; its default (127.0.0.1) is only right for
// `make run`. A peer added to a configuration later fails here until it is.
func TestPeerURLsAreSet(t *testing.T) {
	p, err := loadCompose(t, filepath.Join(root, "deployments/compose/compose.yaml"))
	if err != nil {
		t.Fatalf("load compose.yaml: %v", err)
	}
	cs := components(t)
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	ix := index(build(t, "k8s/overlays/dev"))
	configs := map[string]*corev1.ConfigMap{}
	for key, o := range ix {
		if cm, ok := o.(*corev1.ConfigMap); ok {
			configs[strings.TrimPrefix(key, "ConfigMap/")] = cm
		}
	}
	checked := 0
	for _, c := range cs {
		if !c.module {
			continue
		}
		for _, v := range peerVars(t, c, names) {
			checked++
			s, err := p.GetService(c.name)
			if err != nil {
				t.Fatalf("no compose service %s", c.name)
			}
			if s.Environment[v] == nil || strings.Contains(*s.Environment[v], "127.0.0.1") {
				t.Errorf("compose: %s has no %s", c.name, v)
			}
			found := false
			for name, cm := range configs {
				if strings.HasPrefix(name, c.name+"-config") && cm.Data[v] != "" && !strings.Contains(cm.Data[v], "127.0.0.1") {
					found = true
				}
			}
			if !found {
				t.Errorf("k8s: the ConfigMap of %s has no %s", c.name, v)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no component reads another's URL: the pattern no longer matches the configurations")
	}
}
