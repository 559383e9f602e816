package readerhttp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/racetest"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// claim sets a site's hostname and returns its claim (customHostname).
func (e *env) claim(user, org, id, host string) map[string]any {
	e.t.Helper()
	s := e.call(user, "PATCH", "/v1/orgs/"+org+"/sites/"+id, `{"hostname":"`+host+`"}`, 200)
	c, _ := s["customHostname"].(map[string]any)
	if c == nil {
		e.t.Fatalf("site %s: no customHostname: %v", id, s)
	}
	return c
}

// verifyHostname claims host for a site, publishes its TXT record and sets
// the hostname again (which checks it): the site it returns holds host.
func (e *env) verifyHostname(user, org, id, host string) map[string]any {
	e.t.Helper()
	c := e.claim(user, org, id, host)
	if str(c, "verification", "name") != "_docspub-challenge."+host || !strings.HasPrefix(str(c, "verification", "value"), "docspub-verification=") {
		e.t.Fatalf("verification %v", c)
	}
	e.dns.SetTXT(str(c, "verification", "name"), "unrelated", str(c, "verification", "value"))
	s := e.call(user, "PATCH", "/v1/orgs/"+org+"/sites/"+id, `{"hostname":"`+host+`"}`, 200)
	if c, _ := s["customHostname"].(map[string]any); str(c, "state") != site.HostnameVerified || c["isActive"] != true {
		e.t.Fatalf("after the record: %v", c)
	}
	return s
}

// TestHostnameVerification: a hostname set on a site is served only once
// its TXT record holds the site's token; the API shows the claim's state;
// unverified claims block nobody, the first site to verify wins and the
// others' claims fail; a verified hostname is nobody else's (409); the
// platform's own hosts and their subdomains are nobody's (400).
func TestHostnameVerification(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Acme owns these docs."))
	e.content.AddSpace("sp9", "other", "Phish", contenttest.Doc("x1", "Welcome", "welcome", "Log in here."))
	users["eve"]["other"] = "admin"
	id, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	evil := str(e.call("eve", "POST", "/v1/orgs/other/sites", `{"title":"Evil","spaces":["sp9"]}`, 201), "id")
	e.call("eve", "POST", "/v1/orgs/other/sites/"+evil+"/publish", "", 200)
	const host = "docs.acme-victim.test"

	// The attacker claims first: pending, not served, and it blocks nobody.
	ec := e.claim("eve", "other", evil, host)
	if str(ec, "state") != site.HostnamePending || ec["isActive"] != false || str(ec, "problem") == "" || str(ec, "expiresAt") == "" {
		t.Errorf("unverified claim %v", ec)
	}
	if s := e.call("eve", "GET", "/v1/orgs/other/sites/"+evil, "", 200); strings.Contains(str(s, "urls", "published"), host) {
		t.Errorf("urls.published of an unverified hostname: %s", str(s, "urls", "published"))
	}
	e.want("http://"+host+"/", 404)
	e.dns.SetTXT("_docspub-challenge."+host, "docspub-verification=guessed")
	e.claim("eve", "other", evil, host) // checks again: still pending
	e.want("http://"+host+"/", 404)

	// The owner claims it too, publishes the record: verified, served.
	e.verifyHostname("ada", "acme", id, host)
	if p := e.want("http://"+host+"/", 200); !strings.Contains(p.body, "Acme owns these docs.") {
		t.Errorf("verified hostname serves %s", p.body)
	}
	// The attacker's claim failed; claiming again is a 409.
	s := e.call("eve", "GET", "/v1/orgs/other/sites/"+evil, "", 200)
	if c, _ := s["customHostname"].(map[string]any); str(c, "state") != site.HostnameFailed || !strings.Contains(str(c, "problem"), "another site") {
		t.Errorf("the attacker's claim after the owner verified: %v", c)
	}
	e.call("eve", "PATCH", "/v1/orgs/other/sites/"+evil, `{"hostname":"`+host+`"}`, 409)
	e.call("eve", "PATCH", "/v1/orgs/other/sites/"+evil, `{"hostname":"www.`+host+`"}`, 200) // another host: its own claim

	// Even with the owner's token published, no other site is served there.
	e.want("http://"+host+"/", 200)
	if n, _ := e.sites.CheckHostnames(context.Background()); n < 0 {
		t.Fatal(n)
	}
	if p := e.want("http://"+host+"/", 200); !strings.Contains(p.body, "Acme owns these docs.") {
		t.Errorf("after a round of checks: %s", p.body)
	}

	// The platform's own hosts and their subdomains; IP addresses.
	for _, h := range []string{"gw.test.example", "x.gw.test", "app.test.xy", "api.docspub.test", "docspub.test", "127.0.0.1"} {
		want := 400
		if h == "gw.test.example" || h == "app.test.xy" {
			want = 200 // only looks like them
		}
		r := e.api.Expect(t, as("eve"), "PATCH", "/v1/orgs/other/sites/"+evil, `{"hostname":"`+h+`"}`, want, "")
		if want == 400 && !strings.Contains(string(r.Body), "hostname") {
			t.Errorf("%s: %s does not name hostname", h, r.Body)
		}
	}
}

