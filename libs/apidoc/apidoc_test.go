package apidoc_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"testing"

	"github.com/docspub/platform/libs/apidoc"
	"github.com/docspub/platform/libs/apidoc/apidoctest"
	"github.com/docspub/platform/libs/apidoc/internal/bundle"
	"github.com/google/go-cmp/cmp"
)

// TestLoad loads the document with kin-openapi: every $ref resolves (the
// loader fails on one that does not) and the document is valid OpenAPI 3.1.
func TestLoad(t *testing.T) {
	doc := apidoctest.Load(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi = %s, want 3.1", doc.OpenAPI)
	}
	ops, err := apidoc.Operations()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := doc.Paths.Len(), len(paths(ops)); got != want {
		t.Errorf("kin-openapi sees %d paths, Operations %d", got, want)
	}
	for _, op := range ops {
		kop := doc.Paths.Find(op.Path).GetOperation(op.Method)
		if kop == nil || kop.OperationID != op.OperationID {
			t.Errorf("%s %s: kin-openapi does not find operation %s", op.Method, op.Path, op.OperationID)
		}
	}
}

func paths(ops []apidoc.Operation) map[string]bool {
	m := map[string]bool{}
	for _, op := range ops {
		m[op.Path] = true
	}
	return m
}

func TestOperations(t *testing.T) {
	ops, err := apidoc.Operations()
	if err != nil {
		t.Fatal(err)
	}
	services := map[string]bool{"identity": true, "content": true, "sites": true, "insights": true, "integrations": true, "gateway": true}
	ids := map[string]bool{}
	for _, op := range ops {
		if ids[op.OperationID] {
			t.Errorf("operationId %s used twice", op.OperationID)
		}
		ids[op.OperationID] = true
		if !services[op.Service] {
			t.Errorf("%s: x-service %q is no service of the platform", op.OperationID, op.Service)
		}
		if op.Public != (op.Service == "gateway") {
			t.Errorf("%s: public (no token) = %v; only the gateway's own operations need no token", op.OperationID, op.Public)
		}
		body := op.Pointer != ""
		if noBody := op.SuccessStatus == http.StatusNoContent || op.SuccessStatus == http.StatusResetContent; noBody && body {
			t.Errorf("%s: %d with a body", op.OperationID, op.SuccessStatus)
		}
	}
	// A few operations, with the operation ids of the public GitBook API where it has them.
	want := map[string]apidoc.Operation{
		"getSpaceById": {Method: "GET", Path: "/v1/spaces/{spaceId}", OperationID: "getSpaceById", Service: "content", SuccessStatus: 200,
			Pointer: "/paths/~1v1~1spaces~1{spaceId}/get/responses/200/content/application~1json/schema"},
		"removeMemberFromOrganizationById": {Method: "DELETE", Path: "/v1/orgs/{organizationId}/members/{userId}",
			OperationID: "removeMemberFromOrganizationById", Service: "identity", SuccessStatus: 204},
		"transferSpace": {Method: "POST", Path: "/v1/spaces/{spaceId}/transfer", OperationID: "transferSpace", Service: "content",
			SuccessStatus: 200, Extension: true, Pointer: "/paths/~1v1~1spaces~1{spaceId}~1transfer/post/responses/200/content/application~1json/schema"},
		"getAPIDocument": {Method: "GET", Path: "/v1/openapi.json", OperationID: "getAPIDocument", Service: "gateway", SuccessStatus: 200,
			Extension: true, Public: true, Pointer: "/paths/~1v1~1openapi.json/get/responses/200/content/application~1json/schema"},
	}
	for id, w := range want {
		var got apidoc.Operation
		for _, op := range ops {
			if op.OperationID == id {
				got = op
			}
		}
		if diff := cmp.Diff(w, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", id, diff)
		}
	}
}

func TestWithServer(t *testing.T) {
	b, err := apidoc.WithServer("https://docs.example.com/")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Servers []struct{ URL string } `json:"servers"`
		Paths   map[string]any         `json:"paths"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Servers) != 1 || doc.Servers[0].URL != "https://docs.example.com" {
		t.Errorf("servers = %+v, want the one public URL", doc.Servers)
	}
	if len(doc.Paths) == 0 {
		t.Error("paths lost")
	}
	for _, bad := range []string{"", "docs.example.com", "ftp://x", "http://"} {
		if _, err := apidoc.WithServer(bad); err == nil {
			t.Errorf("WithServer(%q) accepted", bad)
		}
	}
}

// TestRoutes: Routes reads the method, path and x-service of every
// operation, as Operations does, and the one path parameter that takes the
// rest of the path.
func TestRoutes(t *testing.T) {
	ops, err := apidoc.Operations()
	if err != nil {
		t.Fatal(err)
	}
	routes, err := apidoc.Routes()
	if err != nil {
		t.Fatal(err)
	}
	var want, rest []apidoc.Route
	for _, op := range ops {
		want = append(want, apidoc.Route{Method: op.Method, Path: op.Path, Service: op.Service,
			Rest: op.Path == "/v1/spaces/{spaceId}/content/path/{pagePath}"})
	}
	if diff := cmp.Diff(want, routes); diff != "" {
		t.Errorf("Routes (-want +got):\n%s", diff)
	}
	for _, r := range routes {
		if r.Rest {
			rest = append(rest, r)
		}
	}
	if len(rest) != 1 {
		t.Errorf("rest routes = %+v, want the page by path alone", rest)
	}
}

// TestBundleIsFresh: the committed openapi.json is the bundle of its
// sources (src/); after editing them, run `go generate ./apidoc` in libs.
func TestBundleIsFresh(t *testing.T) {
	fresh, err := bundle.Bundle(os.DirFS("src"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(fresh, apidoc.JSON()) {
		t.Error("openapi.json is not the bundle of src/: run `go generate ./apidoc` in libs")
	}
}
