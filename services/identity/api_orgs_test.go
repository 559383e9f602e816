package identity

import (
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
)

func TestOrganizations(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	other, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	o := "/v1/orgs/" + org

	b := e.must(http.StatusOK, admin, "GET", o, "")
	contracttest.ValidateOperation(t, "getOrganizationById", http.StatusOK, b)
	got := apitest.Decode[struct {
		Type        string          `json:"type"`
		Plan        string          `json:"plan"`
		InviteLinks bool            `json:"inviteLinks"`
		Permissions map[string]bool `json:"permissions"`
		URLs        map[string]string
	}](t, b)
	if got.Type != "business" || got.Plan != "free_2024" || !got.InviteLinks || !got.Permissions["admin"] {
		t.Errorf("admin view of organization = %+v", got)
	}
	b = e.must(http.StatusOK, reader, "GET", o, "")
	if p := apitest.Decode[struct{ Permissions map[string]bool }](t, b).Permissions; p["admin"] || !p["view"] || !p["listMembers"] || p["createContent"] {
		t.Errorf("read member permissions = %v", p)
	}

	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs", "")
	contracttest.ValidateOperation(t, "listOrganizationsForAuthenticatedUser", http.StatusOK, b)
	if l := apitest.Decode[paging.List[idOnly]](t, b); l.Count != 1 || l.Items[0].ID != org {
		t.Errorf("orgs of admin = %+v", l)
	}

	long := func(n int) string { return strings.Repeat("a", n) }
	e.api.Run(e.t, as, []row{
		{Name: "non-member gets 404", User: outsider, Method: "GET", Path: o, Want: 404},
		{Name: "non-member cannot patch", User: outsider, Method: "PATCH", Path: o, Body: `{"title":"Mine"}`, Want: 404},
		{Name: "unknown org", User: admin, Method: "GET", Path: "/v1/orgs/nope", Want: 404},
		{Name: "read member cannot patch", User: reader, Method: "PATCH", Path: o, Body: `{"title":"Mine"}`, Want: 403},
		{Name: "title too short", User: admin, Method: "PATCH", Path: o, Body: `{"title":"a"}`, Want: 400, Field: "title"},
		{Name: "title too long", User: admin, Method: "PATCH", Path: o, Body: `{"title":"` + long(256) + `"}`, Want: 400, Field: "title"},
		{Name: "title null", User: admin, Method: "PATCH", Path: o, Body: `{"title":null}`, Want: 400, Field: "title"},
		{Name: "title wrong type", User: admin, Method: "PATCH", Path: o, Body: `{"title":5}`, Want: 400, Field: "title"},
		{Name: "hostname too short", User: admin, Method: "PATCH", Path: o, Body: `{"hostname":"ab"}`, Want: 400, Field: "hostname"},
		{Name: "hostname too long", User: admin, Method: "PATCH", Path: o, Body: `{"hostname":"` + long(33) + `"}`, Want: 400, Field: "hostname"},
		{Name: "hostname pattern", User: admin, Method: "PATCH", Path: o, Body: `{"hostname":"Bad_Host"}`, Want: 400, Field: "hostname"},
		{Name: "logo not a URL", User: admin, Method: "PATCH", Path: o, Body: `{"logo":"not a url"}`, Want: 400, Field: "logo"},
		{Name: "logo too long", User: admin, Method: "PATCH", Path: o, Body: `{"logo":"https://x.test/` + long(2040) + `"}`, Want: 400, Field: "logo"},
		{Name: "defaultRole unknown", User: admin, Method: "PATCH", Path: o, Body: `{"defaultRole":"boss"}`, Want: 400, Field: "defaultRole"},
		{Name: "emailDomains not domains", User: admin, Method: "PATCH", Path: o, Body: `{"emailDomains":["not a domain"]}`, Want: 400, Field: "emailDomains"},
		{Name: "sso wrong type", User: admin, Method: "PATCH", Path: o, Body: `{"sso":"yes"}`, Want: 400, Field: "sso"},
		{Name: "defaultContent wrong type", User: admin, Method: "PATCH", Path: o, Body: `{"defaultContent":{"type":"space","site":"s"}}`, Want: 400, Field: "defaultContent"},
		{Name: "malformed body", User: admin, Method: "PATCH", Path: o, Body: `{"title":`, Want: 400},
		{Name: "body not an object", User: admin, Method: "PATCH", Path: o, Body: `[1]`, Want: 400},
		{Name: "hostname taken", User: outsider, Method: "PATCH", Path: "/v1/orgs/" + other, Body: `{"hostname":"taken-name"}`, Want: 200},
		{Name: "hostname conflict", User: admin, Method: "PATCH", Path: o, Body: `{"hostname":"taken-name"}`, Want: 409, Field: "hostname"},
	})

	b = e.must(http.StatusOK, admin, "PATCH", o, `{"title":"Acme Handbook","emailDomains":["Acme.test"],"hostname":"acme","defaultRole":null,
		"defaultContent":{"type":"site","site":"site1"},"logo":"https://cdn.test/logo.png","sso":true,"ai":true,"inviteLinks":false}`)
	contracttest.ValidateOperation(t, "updateOrganizationById", http.StatusOK, b)
	patched := apitest.Decode[map[string]any](t, b)
	for k, want := range map[string]any{"title": "Acme Handbook", "hostname": "acme", "defaultRole": nil, "sso": true, "ai": true, "inviteLinks": false} {
		if patched[k] != want {
			t.Errorf("%s = %v, want %v", k, patched[k], want)
		}
	}
	if u := patched["urls"].(map[string]any); u["logo"] != "https://cdn.test/logo.png" || u["location"] != "http://gw.test/v1/orgs/"+org {
		t.Errorf("urls = %v", u)
	}
	// The change is stored: a fresh read sees it.
	if got := apitest.Decode[map[string]any](t, e.must(http.StatusOK, reader, "GET", o, ""))["title"]; got != "Acme Handbook" {
		t.Errorf("title after patch = %v", got)
	}

	// E-mail domain: the member sees the org; an outsider at that domain may
	// see it (could join); another outsider does not.
	_, atDomain, _ := e.seed(other, "dan@acme.test", roles.Read)
	for _, tc := range []struct {
		name string
		user string
		want int
	}{{"member", admin, 1}, {"same domain", atDomain, 1}, {"other domain", outsider, 0}} {
		b := e.must(http.StatusOK, tc.user, "GET", "/v1/email-domains/acme.test/orgs", "")
		contracttest.ValidateOperation(t, "getOrganizationsForEmailDomain", http.StatusOK, b)
		if n := len(apitest.Decode[struct{ Organizations []idOnly }](t, b).Organizations); n != tc.want {
			t.Errorf("%s: %d organizations, want %d", tc.name, n, tc.want)
		}
	}
}

func TestCurrentUser(t *testing.T) {
	e := newEnv(t)
	_, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	b := e.must(http.StatusOK, admin, "GET", "/v1/user", "")
	contracttest.Validate(t, "User", b)
	if u := apitest.Decode[map[string]any](t, b); u["id"] != admin || u["email"] != "ada@acme.test" || u["object"] != "user" {
		t.Errorf("user = %v", u)
	}
	e.api.Run(e.t, as, []row{{Name: "unknown user", User: "ghost", Method: "GET", Path: "/v1/user", Want: 404}})
	// Without an internal token every route is refused.
	if r := e.api.Anonymous("GET", "/v1/user", ""); r.Status != http.StatusUnauthorized {
		t.Errorf("no internal token: status %d, want 401", r.Status)
	}
}
