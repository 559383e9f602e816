package route_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/gateway/internal/route"
	"github.com/docspub/platform/libs/apidoc"
	"github.com/google/go-cmp/cmp"
)

type operation struct {
	method, path, service string
}

// documented returns the operations of the API document (libs/apidoc)
// that the route table forwards: every one but the gateway's own.
func documented(t *testing.T) []operation {
	t.Helper()
	ops, err := apidoc.Operations()
	if err != nil {
		t.Fatal(err)
	}
	var out []operation
	for _, op := range ops {
		if op.Service == route.Gateway {
			continue
		}
		out = append(out, operation{method: op.Method, path: op.Path, service: op.Service})
	}
	if len(out) < 126 {
		t.Fatalf("the API document has %d routed operations; expected the full contract", len(out))
	}
	return out
}

// docPath writes a route pattern as the API document does: a rest
// parameter {name...} is {name}.
func docPath(pattern string) string { return strings.ReplaceAll(pattern, "...}", "}") }

var param = regexp.MustCompile(`\{([^}/]+)\}`)

// sample replaces every {name} with a sample id that is no literal of any route.
func sample(pattern string) string {
	return param.ReplaceAllString(pattern, "x-${1}-42")
}

func newTable(t *testing.T) *route.Table {
	t.Helper()
	tbl, err := route.New(route.Routes)
	if err != nil {
		t.Fatalf("route.New(Routes): %v", err)
	}
	return tbl
}

// TestDocumentedOperationsRouteToTheirService: every operation of the API
// document routes to the service its x-service names (documented but not
// routed fails here).
func TestDocumentedOperationsRouteToTheirService(t *testing.T) {
	tbl := newTable(t)
	for _, op := range documented(t) {
		path := sample(op.path)
		got, allowed, ok := tbl.Match(op.method, path)
		if !ok {
			t.Errorf("%s %s: documented but not routed (allowed %v)", op.method, op.path, allowed)
			continue
		}
		want := operation{method: op.method, path: op.path, service: op.service}
		if diff := cmp.Diff(want, operation{method: got.Method, path: docPath(got.Pattern), service: got.Service}, cmp.AllowUnexported(operation{})); diff != "" {
			t.Errorf("%s %s: route mismatch (-want +got):\n%s", op.method, op.path, diff)
		}
	}
}

// TestRoutesAreDocumented: every route of the table is an operation of the
// API document (routed but undocumented fails here), and the gateway's own
// routes are documented as the gateway's.
func TestRoutesAreDocumented(t *testing.T) {
	doc := map[string]string{}
	ops, err := apidoc.Operations()
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range ops {
		doc[op.Method+" "+op.Path] = op.Service
	}
	for _, r := range append(append([]route.Route(nil), route.Routes...), route.GatewayRoutes...) {
		key := r.Method + " " + docPath(r.Pattern)
		svc, ok := doc[key]
		if !ok {
			t.Errorf("%s: routed but not in the API document", key)
			continue
		}
		if svc != r.Service {
			t.Errorf("%s: routed to %s, documented for %s", key, r.Service, svc)
		}
		delete(doc, key)
	}
	for key, svc := range doc {
		t.Errorf("%s (%s): documented but not routed", key, svc)
	}
}

func TestEveryRouteMatchesItself(t *testing.T) {
	tbl := newTable(t)
	for _, r := range route.Routes {
		got, _, ok := tbl.Match(r.Method, sample(r.Pattern))
		if !ok || got != r {
			t.Errorf("%s %s: got %+v (ok %v), want itself", r.Method, r.Pattern, got, ok)
		}
	}
}

