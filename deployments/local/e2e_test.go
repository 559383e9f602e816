package local

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
)

// client drives the platform through the gateway over HTTP.
type client struct {
	t     *testing.T
	base  string
	token string
}

type reply struct {
	Status int
	Body   []byte
	Header http.Header
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

func (c client) do(method, path string, body any) reply {
	c.t.Helper()
	r, err := c.send(method, path, body)
	if err != nil {
		c.t.Fatalf("%s %s: %v", method, path, err)
	}
	return r
}

// raw is do without a test (benchmarks): a failed request is status 0.
func (c client) raw(method, path string, body any) reply {
	r, _ := c.send(method, path, body)
	return r
}

func (c client) send(method, path string, body any) (reply, error) {
	var rd io.Reader
	if body != nil {
		if s, ok := body.(string); ok {
			rd = strings.NewReader(s)
		} else {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
	}
	req, err := http.NewRequest(method, c.base+path, rd)
	if err != nil {
		return reply{}, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{Status: res.StatusCode, Body: b, Header: res.Header}, nil
}

// op calls an operation of the contract and checks its status and body.
func (c client) op(operationID, method, path string, body any) reply {
	c.t.Helper()
	r := c.do(method, path, body)
	if err := contracttest.CheckOperation(operationID, r.Status, r.Body); err != nil {
		c.t.Errorf("%s %s: %v", method, path, err)
	}
	return r
}

// schema calls a route that is not a contract row and checks its body against a component schema.
func (c client) schema(schemaName string, want int, method, path string, body any) reply {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.Status != want {
		c.t.Errorf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Body)
		return r
	}
	if schemaName != "" {
		if err := contracttest.Check(schemaName, r.Body); err != nil {
			c.t.Errorf("%s %s: %v", method, path, err)
		}
	}
	return r
}

func (c client) status(want int, method, path string, body any) reply {
	c.t.Helper()
	r := c.do(method, path, body)
	if r.Status != want {
		c.t.Errorf("%s %s: status %d, want %d: %s", method, path, r.Status, want, r.Body)
	}
	if r.Status >= 400 {
		checkErrorBody(c.t, r)
	}
	return r
}

func checkErrorBody(t *testing.T, r reply) {
	t.Helper()
	var e struct {
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &e); err != nil || e.Error == nil || e.Error.Code != r.Status || e.Error.Message == "" {
		t.Errorf("error body %s does not match {\"error\":{\"code\":%d,\"message\":...}}", r.Body, r.Status)
	}
}

func startPlatform(t *testing.T) *Platform {
	t.Helper()
	return startPlatformWith(t, nil)
}

// startPlatformWith starts the platform with the services' clock now (nil: the real one).
func startPlatformWith(t *testing.T, now func() time.Time) *Platform {
	t.Helper()
	if clusterMode() {
		if now != nil {
			inProcessOnly(t) // a clock of its own
		}
		return platformOnCluster(t)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	log := logx.Discard()
	if os.Getenv("E2E_LOG") != "" {
		log = logx.New("e2e", "debug")
	}
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), LogLevel: "warn", Now: now, OutboundAllowPrivate: true}, log)
	if err != nil {
		t.Fatalf("start platform: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

func str(m map[string]any, path ...string) string {
	var v any = m
	for _, k := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = mm[k]
	}
	s, _ := v.(string)
	return s
}

func items(t *testing.T, r reply) []map[string]any {
	t.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(r.Body, &l); err != nil {
		t.Fatalf("not a list: %s", r.Body)
	}
	return l.Items
}

func TestIdentityThroughGateway(t *testing.T) {
	p := startPlatform(t)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	reader := client{t, p.URL, cr.DemoReaderToken}
	other := client{t, p.URL, cr.OtherOrgToken}
	org := "/v1/orgs/" + cr.DemoOrgID

	// Authentication.
	client{t, p.URL, ""}.status(401, "GET", "/v1/orgs", nil)
	client{t, p.URL, "dp_not-a-real-token"}.status(401, "GET", "/v1/orgs", nil)
	admin.status(404, "GET", "/v1/no-such-route", nil)

	// The caller, organizations.
	me := admin.schema("User", 200, "GET", "/v1/user", nil).json(t)
	adminID := str(me, "id")
	orgs := items(t, admin.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil))
	if len(orgs) != 1 || str(orgs[0], "id") != cr.DemoOrgID {
		t.Fatalf("admin's organizations = %v, want only %s", orgs, cr.DemoOrgID)
	}
	o := admin.op("getOrganizationById", "GET", org, nil).json(t)
	if perms, _ := o["permissions"].(map[string]any); perms["admin"] != true {
		t.Errorf("admin's organization permissions = %v, want admin true", perms)
	}
	if perms, _ := reader.op("getOrganizationById", "GET", org, nil).json(t)["permissions"].(map[string]any); perms["admin"] != false {
		t.Errorf("reader's organization permissions = %v, want admin false", perms)
	}
	admin.op("updateOrganizationById", "PATCH", org, map[string]any{"title": "Demo Docs", "emailDomains": []string{"demo.example"}})
	admin.op("getOrganizationsForEmailDomain", "GET", "/v1/email-domains/demo.example/orgs", nil)

	// Tenant isolation: the other organization's member never reads this one.
	other.status(404, "GET", org, nil)
	other.status(404, "GET", org+"/members", nil)
	other.status(404, "GET", org+"/teams", nil)
	if got := items(t, other.op("listOrganizationsForAuthenticatedUser", "GET", "/v1/orgs", nil)); len(got) != 1 || str(got[0], "id") == cr.DemoOrgID {
		t.Errorf("other org's user lists %v", got)
	}

	// Members.
	members := items(t, admin.op("listMembersInOrganizationById", "GET", org+"/members", nil))
	if len(members) != 2 {
		t.Fatalf("got %d members, want 2", len(members))
	}
	readerID := str(items(t, admin.op("listMembersInOrganizationById", "GET", org+"/members?search=reader", nil))[0], "user", "id")
	member := org + "/members/" + readerID
	admin.op("getMemberInOrganizationById", "GET", member, nil)
	reader.status(403, "PATCH", member, map[string]any{"role": "admin"})
	if got := admin.op("updateMemberInOrganizationById", "PATCH", member, map[string]any{"role": "comment"}).json(t); got["role"] != "comment" {
		t.Errorf("role after patch = %v", got["role"])
	}
	admin.op("updateMemberInOrganizationById", "PATCH", member, map[string]any{"role": "read"})
	admin.op("updateOrganizationMemberLastSeenAt", "POST", org+"/ping", nil)
	admin.op("setUserAsSSOMemberForOrganization", "POST", member+"/sso", nil)

	// Teams and team members.
	team := admin.op("createOrganizationTeam", "PUT", org+"/teams", map[string]any{"title": "Writers", "members": []string{readerID}}).json(t)
	teamPath := org + "/teams/" + str(team, "id")
	reader.status(403, "PUT", org+"/teams", map[string]any{"title": "Nope"})
	admin.op("listTeamsInOrganizationById", "GET", org+"/teams?title=writ", nil)
	admin.op("getTeamInOrganizationById", "GET", teamPath, nil)
	admin.op("updateTeamInOrganizationById", "PATCH", teamPath, map[string]any{"title": "Authors"})
	admin.op("updateMembersInOrganizationTeam", "PUT", teamPath+"/members", map[string]any{"add": []string{adminID, readerID}, "remove": []string{readerID}})
	tm := items(t, admin.op("listTeamMembersInOrganizationById", "GET", teamPath+"/members", nil))
	if len(tm) != 1 || str(tm[0], "organization", "user", "id") != adminID {
		t.Errorf("team members after add+remove of the reader = %v, want only the admin", tm)
	}
	admin.op("addMemberToOrganizationTeamById", "PUT", teamPath+"/members/"+readerID, map[string]any{"role": "member"})
	admin.op("listTeamsForOrganizationMember", "GET", member+"/teams", nil)
	admin.op("deleteMemberFromOrganizationTeamById", "DELETE", teamPath+"/members/"+readerID, nil)

	// Invite links: create, read, change, and a user of another org joins with one.
	inv := admin.schema("OrganizationInviteLink", 201, "POST", org+"/link-invites", map[string]any{"role": "read"}).json(t)
	invPath := org + "/link-invites/" + str(inv, "id")
	admin.op("getOrganizationInviteLink", "GET", invPath, nil)
	admin.op("updateOrganizationInviteById", "PATCH", invPath, map[string]any{"role": "comment"})
	other.status(200, "POST", org+"/invites/"+str(inv, "id"), nil)
	joined := items(t, admin.op("listMembersInOrganizationById", "GET", org+"/members?search=other", nil))
	if len(joined) != 1 || joined[0]["role"] != "comment" {
		t.Fatalf("member who joined with the invite = %v, want one with role comment", joined)
	}
	admin.op("deleteOrganizationInviteById", "DELETE", invPath, nil)
	admin.op("removeMemberFromOrganizationById", "DELETE", org+"/members/"+str(joined[0], "user", "id"), nil)
	other.status(404, "GET", org, nil)

	// SAML and SSO.
	saml := admin.op("createOrganizationSAMLProvider", "POST", org+"/saml", map[string]any{"label": "Okta"}).json(t)
	samlPath := org + "/saml/" + str(saml, "id")
	admin.op("listSAMLProvidersInOrganizationById", "GET", org+"/saml", nil)
	admin.op("getOrganizationSAMLProviderById", "GET", samlPath, nil)
	cert, err := os.ReadFile("testdata/idp.pem")
	if err != nil {
		t.Fatal(err)
	}
	patched := admin.op("updateOrganizationSAMLProvider", "PATCH", samlPath, map[string]any{
		"entityID": "https://idp.example/entity", "ssoURL": "https://idp.example/sso", "certificate": string(cert),
	})
	if got := str(patched.json(t), "status"); got != "active" {
		t.Errorf("SAML provider with entityID, ssoURL and certificate has status %q: %s", got, patched.Body)
	}
	if got := items(t, admin.op("listSSOProviderLoginsInOrganization", "GET", org+"/sso", nil)); len(got) != 1 {
		t.Errorf("active SSO logins = %v, want 1", got)
	}
	admin.op("deleteOrganizationSAMLProvider", "DELETE", samlPath, nil)
	admin.op("removeTeamFromOrganizationById", "DELETE", teamPath, nil)
}

func TestLimitsThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	long := func(n int) string { return strings.Repeat("a", n) }
	adminID := str(admin.status(200, "GET", "/v1/user", nil).json(t), "id")
	team := admin.op("createOrganizationTeam", "PUT", org+"/teams", map[string]any{"title": "T"}).json(t)
	saml := admin.op("createOrganizationSAMLProvider", "POST", org+"/saml", map[string]any{"label": "S"}).json(t)
	cases := []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"org title too short", "PATCH", org, map[string]any{"title": "a"}, "title"},
		{"org title too long", "PATCH", org, map[string]any{"title": long(256)}, "title"},
		{"org hostname too short", "PATCH", org, map[string]any{"hostname": "ab"}, "hostname"},
		{"org hostname too long", "PATCH", org, map[string]any{"hostname": long(33)}, "hostname"},
		{"org logo too long", "PATCH", org, map[string]any{"logo": "https://x.example/" + long(2048)}, "logo"},
		{"org default role unknown", "PATCH", org, map[string]any{"defaultRole": "owner"}, "defaultRole"},
		{"team title empty", "PUT", org + "/teams", map[string]any{"title": ""}, "title"},
		{"team title too long", "PUT", org + "/teams", map[string]any{"title": long(65)}, "title"},
		{"team rename too long", "PATCH", org + "/teams/" + str(team, "id"), map[string]any{"title": long(65)}, "title"},
		{"saml label empty", "POST", org + "/saml", map[string]any{"label": ""}, "label"},
		{"saml label too long", "POST", org + "/saml", map[string]any{"label": long(31)}, "label"},
		{"saml entityID too long", "POST", org + "/saml", map[string]any{"label": "x", "entityID": long(1025)}, "entityID"},
		{"saml certificate too long", "POST", org + "/saml", map[string]any{"label": "x", "certificate": long(10001)}, "certificate"},
		{"saml certificate not X.509 PEM", "POST", org + "/saml", map[string]any{"label": "x", "certificate": "MIIC..."}, "certificate"},
		{"org title with a control character", "PATCH", org, map[string]any{"title": "Demo\u0000Docs"}, "title"},
		{"team title with a bidi override", "PUT", org + "/teams", map[string]any{"title": "T\u202eT"}, "title"},
		{"saml label with a zero-width space", "POST", org + "/saml", map[string]any{"label": "O\u200bkta"}, "label"},
		{"saml ssoURL too long", "PATCH", org + "/saml/" + str(saml, "id"), map[string]any{"ssoURL": "https://x.example/" + long(2048)}, "ssoURL"},
		{"member role unknown", "PATCH", org + "/members/" + adminID, map[string]any{"role": "owner"}, "role"},
		{"list limit above 1000", "GET", org + "/members?limit=1001", nil, "limit"},
		{"malformed JSON", "PATCH", org, "{", ""},
		{"wrong type", "PATCH", org, map[string]any{"title": 5}, "title"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := admin
			c.t = t
			r := c.status(400, tc.method, tc.path, tc.body)
			if tc.field != "" && !strings.Contains(string(r.Body), tc.field) {
				t.Errorf("error %s does not name the field %q", r.Body, tc.field)
			}
		})
	}
}