// TestHostnameClaimExpires: a claim still unverified after its time fails
// at the checker's next round; setting the hostname again starts anew.
func TestHostnameClaimExpires(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hi."))
	id, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	const host = "docs.slow.test"
	c := e.claim("ada", "acme", id, host)
	// The claim's time runs out (moved back in the database, as time would).
	past := time.Now().Add(-time.Minute).UTC()
	if _, err := e.db.Collection(sitemongo.Sites).UpdateOne(context.Background(), bson.M{"_id": id},
		bson.M{"$set": bson.M{"hostnameClaim.expiresAt": past, "hostnameClaim.checkedAt": past}}); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the expired claim fails", 10*time.Second, func() bool {
		_, _ = e.sites.CheckHostnames(context.Background())
		s := e.call("ada", "GET", "/v1/orgs/acme/sites/"+id, "", 200)
		got, _ := s["customHostname"].(map[string]any)
		return str(got, "state") == site.HostnameFailed && strings.Contains(str(got, "problem"), "expired")
	})
	// The record appears late: the failed claim stays failed until set again.
	e.dns.SetTXT(str(c, "verification", "name"), str(c, "verification", "value"))
	_, _ = e.sites.CheckHostnames(context.Background())
	e.want("http://"+host+"/", 404)
	s := e.verifyHostname("ada", "acme", id, host)
	if got, _ := s["customHostname"].(map[string]any); str(got, "verification", "value") != str(c, "verification", "value") {
		t.Errorf("the token changed: %v, was %v", got, c)
	}
	e.want("http://"+host+"/", 200)
}

