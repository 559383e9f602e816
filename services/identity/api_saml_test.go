package identity

import (
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/roles"
)

func TestSAML(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	saml := "/v1/orgs/" + org + "/saml"
	team := apitest.Decode[teamJSON](t, e.must(http.StatusCreated, admin, "PUT", "/v1/orgs/"+org+"/teams", `{"title":"SSO users"}`))

	long := func(n int) string { return strings.Repeat("x", n) }
	e.api.Run(e.t, as, []row{
		{Name: "label required", User: admin, Method: "POST", Path: saml, Body: `{}`, Want: 400, Field: "label"},
		{Name: "label too long", User: admin, Method: "POST", Path: saml, Body: `{"label":"` + long(31) + `"}`, Want: 400, Field: "label"},
		{Name: "entityID too long", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","entityID":"` + long(1025) + `"}`, Want: 400, Field: "entityID"},
		{Name: "certificate too long", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","certificate":"` + long(10001) + `"}`, Want: 400, Field: "certificate"},
		{Name: "ssoURL too long", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","ssoURL":"https://x.test/` + long(2040) + `"}`, Want: 400, Field: "ssoURL"},
		{Name: "ssoURL not a URL", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","ssoURL":"nope"}`, Want: 400, Field: "ssoURL"},
		{Name: "unknown default team", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","defaultTeam":"nope"}`, Want: 400, Field: "defaultTeam"},
		{Name: "bad default role", User: admin, Method: "POST", Path: saml, Body: `{"label":"Okta","defaultRole":"boss"}`, Want: 400, Field: "defaultRole"},
		{Name: "reader creates", User: reader, Method: "POST", Path: saml, Body: `{"label":"Okta"}`, Want: 403},
		{Name: "non-member creates", User: outsider, Method: "POST", Path: saml, Body: `{"label":"Okta"}`, Want: 404},
	})

	b := e.must(http.StatusCreated, admin, "POST", saml, `{"label":"Okta","defaultTeam":"`+team.ID+`","defaultRole":null}`)
	contracttest.ValidateOperation(t, "createOrganizationSAMLProvider", http.StatusCreated, b)
	p := apitest.Decode[struct {
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
		return len(apitest.Decode[struct{ Items []idOnly }](t, b).Items)
	}
	if n := sso(); n != 0 {
		t.Errorf("%d SSO logins for a pending provider", n)
	}
	b = e.must(http.StatusOK, admin, "PATCH", one, `{"entityID":"https://idp.test/e","certificate":`+certificateJSON(t)+`,"ssoURL":"https://idp.test/sso"}`)
	contracttest.ValidateOperation(t, "updateOrganizationSAMLProvider", http.StatusOK, b)
	if s := apitest.Decode[map[string]any](t, b)["status"]; s != "active" {
		t.Errorf("status after configuration = %v", s)
	}
	if n := sso(); n != 1 {
		t.Errorf("%d SSO logins for an active provider", n)
	}
	b = e.must(http.StatusOK, admin, "GET", one, "")
	contracttest.ValidateOperation(t, "getOrganizationSAMLProviderById", http.StatusOK, b)
	b = e.must(http.StatusOK, admin, "GET", saml, "")
	contracttest.ValidateOperation(t, "listSAMLProvidersInOrganizationById", http.StatusOK, b)
	e.api.Run(e.t, as, []row{
		{Name: "reader reads provider", User: reader, Method: "GET", Path: one, Want: 403},
		{Name: "patch label too long", User: admin, Method: "PATCH", Path: one, Body: `{"label":"` + long(31) + `"}`, Want: 400, Field: "label"},
		{Name: "unknown provider", User: admin, Method: "GET", Path: saml + "/nope", Want: 404},
		{Name: "non-member lists SSO", User: outsider, Method: "GET", Path: "/v1/orgs/" + org + "/sso", Want: 404},
	})
	b = e.must(http.StatusNoContent, admin, "DELETE", one, "")
	contracttest.ValidateOperation(t, "deleteOrganizationSAMLProvider", http.StatusNoContent, b)
	if n := sso(); n != 0 {
		t.Errorf("%d SSO logins after delete", n)
	}
}
