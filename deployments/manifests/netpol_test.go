package manifests

import (
	"net/netip"
	"slices"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// internetEgress are the components that fetch user-given URLs (website
// imports, Git remotes, OpenAPI sources) and so reach the internet.
var internetEgress = []string{"content", "integrations"}

// privateRanges must stay out of any internet egress.
var privateRanges = []string{"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"}

// TestNetworkPolicies: each overlay denies by default; every component has
// its own policy; the gateway is reached only from the Ingress
// controller's namespace; each service only from its callers (the gateway
// and the components whose configuration names its URL); a component
// reaches the services whose URL it reads; only content and integrations
// (and the prod gateway, for its ACME CA) reach the internet, never the
// private ranges.
func TestNetworkPolicies(t *testing.T) {
	cs := components(t)
	var names []string
	for _, c := range cs {
		names = append(names, c.name)
	}
	callers := map[string][]string{}
	calls := map[string][]string{}
	for _, c := range cs {
		if !c.module {
			continue
		}
		for _, v := range peerVars(t, c, names) {
			peer := lower(v[:len(v)-len("_URL")])
			callers[peer] = append(callers[peer], c.name)
			calls[c.name] = append(calls[c.name], peer)
		}
	}
	for _, overlay := range []string{"dev", "prod"} {
		t.Run(overlay, func(t *testing.T) {
			ix := index(build(t, "k8s/overlays/"+overlay))
			policies := of[*networkingv1.NetworkPolicy](ix)
			denies := false
			for _, p := range policies {
				if len(p.Spec.PodSelector.MatchLabels) == 0 && len(p.Spec.PodSelector.MatchExpressions) == 0 &&
					len(p.Spec.Ingress) == 0 && len(p.Spec.Egress) == 0 && len(p.Spec.PolicyTypes) == 2 {
					denies = true
				}
			}
			if !denies {
				t.Error("no default-deny policy (empty pod selector, Ingress and Egress, no rule)")
			}
			for _, c := range cs {
				t.Run(c.name, func(t *testing.T) {
					p, ok := ix["NetworkPolicy/"+c.name].(*networkingv1.NetworkPolicy)
					if !ok || p.Spec.PodSelector.MatchLabels["app.kubernetes.io/name"] != c.name || len(p.Spec.PolicyTypes) != 2 {
						t.Fatalf("no NetworkPolicy of %s's pods for Ingress and Egress", c.name)
					}
					checkIngress(t, c.name, p, append([]string{}, callers[c.name]...))
					checkEgress(t, c.name, overlay, p, calls[c.name])
				})
			}
		})
	}
}

func checkIngress(t *testing.T, name string, p *networkingv1.NetworkPolicy, callers []string) {
	t.Helper()
	var fromPods, fromNamespaces []string
	for _, r := range p.Spec.Ingress {
		onHTTP := false
		for _, port := range r.Ports {
			onHTTP = onHTTP || (port.Port != nil && port.Port.String() == "http")
		}
		if !onHTTP {
			continue
		}
		for _, f := range r.From {
			switch {
			case f.IPBlock != nil:
				t.Errorf("the API port is open to %s", f.IPBlock.CIDR)
			case f.NamespaceSelector != nil:
				fromNamespaces = append(fromNamespaces, f.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"])
			case f.PodSelector != nil:
				fromPods = append(fromPods, selected(t, f.PodSelector)...)
			}
		}
	}
	want := callers
	if name == "gateway" {
		if !slices.Equal(fromNamespaces, []string{"ingress-nginx"}) {
			t.Errorf("the gateway's API port is reached from namespaces %v; want the Ingress controller's only", fromNamespaces)
		}
	} else {
		want = append(want, "gateway")
		if len(fromNamespaces) > 0 {
			t.Errorf("the API port is reached from namespaces %v; want its callers' pods only", fromNamespaces)
		}
	}
	want = append(want, "consul") // health checks
	slices.Sort(want)
	slices.Sort(fromPods)
	if !slices.Equal(fromPods, want) {
		t.Errorf("the API port is reached from %v; want %v (its callers and Consul's checks)", fromPods, want)
	}
}

func checkEgress(t *testing.T, name, overlay string, p *networkingv1.NetworkPolicy, calls []string) {
	t.Helper()
	var toPods []string
	dns, internet := false, false
	for _, r := range p.Spec.Egress {
		for _, to := range r.To {
			switch {
			case to.NamespaceSelector != nil && to.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] == "kube-system":
				for _, port := range r.Ports {
					dns = dns || port.Port.IntValue() == 53
				}
			case to.PodSelector != nil:
				toPods = append(toPods, selected(t, to.PodSelector)...)
			case to.IPBlock != nil:
				internet = true
				pfx := netip.MustParsePrefix(to.IPBlock.CIDR)
				for _, private := range privateRanges {
					pr := netip.MustParsePrefix(private)
					if pfx.Overlaps(pr) && !slices.Contains(to.IPBlock.Except, private) {
						t.Errorf("egress to %s reaches the private range %s", to.IPBlock.CIDR, private)
					}
				}
			}
		}
	}
	if !dns {
		t.Error("no egress to DNS")
	}
	// The prod gateway asks the ACME CA for custom hostnames' certificates.
	if want := slices.Contains(internetEgress, name) || (name == "gateway" && overlay == "prod"); internet != want {
		t.Errorf("internet egress %v; want %v", internet, want)
	}
	want := slices.Clone(calls)
	if name == "gateway" {
		want = []string{"content", "identity", "insights", "integrations", "sites"}
	}
	slices.Sort(want)
	slices.Sort(toPods)
	if !slices.Equal(toPods, want) {
		t.Errorf("egress to pods %v; want %v (the services it calls)", toPods, want)
	}
}

// selected returns the components a peer selector selects.
func selected(t *testing.T, s *metav1.LabelSelector) []string {
	t.Helper()
	var out []string
	if n := s.MatchLabels["app.kubernetes.io/name"]; n != "" {
		out = append(out, n)
	}
	for _, e := range s.MatchExpressions {
		if e.Key == "app.kubernetes.io/name" && e.Operator == metav1.LabelSelectorOpIn {
			out = append(out, e.Values...)
		}
	}
	if len(out) != 1 {
		t.Errorf("peer selector %+v selects %v; want one component", s, out)
	}
	return out
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}
