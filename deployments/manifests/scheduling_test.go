package manifests

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// adminPort is where every component serves /metrics (ADMIN_ADDR).
const adminPort = 9090

// checkScheduling: replicas spread over zones and over nodes.
func checkScheduling(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	keys := map[string]bool{}
	for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
		if c.LabelSelector == nil || c.LabelSelector.MatchLabels["app.kubernetes.io/name"] != d.Name {
			t.Errorf("topology spread on %s selects %v, want the component's pods", c.TopologyKey, c.LabelSelector)
		}
		keys[c.TopologyKey] = true
	}
	for _, k := range []string{"topology.kubernetes.io/zone", "kubernetes.io/hostname"} {
		if !keys[k] {
			t.Errorf("no topology spread over %s", k)
		}
	}
}

// checkMemoryLimit: the Go runtime learns the container's memory limit
// (MEMORY_LIMIT from the downward API; service.Main sets GOMEMLIMIT's
// equivalent at 90% of it).
func checkMemoryLimit(t *testing.T, ctr corev1.Container) {
	t.Helper()
	for _, e := range ctr.Env {
		if e.Name == "MEMORY_LIMIT" {
			if e.ValueFrom == nil || e.ValueFrom.ResourceFieldRef == nil || e.ValueFrom.ResourceFieldRef.Resource != "limits.memory" {
				t.Errorf("MEMORY_LIMIT = %+v, want the downward API's limits.memory", e)
			}
			return
		}
	}
	t.Error("no MEMORY_LIMIT: the Go runtime would not know the container's memory limit")
}

// checkImage: the image is the component's, with a tag or a digest that
// the overlay's images: entry set (a plain apply must not pull :latest).
func checkImage(t *testing.T, overlay, component, image string) {
	t.Helper()
	name, tag, hasTag := strings.Cut(image, ":")
	if at := strings.Index(image, "@sha256:"); at > 0 {
		name, tag, hasTag = image[:at], image[at+1:], true
	}
	if !strings.HasSuffix(name, "docspub/"+component) {
		t.Errorf("image %q, want docspub/%s", image, component)
	}
	if !hasTag || tag == "" || tag == "latest" {
		t.Errorf("%s: image %q has no tag or digest; want the one of the overlay's images: entry", overlay, image)
	}
}