// TestHostnameSetBeforeVerification: a site that named its hostname before
// hostnames were verified (no claim, a record of the old kind) is not
// served until the checker starts its claim and the record holds its token.
func TestHostnameSetBeforeVerification(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Old."))
	id, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	const host = "docs.old.test"
	ctx := context.Background()
	if _, err := e.db.Collection(sitemongo.Sites).UpdateOne(ctx, bson.M{"_id": id}, bson.M{"$set": bson.M{"hostname": host}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Collection(sitemongo.Hostnames).InsertOne(ctx, bson.M{"_id": host, "site": id, "organization": "acme", "at": time.Now()}); err != nil {
		t.Fatal(err)
	}
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"title":"Docs again"}`, 200) // drops the cached structure
	e.want("http://"+host+"/", 404)
	if _, err := e.sites.CheckHostnames(ctx); err != nil {
		t.Fatal(err)
	}
	c, _ := e.call("ada", "GET", "/v1/orgs/acme/sites/"+id, "", 200)["customHostname"].(map[string]any)
	if str(c, "state") != site.HostnamePending || str(c, "verification", "value") == "" {
		t.Fatalf("claim started by the checker: %v", c)
	}
	e.verifyHostname("ada", "acme", id, host)
	e.want("http://"+host+"/", 200)
}

// TestRaceHostnameVerification: two organizations' sites claim one
// hostname and both tokens are in DNS (both claims check at once): exactly
// one verifies and is served there, the other's claim fails.
func TestRaceHostnameVerification(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Acme here."))
	e.content.AddSpace("sp9", "other", "Phish", contenttest.Doc("x1", "Welcome", "welcome", "Other here."))
	users["eve"]["other"] = "admin"
	ours, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	theirs := str(e.call("eve", "POST", "/v1/orgs/other/sites", `{"title":"Theirs","spaces":["sp9"]}`, 201), "id")
	e.call("eve", "POST", "/v1/orgs/other/sites/"+theirs+"/publish", "", 200)
	paths := map[string]string{"ada": "/v1/orgs/acme/sites/" + ours, "eve": "/v1/orgs/other/sites/" + theirs}
	host := func(i int) string { return fmt.Sprintf("docs%d.race.test", i) }
	// Setting the hostname again checks the claim now. A user whose
	// request reads the claim after the other site verified the hostname
	// (and failed this claim), or whose compare-and-set meets that, loses
	// the race: a 409, and the invariant below still holds.
	recheck := func(user string) func(int) {
		return func(i int) {
			r := e.api.Do(as(user), "PATCH", paths[user], `{"hostname":"`+host(i)+`"}`)
			if r.Status != 200 && (r.Status != 409 || !strings.Contains(string(r.Body), "hostname")) {
				t.Errorf("%s sets %s again: %d %s", user, host(i), r.Status, r.Body)
			}
		}
	}
	racetest.Run(t, func(i int) {
		var tokens []string
		for _, user := range []string{"ada", "eve"} {
			c := e.claim(user, strings.Split(paths[user], "/")[3], strings.Split(paths[user], "/")[5], host(i))
			tokens = append(tokens, str(c, "verification", "value"))
		}
		e.dns.SetTXT(site.ChallengeName(host(i)), tokens...)
	}, recheck("ada"), recheck("eve"), func(i int) {
		states := map[string]string{}
		for user, path := range paths {
			c, _ := e.call(user, "GET", path, "", 200)["customHostname"].(map[string]any)
			states[user] = str(c, "state")
		}
		want := map[string]string{"Acme here.": "ada", "Other here.": "eve"}
		p := e.want("http://"+host(i)+"/", 200)
		served := ""
		for text, user := range want {
			if strings.Contains(p.body, text) {
				served = user
			}
		}
		other := map[string]string{"ada": "eve", "eve": "ada"}[served]
		if served == "" || states[served] != site.HostnameVerified || states[other] != site.HostnameFailed {
			t.Errorf("%s: states %v, served %q", host(i), states, served)
		}
	})
}

// TestHostnameLookupForTLS: the gateway's lookup (before it obtains a TLS
// certificate) answers the site that verified a hostname, and 404 for a
// hostname only claimed, another one, or one that is no hostname; nobody
// but the gateway (a service alone) may ask.
func TestHostnameLookupForTLS(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Acme owns these docs."))
	id, _ := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	other, _ := e.site(`{"title":"Other","spaces":["sp1"]}`)
	const host, pending = "docs.acme-tls.test", "pending.acme-tls.test"
	gw := internaltoken.Principal{Service: sitesapi.Gateway}

	e.claim("ada", "acme", other, pending)
	if got := e.api.Do(gw, "GET", sitesapi.HostnamePath(host), "").Status; got != 404 {
		t.Errorf("before verification: status = %d, want 404", got)
	}
	e.verifyHostname("ada", "acme", id, host)
	res := e.api.Do(gw, "GET", sitesapi.HostnamePath(host), "")
	if res.Status != 200 {
		t.Fatalf("verified: %d %s", res.Status, res.Body)
	}
	if got := apitest.Decode[sitesapi.Site](t, res.Body); got != (sitesapi.Site{ID: id, Organization: "acme"}) {
		t.Errorf("verified: %+v", got)
	}
	for _, tc := range []struct {
		name   string
		as     internaltoken.Principal
		host   string
		status int
	}{
		{"a pending claim", gw, pending, 404},
		{"an unknown hostname", gw, "nobody.acme-tls.test", 404},
		{"upper case", gw, strings.ToUpper(host), 404},
		{"too long", gw, strings.Repeat("a", 600) + ".test.test", 404},
		{"a user", as("ada"), host, 403},
		{"the gateway for a user", internaltoken.Principal{Service: sitesapi.Gateway, UserID: "ada", Roles: users["ada"]}, host, 403},
		{"another service", internaltoken.Principal{Service: sitesapi.Insights}, host, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := e.api.Do(tc.as, "GET", sitesapi.HostnamePath(tc.host), "").Status; got != tc.status {
				t.Errorf("status = %d, want %d", got, tc.status)
			}
		})
	}
	// Removing the hostname ends its lookup at once.
	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"hostname":null}`, 200)
	if got := e.api.Do(gw, "GET", sitesapi.HostnamePath(host), "").Status; got != 404 {
		t.Errorf("removed: status = %d, want 404", got)
	}
}