// TestInternalTokensOnlyForTheirService: each service accepts only internal
// tokens minted for it; a token for sites is refused by content, and so on.
func TestInternalTokensOnlyForTheirService(t *testing.T) {
	p := startPlatform(t)
	org := p.Credentials.DemoOrgID
	me := client{t, p.URL, p.Credentials.DemoAdminToken}.status(200, "GET", "/v1/user", nil).json(t)
	caller := internaltoken.Principal{UserID: str(me, "id"), Roles: map[string]string{org: "admin"}}
	signer, err := internaltoken.NewSigner("gateway", p.InternalTokenSecret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	services := map[string]string{ // service → a route it serves
		"identity": p.IdentityURL + "/v1/orgs/" + org,
		"content":  p.ContentURL + "/v1/orgs/" + org + "/spaces",
		"sites":    p.SitesURL + "/v1/orgs/" + org + "/sites",
	}
	for to, url := range services {
		for aud := range services {
			tok, err := signer.Mint(aud, caller)
			if err != nil {
				t.Fatal(err)
			}
			req, err := http.NewRequest("GET", url, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set(internaltoken.Header, tok)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_ = res.Body.Close()
			want := http.StatusUnauthorized
			if aud == to {
				want = http.StatusOK
			}
			if res.StatusCode != want {
				t.Errorf("%s with a token for %s: %d, want %d", to, aud, res.StatusCode, want)
			}
		}
	}
}

func TestRateLimitAnswers429(t *testing.T) {
	inProcessOnly(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), RateLimit: 5}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := client{t, p.URL, p.Credentials.DemoAdminToken}
	var last reply
	for i := 0; i < 20; i++ {
		if last = c.do("GET", "/v1/user", nil); last.Status == 429 {
			break
		}
	}
	if last.Status != 429 || last.Header.Get("Retry-After") == "" || last.Header.Get("X-RateLimit-Limit") == "" {
		t.Fatalf("after 20 requests at 5/min: status %d, headers %v", last.Status, last.Header)
	}
	checkErrorBody(t, last)
}

func TestCredentialsAndDataSurviveRestart(t *testing.T) {
	inProcessOnly(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dir}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	first := p.Credentials
	c := client{t, p.URL, first.DemoAdminToken}
	c.status(200, "PATCH", "/v1/orgs/"+first.DemoOrgID, map[string]any{"title": "Kept across restarts"})
	p.Close()

	p, err = Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: dir}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Credentials.DemoAdminToken != first.DemoAdminToken || p.Credentials.DemoOrgID != first.DemoOrgID {
		t.Fatalf("credentials changed across restart")
	}
	b, err := os.ReadFile(p.CredsPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"GATEWAY_URL=", "DEMO_ORG_ID=", "DEMO_ADMIN_TOKEN=", "DEMO_READER_TOKEN=", "OTHER_ORG_TOKEN="} {
		if !strings.Contains(string(b), k) {
			t.Errorf("credentials.env lacks %s", k)
		}
	}
	c = client{t, p.URL, first.DemoAdminToken}
	if got := str(c.status(200, "GET", "/v1/orgs/"+first.DemoOrgID, nil).json(t), "title"); got != "Kept across restarts" {
		t.Errorf("title after restart = %q", got)
	}
	_ = fmt.Sprint()
}

// serviceToken is an internal token for the service to, minted by the
// service from for p (p.Service is from's when empty and p names no user).
func serviceToken(t testing.TB, p *Platform, from, to string, pr internaltoken.Principal) string {
	t.Helper()
	signer, err := internaltoken.NewSigner(from, p.InternalTokenSecret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if pr.Service == "" && pr.UserID == "" {
		pr.Service = from
	}
	tok, err := signer.Mint(to, pr)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}
