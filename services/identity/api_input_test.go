package identity

import (
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/roles"
)

// certificateJSON is a self-signed X.509 certificate in PEM (an IdP's
// signing certificate), as a JSON string.
func certificateJSON(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/idp.pem")
	if err != nil {
		t.Fatal(err)
	}
	return jsonString(t, string(b))
}

func jsonString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSingleLineTextRefused: control characters, NUL and invisible format
// characters in what a client names or titles are a 400 naming the field.
func TestSingleLineTextRefused(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	o := "/v1/orgs/" + org
	teamID := apitest.Decode[idOnly](t, e.must(http.StatusCreated, admin, "PUT", o+"/teams", `{"title":"Writers"}`))
	saml := o + "/saml/" + apitest.Decode[idOnly](t, e.must(http.StatusCreated, admin, "POST", o+"/saml", `{"label":"Okta"}`)).ID
	// JSON escapes: NUL, BEL, line feed, tab, right-to-left override,
	// zero-width space, byte-order mark.
	for _, bad := range []string{`\u0000`, `\u0007`, `\n`, `\t`, `\u202e`, `\u200b`, `\ufeff`} {
		e.api.Run(e.t, as, []row{
			{Name: "org title " + bad, User: admin, Method: "PATCH", Path: o, Body: `{"title":"Acme` + bad + `Docs"}`, Want: 400, Field: "title"},
			{Name: "org logo " + bad, User: admin, Method: "PATCH", Path: o, Body: `{"logo":"https://x.test/a` + bad + `b.png"}`, Want: 400, Field: "logo"},
			{Name: "org defaultContent.site " + bad, User: admin, Method: "PATCH", Path: o, Body: `{"defaultContent":{"type":"site","site":"s` + bad + `1"}}`, Want: 400, Field: "defaultContent.site"},
			{Name: "team title " + bad, User: admin, Method: "PUT", Path: o + "/teams", Body: `{"title":"Wri` + bad + `ters"}`, Want: 400, Field: "title"},
			{Name: "team rename " + bad, User: admin, Method: "PATCH", Path: o + "/teams/" + teamID.ID, Body: `{"title":"Au` + bad + `thors"}`, Want: 400, Field: "title"},
			{Name: "saml label " + bad, User: admin, Method: "POST", Path: o + "/saml", Body: `{"label":"Ok` + bad + `ta"}`, Want: 400, Field: "label"},
			{Name: "saml entityID " + bad, User: admin, Method: "PATCH", Path: saml, Body: `{"entityID":"https://idp.test/` + bad + `e"}`, Want: 400, Field: "entityID"},
			{Name: "saml ssoURL " + bad, User: admin, Method: "PATCH", Path: saml, Body: `{"ssoURL":"https://idp.test/` + bad + `sso"}`, Want: 400, Field: "ssoURL"},
			{Name: "invite e-mail " + bad, User: admin, Method: "POST", Path: o + "/invites", Body: `{"emails":["ev` + bad + `e@acme.test"]}`, Want: 400, Field: "emails[0]"},
			{Name: "members search " + bad, User: admin, Method: "GET", Path: o + "/members?search=" + url.QueryEscape("a"+decodeJSON(t, bad)), Want: 400, Field: "search"},
		})
	}
	// The organization's title is unchanged.
	var got struct{ Title string }
	if err := json.Unmarshal(e.must(http.StatusOK, admin, "GET", o, ""), &got); err != nil {
		t.Fatal(err)
	}
	if got.Title != "Acme Docs" {
		t.Errorf("title = %q after refused changes", got.Title)
	}
	// Letters of any script, emoji and their joiners are fine.
	e.must(http.StatusOK, admin, "PATCH", o, `{"title":"Ακμή ドキュメント 👩‍💻"}`)
}

