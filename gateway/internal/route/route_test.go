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
	tbl, err := route.FromDocument()
	if err != nil {
		t.Fatalf("route.FromDocument: %v", err)
	}
	return tbl
}

// TestDocumentedOperationsRouteToTheirService: every operation of the API
// document (read by apidoc.Operations, apart from the routes' reader)
// routes to the service its x-service names, no other operation shadowing
// it.
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

// TestDocumentedRoutes: the table holds exactly the document's operations
// but the gateway's own, a parameter marked x-docspub-rest taking the rest
// of the path.
func TestDocumentedRoutes(t *testing.T) {
	routes, err := route.Documented()
	if err != nil {
		t.Fatal(err)
	}
	var got []operation
	for _, r := range routes {
		got = append(got, operation{method: r.Method, path: docPath(r.Pattern), service: r.Service})
	}
	if diff := cmp.Diff(documented(t), got, cmp.AllowUnexported(operation{})); diff != "" {
		t.Errorf("Documented (-document +table):\n%s", diff)
	}
	tbl := newTable(t)
	for _, p := range []string{"/v1/spaces/s1/content/path/intro", "/v1/spaces/s1/content/path/guides/setup/linux"} {
		if r, _, ok := tbl.Match(http.MethodGet, p); !ok || r.Pattern != "/v1/spaces/{spaceId}/content/path/{pagePath...}" {
			t.Errorf("GET %s: %+v (ok %v), want the page by path", p, r, ok)
		}
	}
	if _, allowed, ok := tbl.Match(http.MethodGet, "/v1/openapi.json"); ok || len(allowed) != 0 {
		t.Errorf("the gateway's own /v1/openapi.json is in the table (allowed %v)", allowed)
	}
}

func TestEveryRouteMatchesItself(t *testing.T) {
	tbl := newTable(t)
	routes, err := route.Documented()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range routes {
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
