package apidoctest

import (
	"sort"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

// CheckRoutes fails t unless the /v1 routes a service registered on its
// gin engine (engine.Routes()) are exactly the operations the API document
// gives that service (x-service): same methods, same paths, a gin
// "*name" where the document marks the parameter as taking the rest of
// the path (x-docspub-rest). Routes outside /v1 (health, /internal, the
// reader) are no operations of the document and are not compared.
func CheckRoutes(t testing.TB, service string, routes gin.RoutesInfo) {
	t.Helper()
	doc, err := apidoc.Routes()
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, r := range doc {
		if r.Service != service {
			continue
		}
		p := r.Path
		if r.Rest {
			p = strings.TrimSuffix(p, "}") + "...}"
		}
		want = append(want, r.Method+" "+p)
	}
	for _, r := range routes {
		if !strings.HasPrefix(r.Path, "/v1/") {
			continue
		}
		got = append(got, r.Method+" "+docPath(r.Path))
	}
	if len(want) == 0 {
		t.Fatalf("the API document gives no operation to %q", service)
	}
	sort.Strings(want)
	sort.Strings(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s's /v1 routes differ from its operations in the API document (-document +registered):\n%s", service, diff)
	}
}

// docPath writes a gin path as the document does: ":name" is "{name}",
// a last "*name" is "{name...}".
func docPath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		switch {
		case strings.HasPrefix(s, ":"):
			segs[i] = "{" + s[1:] + "}"
		case strings.HasPrefix(s, "*"):
			segs[i] = "{" + s[1:] + "...}"
		}
	}
	return strings.Join(segs, "/")
}
