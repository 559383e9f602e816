package manifests

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/semver"
	appsv1 "k8s.io/api/apps/v1"
)

// minKubernetes is the oldest Kubernetes the manifests run on, as
// deployments/docs/operations/deploy.md states it.
const minKubernetes = "1.30"

// fieldsSince are the fields the manifests use that a Kubernetes version
// introduced (enabled by default), and whether a Deployment uses them.
var fieldsSince = []struct {
	field, since string
	uses         func(*appsv1.Deployment) bool
}{
	{"lifecycle.preStop.sleep", "1.30", func(d *appsv1.Deployment) bool {
		for _, c := range d.Spec.Template.Spec.Containers {
			if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && c.Lifecycle.PreStop.Sleep != nil {
				return true
			}
		}
		return false
	}},
	{"topologySpreadConstraints.matchLabelKeys", "1.27", func(d *appsv1.Deployment) bool {
		for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
			if len(c.MatchLabelKeys) > 0 {
				return true
			}
		}
		return false
	}},
}

// TestMinimumKubernetesVersion: the stated minimum is at least the version
// of every field the rendered overlays use; the API types the tests decode
// against (k8s.io/api) are that version's or newer; deploy.md states it.
func TestMinimumKubernetesVersion(t *testing.T) {
	for _, overlay := range []string{"dev", "prod"} {
		for _, d := range of[*appsv1.Deployment](index(build(t, "k8s/overlays/"+overlay))) {
			for _, f := range fieldsSince {
				if f.uses(d) && semver.Compare("v"+f.since, "v"+minKubernetes) > 0 {
					t.Errorf("%s %s uses %s (Kubernetes %s), above the stated minimum %s", overlay, d.Name, f.field, f.since, minKubernetes)
				}
			}
		}
	}
	mf, err := modfile.Parse("go.mod", []byte(readFile(t, "go.mod")), nil)
	if err != nil {
		t.Fatal(err)
	}
	var api string
	for _, r := range mf.Require {
		if r.Mod.Path == "k8s.io/api" {
			api = r.Mod.Version // v0.N.x is Kubernetes 1.N
		}
	}
	if minor := strings.Split(strings.TrimPrefix(api, "v0."), ".")[0]; api == "" || semver.Compare("v1."+minor, "v"+minKubernetes) < 0 {
		t.Errorf("the tests decode against k8s.io/api %s, older than Kubernetes %s", api, minKubernetes)
	}
	if doc := readFile(t, filepath.Join(root, "deployments/docs/operations/deploy.md")); !strings.Contains(doc, fmt.Sprintf("Kubernetes %s or newer", minKubernetes)) {
		t.Errorf("deploy.md does not state \"Kubernetes %s or newer\"", minKubernetes)
	}
}
