package manifests

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// The custom resources the components use, as far as they use them: the
// Prometheus Operator's PodMonitor and PrometheusRule
// (monitoring.coreos.com/v1) and the Gateway API's HTTPRoute
// (gateway.networking.k8s.io/v1). Their schemas are not at hand offline:
// each decodes strictly into the subset of its CRD's fields declared here,
// named as the CRD names them, so a misspelt or unexpected field fails.
var crds = map[string]func() runtime.Object{
	"monitoring.coreos.com/v1/PodMonitor":     func() runtime.Object { return &PodMonitor{} },
	"monitoring.coreos.com/v1/PrometheusRule": func() runtime.Object { return &PrometheusRule{} },
	"gateway.networking.k8s.io/v1/HTTPRoute":  func() runtime.Object { return &HTTPRoute{} },
}

// PodMonitor is monitoring.coreos.com/v1 PodMonitor.
type PodMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Selector            metav1.LabelSelector `json:"selector"`
		PodMetricsEndpoints []struct {
			Port        string `json:"port"`
			Path        string `json:"path"`
			Interval    string `json:"interval"`
			Relabelings []struct {
				SourceLabels []string `json:"sourceLabels"`
				TargetLabel  string   `json:"targetLabel"`
			} `json:"relabelings"`
		} `json:"podMetricsEndpoints"`
	} `json:"spec"`
}

func (p *PodMonitor) DeepCopyObject() runtime.Object { c := *p; return &c }

// PrometheusRule is monitoring.coreos.com/v1 PrometheusRule.
type PrometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []struct {
			Name  string `json:"name"`
			Rules []struct {
				Alert       string            `json:"alert"`
				Expr        string            `json:"expr"`
				For         string            `json:"for,omitempty"`
				Labels      map[string]string `json:"labels"`
				Annotations map[string]string `json:"annotations"`
			} `json:"rules"`
		} `json:"groups"`
	} `json:"spec"`
}

func (p *PrometheusRule) DeepCopyObject() runtime.Object { c := *p; return &c }

// HTTPRoute is gateway.networking.k8s.io/v1 HTTPRoute.
type HTTPRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ParentRefs []struct {
			Name        string `json:"name"`
			Namespace   string `json:"namespace"`
			SectionName string `json:"sectionName"`
		} `json:"parentRefs"`
		Hostnames []string `json:"hostnames"`
		Rules     []struct {
			Matches []struct {
				Path struct {
					Type  string `json:"type"`
					Value string `json:"value"`
				} `json:"path"`
			} `json:"matches"`
			BackendRefs []struct {
				Name string `json:"name"`
				Port int32  `json:"port"`
			} `json:"backendRefs"`
			Timeouts struct {
				Request string `json:"request"`
			} `json:"timeouts"`
		} `json:"rules"`
	} `json:"spec"`
}

func (h *HTTPRoute) DeepCopyObject() runtime.Object { c := *h; return &c }

// The custom resources decode strictly too.
func TestCustomResourcesDecodeStrictly(t *testing.T) {
	y := []byte("apiVersion: monitoring.coreos.com/v1\nkind: PodMonitor\nmetadata:\n  name: x\nspec:\n  podMetricEndpoints: []\n")
	if err := yaml.UnmarshalStrict(y, &PodMonitor{}); err == nil || !strings.Contains(err.Error(), "podMetricEndpoints") {
		t.Errorf("decoding a misspelt field = %v, want a strict decoding error naming it", err)
	}
}
