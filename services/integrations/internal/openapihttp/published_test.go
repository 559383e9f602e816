package openapihttp_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/urlguard"
)

// TestPublished: the sites service reads a spec's last version by slug,
// as JSON (a YAML text's rendering), in its organization only; another
// service, or a user, is refused.
func TestPublished(t *testing.T) {
	e := newEnv(t, urlguard.Guard{}, 5*time.Second)
	text, _ := json.Marshal(v30yaml)
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"shop","source":{"text":`+string(text)+`}}`)
	e.processed("shop", 20*time.Second)
	sites := internaltoken.Principal{Service: integrationsapi.Sites}
	r := e.api.Do(sites, http.MethodGet, integrationsapi.PublishedSpecPath("o1", "shop"), "")
	if r.Status != http.StatusOK {
		t.Fatalf("published = %d %s", r.Status, r.Body)
	}
	var got integrationsapi.PublishedSpec
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("%v: %s", err, r.Body)
	}
	var doc struct {
		OpenAPI string `json:"openapi"`
		Info    struct{ Title string }
	}
	if err := json.Unmarshal(got.Document, &doc); err != nil || doc.OpenAPI != "3.0.3" || doc.Info.Title != "Shop" ||
		got.Slug != "shop" || got.Version == "" || len(got.Digest) != 64 {
		t.Errorf("published %+v (%v): %s", doc, err, r.Body)
	}
	for _, tc := range []struct {
		name string
		as   internaltoken.Principal
		path string
		want int
	}{
		{"another organization's", sites, integrationsapi.PublishedSpecPath("o2", "shop"), http.StatusNotFound},
		{"no such spec", sites, integrationsapi.PublishedSpecPath("o1", "nothing"), http.StatusNotFound},
		{"another service", internaltoken.Principal{Service: "gateway"}, integrationsapi.PublishedSpecPath("o1", "shop"), http.StatusForbidden},
		{"a user", as("admin"), integrationsapi.PublishedSpecPath("o1", "shop"), http.StatusForbidden},
	} {
		if r := e.api.Do(tc.as, http.MethodGet, tc.path, ""); r.Status != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, r.Status, tc.want, r.Body)
		}
	}
}

// TestPublishedByURL: a spec is found by its source URL, in its
// organization only.
func TestPublishedByURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, v31) }))
	defer srv.Close()
	e := newEnv(t, urlguard.Guard{AllowPrivate: true}, 5*time.Second)
	u := srv.URL + "/pets.json"
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"pets","source":{"url":"`+u+`"}}`)
	e.processed("pets", 20*time.Second)
	sites := internaltoken.Principal{Service: integrationsapi.Sites}
	r := e.api.Do(sites, http.MethodGet, integrationsapi.PublishedSpecByURLPath("o1", u), "")
	var got integrationsapi.PublishedSpec
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &got) != nil || got.Slug != "pets" || !strings.Contains(string(got.Document), `"Pets"`) {
		t.Fatalf("by URL = %d %s", r.Status, r.Body)
	}
	for _, tc := range []struct {
		name, path string
		want       int
	}{
		{"another organization's", integrationsapi.PublishedSpecByURLPath("o2", u), http.StatusNotFound},
		{"another URL", integrationsapi.PublishedSpecByURLPath("o1", u+"?v=2"), http.StatusNotFound},
		{"no URL", integrationsapi.PublishedSpecByURLPath("o1", ""), http.StatusBadRequest},
	} {
		if r := e.api.Do(sites, http.MethodGet, tc.path, ""); r.Status != tc.want {
			t.Errorf("%s: %d, want %d: %s", tc.name, r.Status, tc.want, r.Body)
		}
	}
}