func TestMatch(t *testing.T) {
	tbl, err := route.New([]route.Route{
		{Method: http.MethodGet, Pattern: "/v1/orgs/{org}/members/{user}", Service: "identity"},
		{Method: http.MethodGet, Pattern: "/v1/orgs/{org}/members/{user}/spaces", Service: "content"},
		{Method: http.MethodGet, Pattern: "/v1/orgs/{org}/search", Service: "content"},
		{Method: http.MethodGet, Pattern: "/v1/orgs/{org}/{thing}", Service: "other"},
		{Method: http.MethodPost, Pattern: "/v1/orgs/{org}/{thing}", Service: "other"},
		{Method: http.MethodDelete, Pattern: "/v1/orgs/{org}", Service: "identity"},
		{Method: http.MethodPatch, Pattern: "/v1/orgs/{org}", Service: "identity"},
		{Method: http.MethodGet, Pattern: "/v1/spaces/{space}/content/path/{path...}", Service: "content"},
	})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		method      string
		path        string
		wantService string
		wantAllowed []string
	}{
		{name: "params", method: "GET", path: "/v1/orgs/o1/members/u1", wantService: "identity"},
		{name: "longer pattern", method: "GET", path: "/v1/orgs/o1/members/u1/spaces", wantService: "content"},
		{name: "literal wins", method: "GET", path: "/v1/orgs/o1/search", wantService: "content"},
		{name: "parameter when literal lacks the method", method: "POST", path: "/v1/orgs/o1/search", wantService: "other"},
		{name: "parameter elsewhere", method: "GET", path: "/v1/orgs/o1/teams", wantService: "other"},
		{name: "escaped literal", method: "GET", path: "/v1/orgs/o1/%73earch", wantService: "content"},
		{name: "method not allowed", method: "PUT", path: "/v1/orgs/o1", wantAllowed: []string{"DELETE", "PATCH"}},
		{name: "method not allowed on literal and parameter", method: "PUT", path: "/v1/orgs/o1/search", wantAllowed: []string{"GET", "POST"}},
		{name: "rest of the path, one segment", method: "GET", path: "/v1/spaces/s1/content/path/intro", wantService: "content"},
		{name: "rest of the path, several segments", method: "GET", path: "/v1/spaces/s1/content/path/guides/setup/linux", wantService: "content"},
		{name: "rest of the path needs a segment", method: "GET", path: "/v1/spaces/s1/content/path"},
		{name: "unknown", method: "GET", path: "/v1/nothing"},
		{name: "too long", method: "GET", path: "/v1/orgs/o1/members/u1/spaces/more"},
		{name: "trailing slash", method: "GET", path: "/v1/orgs/o1/search/"},
		{name: "empty segment", method: "GET", path: "/v1/orgs//members/u1"},
		{name: "dot dot", method: "GET", path: "/v1/orgs/../members/u1"},
		{name: "escaped dot dot", method: "GET", path: "/v1/orgs/%2e%2e/members/u1"},
		{name: "escaped slash", method: "GET", path: "/v1/orgs/a%2Fb/search"},
		{name: "bad escape", method: "GET", path: "/v1/orgs/%zz/search"},
		{name: "root", method: "GET", path: "/"},
		{name: "relative", method: "GET", path: "v1/orgs/o1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, allowed, ok := tbl.Match(tc.method, tc.path)
			if ok != (tc.wantService != "") {
				t.Fatalf("Match(%s %s) ok = %v, want %v", tc.method, tc.path, ok, !ok)
			}
			if got.Service != tc.wantService {
				t.Errorf("service = %q, want %q", got.Service, tc.wantService)
			}
			if diff := cmp.Diff(tc.wantAllowed, allowed); diff != "" {
				t.Errorf("allowed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRejectsBadRoutes(t *testing.T) {
	tests := []struct {
		name  string
		route route.Route
	}{
		{name: "duplicate shape", route: route.Route{Method: "GET", Pattern: "/v1/orgs/{other}/members/{x}", Service: "s"}},
		{name: "no leading slash", route: route.Route{Method: "GET", Pattern: "v1/a", Service: "s"}},
		{name: "empty segment", route: route.Route{Method: "GET", Pattern: "/v1//a", Service: "s"}},
		{name: "malformed parameter", route: route.Route{Method: "GET", Pattern: "/v1/{}", Service: "s"}},
		{name: "brace in literal", route: route.Route{Method: "GET", Pattern: "/v1/a{b}", Service: "s"}},
		{name: "lower-case method", route: route.Route{Method: "get", Pattern: "/v1/a", Service: "s"}},
		{name: "no service", route: route.Route{Method: "GET", Pattern: "/v1/a"}},
		{name: "rest parameter not last", route: route.Route{Method: "GET", Pattern: "/v1/{a...}/b", Service: "s"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := route.Route{Method: "GET", Pattern: "/v1/orgs/{org}/members/{user}", Service: "identity"}
			if _, err := route.New([]route.Route{base, tc.route}); err == nil {
				t.Errorf("New accepted %+v", tc.route)
			}
		})
	}
}
