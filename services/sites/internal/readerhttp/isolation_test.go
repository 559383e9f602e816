package readerhttp_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
)

// siteSpaceOf is the id of the site's site space of space.
func (e *env) siteSpaceOf(user, sitePath, space string) string {
	e.t.Helper()
	for _, ss := range e.call(user, "GET", sitePath+"/site-spaces", "", 200)["items"].([]any) {
		if m := ss.(map[string]any); str(m, "space", "id") == space {
			return str(m, "id")
		}
	}
	e.t.Fatalf("no site space of %s in %s", space, sitePath)
	return ""
}

// TestFileCacheScopedBySpace: a file of one organization's revision, once
// cached, is never answered through another organization's site for those
// ids, even when that revision's tree has left the cache (the cache holds
// two entries here, so reading the other site evicts it): 404, as content
// answers for a revision that is not the space's.
func TestFileCacheScopedBySpace(t *testing.T) {
	e := newEnvWith(t, reader.Deps{CacheEntries: 2})
	secret := []byte("VICTIMFILEBYTES of acme")
	e.content.AddSpace("sp1", "acme", "Handbook")
	rev := e.content.MergeFiles("sp1", []contentclient.Page{contenttest.Doc("p1", "Welcome", "welcome", "Hello.")},
		map[string]contenttest.File{"f1": {Name: "plan.pdf", ContentType: "application/pdf", Bytes: secret}})
	id, url := e.site(`{"title":"Victim","spaces":["sp1"]}`)
	victimSS := e.siteSpaceOf("ada", "/v1/orgs/acme/sites/"+id, "sp1")

	e.content.AddSpace("sp9", "other", "Theirs", contenttest.Doc("q1", "Theirs", "theirs", "Theirs."))
	s := e.call("eve", "POST", "/v1/orgs/other/sites", `{"title":"Attacker","spaces":["sp9"]}`, 201)
	attackerID := str(s, "id")
	attackerURL := str(e.call("eve", "POST", "/v1/orgs/other/sites/"+attackerID+"/publish", "", 200), "urls", "published")
	attackerSS := e.siteSpaceOf("eve", "/v1/orgs/other/sites/"+attackerID, "sp9")

	e.want(url+"/llms.txt", 200) // the victim's tree cached
	if p := e.want(url+"/~files/"+victimSS+"/"+rev+"/f1", 200); p.body != string(secret) {
		t.Fatalf("the victim's own file: %q", p.body)
	}
	e.want(attackerURL+"/llms.txt", 200) // the attacker's tree evicts the victim's

	for _, path := range []string{
		"/~files/" + attackerSS + "/" + rev + "/f1", // the attacker's site space, the victim's ids
		"/~files/" + victimSS + "/" + rev + "/f1",   // the victim's site space, through the attacker's site
	} {
		p := e.read(attackerURL + path)
		if p.status != 404 || strings.Contains(p.body, "VICTIMFILEBYTES") {
			t.Errorf("GET %s through another organization's site = %d %.100q, want 404", path, p.status, p.body)
		}
	}
	// The victim still reads it.
	if p := e.want(url+"/~files/"+victimSS+"/"+rev+"/f1", 200); p.body != string(secret) {
		t.Errorf("the victim's own file afterwards: %q", p.body)
	}
}

// TestForgedHostIsNotReflected: canonical links, sitemap <loc>, llms.txt
// and robots.txt take their origin from configuration (PUBLISHED_URL) or
// the site's own hostname, never from the Host the request carries; every
// Host a page is reached by gets the same bytes.
func TestForgedHostIsNotReflected(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hello."),
		contenttest.Doc("p2", "Guide", "guide", "The guide."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	path := strings.TrimPrefix(url, "http://gw.test")
	for _, doc := range []string{"/guide", "/sitemap.xml", "/llms.txt", "/llms-full.txt", "/robots.txt"} {
		want := e.want(url+doc, 200).body
		if !strings.Contains(want, "http://gw.test"+path) {
			t.Errorf("%s lacks the configured origin: %.300s", doc, want)
		}
		for _, host := range []string{"evil.example.com", "EVIL.example.com:8443", "gw.test.evil.example.com", "203.0.113.9"} {
			p := e.want("http://"+host+path+doc, 200)
			if strings.Contains(strings.ToLower(p.body), "evil") || strings.Contains(p.body, "203.0.113.9") {
				t.Errorf("%s with Host %s reflects it: %.300s", doc, host, p.body)
			}
			if p.body != want {
				t.Errorf("%s with Host %s differs from the configured host's answer", doc, host)
			}
		}
	}

	// However many Hosts a page is reached by, it is cached once: forged
	// hosts add no entry but to the misses, which never push out a site.
	e.want(url+"/guide", 200)
	entries, sites, misses := e.reader.Cached()
	for i := range 50 {
		e.want(fmt.Sprintf("http://h%d.evil.example.com%s/guide", i, path), 200)
	}
	if gotEntries, gotSites, gotMisses := e.reader.Cached(); gotEntries != entries || gotSites != sites || gotMisses != misses+50 {
		t.Errorf("after 50 forged hosts: %d cache entries (was %d), %d sites (was %d), %d misses (was %d)",
			gotEntries, entries, gotSites, sites, gotMisses, misses)
	}

	// A custom hostname: its origin is the hostname as the site stores it,
	// whatever case, port or trailing dot the Host has.
	e.verifyHostname("ada", "acme", id, "docs.acme.test") // served once verified (hostnames_test.go)
	want := e.want("http://docs.acme.test/guide", 200).body
	if !strings.Contains(want, `<link rel="canonical" href="http://docs.acme.test/guide">`) {
		t.Errorf("canonical on the custom hostname: %.400s", want)
	}
	entries, sites, _ = e.reader.Cached()
	for _, host := range []string{"DOCS.ACME.TEST", "docs.acme.test:8443", "docs.acme.test."} {
		if p := e.want("http://"+host+"/guide", 200); p.body != want {
			t.Errorf("Host %s: %.400s", host, p.body)
		}
	}
	if gotEntries, gotSites, _ := e.reader.Cached(); gotEntries != entries || gotSites != sites {
		t.Errorf("the custom hostname's variants: %d cache entries (was %d), %d sites (was %d)", gotEntries, entries, gotSites, sites)
	}
	if p := e.want("http://docs.acme.test/sitemap.xml", 200); !strings.Contains(p.body, "<loc>http://docs.acme.test/guide</loc>") {
		t.Errorf("sitemap on the custom hostname: %s", p.body)
	}
}