// decodeJSON decodes a JSON string escape into the text it stands for.
func decodeJSON(t *testing.T, esc string) string {
	t.Helper()
	var s string
	if err := json.Unmarshal([]byte(`"`+esc+`"`), &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSAMLCertificateMustBeX509: a certificate that is not one X.509
// certificate in PEM is a 400 naming certificate.
func TestSAMLCertificateMustBeX509(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	saml := "/v1/orgs/" + org + "/saml"
	cert, err := os.ReadFile("testdata/idp.pem")
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(cert)
	garbled := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: block.Bytes[:len(block.Bytes)/2]}))
	key := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: block.Bytes}))
	for _, tc := range []struct{ name, cert string }{
		{"base64 without PEM armour", strings.Join(strings.Split(string(cert), "\n")[1:4], "")},
		{"placeholder", "MIIC..."},
		{"truncated DER", garbled},
		{"another PEM type", key},
		{"two certificates", string(cert) + string(cert)},
		{"text after the certificate", string(cert) + "not a certificate"},
	} {
		e.api.Run(t, as, []row{{Name: tc.name, User: admin, Method: "POST", Path: saml,
			Body: `{"label":"Okta","certificate":` + jsonString(t, tc.cert) + `}`, Want: 400, Field: "certificate"}})
	}
	var p struct{ ID, Certificate string }
	if err := json.Unmarshal(e.must(http.StatusCreated, admin, "POST", saml, `{"label":"Okta","certificate":`+certificateJSON(t)+`}`), &p); err != nil {
		t.Fatal(err)
	}
	if p.Certificate != string(cert) {
		t.Errorf("certificate = %q, want it as given", p.Certificate)
	}
	e.api.Run(t, as, []row{
		{Name: "patch with a placeholder", User: admin, Method: "PATCH", Path: saml + "/" + p.ID, Body: `{"certificate":"MIIC..."}`, Want: 400, Field: "certificate"},
		{Name: "patch clears", User: admin, Method: "PATCH", Path: saml + "/" + p.ID, Body: `{"certificate":""}`, Want: 200},
		{Name: "patch sets", User: admin, Method: "PATCH", Path: saml + "/" + p.ID, Body: `{"certificate":` + certificateJSON(t) + `}`, Want: 200},
	})
}

// TestTeamAndDomainCounts: a request naming too many users or e-mail
// domains is refused before any of them is looked up.
func TestTeamAndDomainCounts(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	o := "/v1/orgs/" + org
	teamID := apitest.Decode[idOnly](t, e.must(http.StatusCreated, admin, "PUT", o+"/teams", `{"title":"Writers"}`))
	list := func(n int, item string) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `"` + item + `"`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	e.api.Run(e.t, as, []row{
		{Name: "101 email domains", User: admin, Method: "PATCH", Path: o, Body: `{"emailDomains":` + list(101, "acme.test") + `}`, Want: 400, Field: "emailDomains"},
		{Name: "100 email domains", User: admin, Method: "PATCH", Path: o, Body: `{"emailDomains":` + list(100, "acme.test") + `}`, Want: 200},
		{Name: "1001 team members", User: admin, Method: "PUT", Path: o + "/teams", Body: `{"title":"Big","members":` + list(1001, admin) + `}`, Want: 400, Field: "members"},
		{Name: "1001 added", User: admin, Method: "PUT", Path: o + "/teams/" + teamID.ID + "/members", Body: `{"add":` + list(1001, admin) + `}`, Want: 400, Field: "add"},
		{Name: "1001 removed", User: admin, Method: "PUT", Path: o + "/teams/" + teamID.ID + "/members", Body: `{"remove":` + list(1001, admin) + `}`, Want: 400, Field: "remove"},
		{Name: "long search", User: admin, Method: "GET", Path: o + "/members?search=" + strings.Repeat("a", 256), Want: 400, Field: "search"},
		{Name: "long team title filter", User: admin, Method: "GET", Path: o + "/teams?title=" + strings.Repeat("a", 256), Want: 400, Field: "title"},
	})
}
