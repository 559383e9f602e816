package directoryhttp_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/roles"
)

func TestSAML(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	saml := "/v1/orgs/" + org + "/saml"
	team := decode[teamJSON](t, e.must(http.StatusCreated, admin, "PUT", "/v1/orgs/"+org+"/teams", `{"title":"SSO users"}`))

	long := func(n int) string { return strings.Repeat("x", n) }
	e.run([]row{
		{name: "label required", user: admin, method: "POST", path: saml, body: `{}`, want: 400, field: "label"},
		{name: "label too long", user: admin, method: "POST", path: saml, body: `{"label":"` + long(31) + `"}`, want: 400, field: "label"},
		{name: "entityID too long", user: admin, method: "POST", path: saml, body: `{"label":"Okta","entityID":"` + long(1025) + `"}`, want: 400, field: "entityID"},
		{name: "certificate too long", user: admin, method: "POST", path: saml, body: `{"label":"Okta","certificate":"` + long(10001) + `"}`, want: 400, field: "certificate"},
		{name: "ssoURL too long", user: admin, method: "POST", path: saml, body: `{"label":"Okta","ssoURL":"https://x.test/` + long(2040) + `"}`, want: 400, field: "ssoURL"},
		{name: "ssoURL not a URL", user: admin, method: "POST", path: saml, body: `{"label":"Okta","ssoURL":"nope"}`, want: 400, field: "ssoURL"},
		{name: "unknown default team", user: admin, method: "POST", path: saml, body: `{"label":"Okta","defaultTeam":"nope"}`, want: 400, field: "defaultTeam"},
		{name: "bad default role", user: admin, method: "POST", path: saml, body: `{"label":"Okta","defaultRole":"boss"}`, want: 400, field: "defaultRole"},
		{name: "reader creates", user: reader, method: "POST", path: saml, body: `{"label":"Okta"}`, want: 403},
		{name: "non-member creates", user: outsider, method: "POST", path: saml, body: `{"label":"Okta"}`, want: 404},
	})

	b := e.must(http.StatusCreated, admin, "POST", saml, `{"label":"Okta","defaultTeam":"`+team.ID+`","defaultRole":null}`)
	contracttest.ValidateOperation(t, "createOrganizationSAMLProvider", http.StatusCreated, b)
	p := decode[struct {
		ID          string    `json:"id"`
		Status      string    `json:"status"`
		DefaultTeam *teamJSON `json:"defaultTeam"`
		Service     map[string]string
	}](t, b)
	if p.Status != "pending" || p.DefaultTeam == nil || p.DefaultTeam.ID != team.ID || p.Service["startURL"] == "" {
		t.Errorf("created provider = %+v", p)
	}
	one := saml + "/" + p.ID
	sso := func() int {
		t.Helper()
		b := e.must(http.StatusOK, reader, "GET", "/v1/orgs/"+org+"/sso", "")
		contracttest.ValidateOperation(t, "listSSOProviderLoginsInOrganization", http.StatusOK, b)
		return len(decode[struct{ Items []idOnly }](t, b).Items)
	}
	if n := sso(); n != 0 {
		t.Errorf("%d SSO logins for a pending provider", n)
	}
	b = e.must(http.StatusOK, admin, "PATCH", one, `{"entityID":"https://idp.test/e","certificate":"MIIC...","ssoURL":"https://idp.test/sso"}`)
	contracttest.ValidateOperation(t, "updateOrganizationSAMLProvider", http.StatusOK, b)
	if s := decode[map[string]any](t, b)["status"]; s != "active" {
		t.Errorf("status after configuration = %v", s)
	}
	if n := sso(); n != 1 {
		t.Errorf("%d SSO logins for an active provider", n)
	}
	b = e.must(http.StatusOK, admin, "GET", one, "")
	contracttest.ValidateOperation(t, "getOrganizationSAMLProviderById", http.StatusOK, b)
	b = e.must(http.StatusOK, admin, "GET", saml, "")
	contracttest.ValidateOperation(t, "listSAMLProvidersInOrganizationById", http.StatusOK, b)
	e.run([]row{
		{name: "reader reads provider", user: reader, method: "GET", path: one, want: 403},
		{name: "patch label too long", user: admin, method: "PATCH", path: one, body: `{"label":"` + long(31) + `"}`, want: 400, field: "label"},
		{name: "unknown provider", user: admin, method: "GET", path: saml + "/nope", want: 404},
		{name: "non-member lists SSO", user: outsider, method: "GET", path: "/v1/orgs/" + org + "/sso", want: 404},
	})
	b = e.must(http.StatusNoContent, admin, "DELETE", one, "")
	contracttest.ValidateOperation(t, "deleteOrganizationSAMLProvider", http.StatusNoContent, b)
	if n := sso(); n != 0 {
		t.Errorf("%d SSO logins after delete", n)
	}
}
