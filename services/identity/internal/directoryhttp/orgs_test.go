package directoryhttp_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/contracttest"
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
	got := decode[struct {
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
	if p := decode[struct{ Permissions map[string]bool }](t, b).Permissions; p["admin"] || !p["view"] || !p["listMembers"] || p["createContent"] {
		t.Errorf("read member permissions = %v", p)
	}

	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs", "")
	contracttest.ValidateOperation(t, "listOrganizationsForAuthenticatedUser", http.StatusOK, b)
	if l := decode[list[idOnly]](t, b); l.Count != 1 || l.Items[0].ID != org {
		t.Errorf("orgs of admin = %+v", l)
	}

	long := func(n int) string { return strings.Repeat("a", n) }
	e.run([]row{
		{name: "non-member gets 404", user: outsider, method: "GET", path: o, want: 404},
		{name: "non-member cannot patch", user: outsider, method: "PATCH", path: o, body: `{"title":"Mine"}`, want: 404},
		{name: "unknown org", user: admin, method: "GET", path: "/v1/orgs/nope", want: 404},
		{name: "read member cannot patch", user: reader, method: "PATCH", path: o, body: `{"title":"Mine"}`, want: 403},
		{name: "title too short", user: admin, method: "PATCH", path: o, body: `{"title":"a"}`, want: 400, field: "title"},
		{name: "title too long", user: admin, method: "PATCH", path: o, body: `{"title":"` + long(256) + `"}`, want: 400, field: "title"},
		{name: "title null", user: admin, method: "PATCH", path: o, body: `{"title":null}`, want: 400, field: "title"},
		{name: "title wrong type", user: admin, method: "PATCH", path: o, body: `{"title":5}`, want: 400, field: "title"},
		{name: "hostname too short", user: admin, method: "PATCH", path: o, body: `{"hostname":"ab"}`, want: 400, field: "hostname"},
		{name: "hostname too long", user: admin, method: "PATCH", path: o, body: `{"hostname":"` + long(33) + `"}`, want: 400, field: "hostname"},
		{name: "hostname pattern", user: admin, method: "PATCH", path: o, body: `{"hostname":"Bad_Host"}`, want: 400, field: "hostname"},
		{name: "logo not a URL", user: admin, method: "PATCH", path: o, body: `{"logo":"not a url"}`, want: 400, field: "logo"},
		{name: "logo too long", user: admin, method: "PATCH", path: o, body: `{"logo":"https://x.test/` + long(2040) + `"}`, want: 400, field: "logo"},
		{name: "defaultRole unknown", user: admin, method: "PATCH", path: o, body: `{"defaultRole":"boss"}`, want: 400, field: "defaultRole"},
		{name: "emailDomains not domains", user: admin, method: "PATCH", path: o, body: `{"emailDomains":["not a domain"]}`, want: 400, field: "emailDomains"},
		{name: "sso wrong type", user: admin, method: "PATCH", path: o, body: `{"sso":"yes"}`, want: 400, field: "sso"},
		{name: "defaultContent wrong type", user: admin, method: "PATCH", path: o, body: `{"defaultContent":{"type":"space","site":"s"}}`, want: 400, field: "defaultContent"},
		{name: "malformed body", user: admin, method: "PATCH", path: o, body: `{"title":`, want: 400},
		{name: "body not an object", user: admin, method: "PATCH", path: o, body: `[1]`, want: 400},
		{name: "hostname taken", user: outsider, method: "PATCH", path: "/v1/orgs/" + other, body: `{"hostname":"taken-name"}`, want: 200},
		{name: "hostname conflict", user: admin, method: "PATCH", path: o, body: `{"hostname":"taken-name"}`, want: 409, field: "hostname"},
	})

	b = e.must(http.StatusOK, admin, "PATCH", o, `{"title":"Acme Handbook","emailDomains":["Acme.test"],"hostname":"acme","defaultRole":null,
		"defaultContent":{"type":"site","site":"site1"},"logo":"https://cdn.test/logo.png","sso":true,"ai":true,"inviteLinks":false}`)
	contracttest.ValidateOperation(t, "updateOrganizationById", http.StatusOK, b)
	patched := decode[map[string]any](t, b)
	for k, want := range map[string]any{"title": "Acme Handbook", "hostname": "acme", "defaultRole": nil, "sso": true, "ai": true, "inviteLinks": false} {
		if patched[k] != want {
			t.Errorf("%s = %v, want %v", k, patched[k], want)
		}
	}
	if u := patched["urls"].(map[string]any); u["logo"] != "https://cdn.test/logo.png" || u["location"] != "http://gw.test/v1/orgs/"+org {
		t.Errorf("urls = %v", u)
	}
	// The change is stored: a fresh read sees it.
	if got := decode[map[string]any](t, e.must(http.StatusOK, reader, "GET", o, ""))["title"]; got != "Acme Handbook" {
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
		if n := len(decode[struct{ Organizations []idOnly }](t, b).Organizations); n != tc.want {
			t.Errorf("%s: %d organizations, want %d", tc.name, n, tc.want)
		}
	}
}

func TestCurrentUser(t *testing.T) {
	e := newEnv(t)
	_, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	b := e.must(http.StatusOK, admin, "GET", "/v1/user", "")
	contracttest.Validate(t, "User", b)
	if u := decode[map[string]any](t, b); u["id"] != admin || u["email"] != "ada@acme.test" || u["object"] != "user" {
		t.Errorf("user = %v", u)
	}
	e.run([]row{{name: "unknown user", user: "ghost", method: "GET", path: "/v1/user", want: 404}})
	// Without an internal token every route is refused.
	req, _ := http.NewRequest("GET", "/v1/user", nil)
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	if w.Code != http.StatusUnauthorized {
		t.Errorf("no internal token: status %d, want 401", w.Code)
	}
}
