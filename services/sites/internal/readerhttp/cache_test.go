package readerhttp_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/golang-jwt/jwt/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// returning is a reader who has visited before: their insights cookies
// are set, so a page answers them nothing of their own.
var returning = []*http.Cookie{{Name: "docspub_vid", Value: "v1"}, {Name: "docspub_sid", Value: "s1"}}

// TestPageValidators: a page of a public site carries a strong ETag (one
// per encoding) and Last-Modified; If-None-Match with either answers 304
// with no body; a shared cache may keep it a minute and serve it stale
// while it revalidates.
func TestPageValidators(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hello."),
		contenttest.Doc("p2", "Guide", "guide", "The guide."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)

	// Sites sets no insights cookie (the gateway does): a first visit's
	// answer is the same as anyone's.
	first := e.want(url+"/guide", 200)
	if cc := first.header.Get("Cache-Control"); cc != "public, max-age=60, stale-while-revalidate=30" {
		t.Errorf("a first visit is cached as %q", cc)
	}
	p := e.want(url+"/guide", 200, returning...)
	etag := p.header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || strings.HasPrefix(etag, "W/") || len(etag) < 10 {
		t.Fatalf("ETag %q", etag)
	}
	if etag != first.header.Get("ETag") {
		t.Errorf("the same page's ETag moved: %q then %q", first.header.Get("ETag"), etag)
	}
	if p.header.Get("Last-Modified") == "" {
		t.Error("no Last-Modified")
	}
	if cc := p.header.Get("Cache-Control"); cc != "public, max-age=60, stale-while-revalidate=30" {
		t.Errorf("Cache-Control %q", cc)
	}
	// A CDN serves a page of a site made restricted for at most 90 s.
	if stale := staleSeconds(t, p.header.Get("Cache-Control")); stale > 30 {
		t.Errorf("Cache-Control %q lets a cache serve a page stale %d s", p.header.Get("Cache-Control"), stale)
	}
	if v := p.header.Values("Vary"); len(v) != 1 || v[0] != "Accept-Encoding" {
		t.Errorf("Vary %q", v)
	}

	gz := e.readWith(http.MethodGet, url+"/guide", map[string]string{"Accept-Encoding": "gzip"}, returning...)
	gzTag := gz.header.Get("ETag")
	if gz.status != 200 || gz.header.Get("Content-Encoding") != "gzip" || gzTag == etag || gzTag == "" {
		t.Errorf("gzipped: %d %q, ETag %q (plain %q)", gz.status, gz.header.Get("Content-Encoding"), gzTag, etag)
	}

	for _, tag := range []string{etag, gzTag, `"nope", ` + etag, "*"} {
		nm := e.readWith(http.MethodGet, url+"/guide", map[string]string{"If-None-Match": tag}, returning...)
		if nm.status != http.StatusNotModified || nm.body != "" || nm.header.Get("ETag") == "" {
			t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q", tag, nm.status, len(nm.body), nm.header.Get("ETag"))
		}
	}
	if other := e.readWith(http.MethodGet, url+"/guide", map[string]string{"If-None-Match": `"nope"`}, returning...); other.status != 200 || !strings.Contains(other.body, "The guide.") {
		t.Errorf("another ETag: %d", other.status)
	}
	// Another page has another validator.
	if home := e.want(url, 200, returning...); home.header.Get("ETag") == etag {
		t.Error("two pages share an ETag")
	}
}

// staleSeconds is the longest a Cache-Control lets a cache serve an
// answer stale (stale-while-revalidate, stale-if-error).
func staleSeconds(t *testing.T, cc string) int {
	t.Helper()
	most := 0
	for _, d := range strings.Split(cc, ",") {
		name, v, _ := strings.Cut(strings.TrimSpace(d), "=")
		if name != "stale-while-revalidate" && name != "stale-if-error" {
			continue
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("Cache-Control %q: %s", cc, d)
		}
		most = max(most, n)
	}
	return most
}

// TestMergeShowsThroughTheProjection: a merge reaches the page through the
// projection of content's events: no page view asks content which revision
// is current, and the next view after the event shows the merge, with a
// new ETag.
func TestMergeShowsThroughTheProjection(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Before."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	before := e.want(url, 200, returning...)
	asked := e.content.Calls("current")
	for range 20 {
		e.want(url, 200, returning...)
	}
	if n := e.content.Calls("current") - asked; n != 0 {
		t.Errorf("20 page views asked content for the current revision %d times", n)
	}
	e.content.Merge("sp1", contenttest.Doc("p1", "Welcome", "welcome", "After."))
	after := e.want(url, 200, returning...)
	if !strings.Contains(after.body, "After.") || strings.Contains(after.body, "Before.") {
		t.Errorf("after the merge's event: %.300s", after.body)
	}
	if after.header.Get("ETag") == before.header.Get("ETag") {
		t.Error("the merged page kept its ETag")
	}
	nm := e.readWith(http.MethodGet, url, map[string]string{"If-None-Match": before.header.Get("ETag")}, returning...)
	if nm.status != 200 || !strings.Contains(nm.body, "After.") {
		t.Errorf("revalidating the old page: %d", nm.status)
	}
}

// TestCachedPageOfAnotherVisibilityNeverServed: a cached page of a public
// site is gone at once when the site becomes share-link (no page of the
// old visibility is served to a reader without a key), and its answers
// are then stored by no cache; a space content deletes leaves the site at
// once too.
func TestCachedPageOfAnotherVisibilityNeverServed(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Secret plans."))
	e.content.AddSpace("sp2", "acme", "Public", contenttest.Doc("q1", "Hello", "hello", "Open words."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	_, url2 := e.site(`{"title":"Open","spaces":["sp2"]}`)
	for range 3 {
		e.want(url, 200, returning...)
		e.want(url2, 200, returning...)
	}

	e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"visibility":"share-link"}`, 200)
	if p := e.read(url, returning...); p.status != 404 || strings.Contains(p.body, "Secret plans.") {
		t.Fatalf("right after the site became share-link: %d %.200s", p.status, p.body)
	}
	link := e.call("ada", "POST", "/v1/orgs/acme/sites/"+id+"/share-links", `{"name":"partners"}`, 201)
	p := e.want(str(link, "urls", "published"), 200, returning...)
	if !strings.Contains(p.body, "Secret plans.") || p.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("with the key: Cache-Control %q", p.header.Get("Cache-Control"))
	}
	// A first visit (insights cookies set too) is stored by no cache either.
	if p := e.want(str(link, "urls", "published"), 200); p.header.Get("Cache-Control") != "private, no-store" {
		t.Errorf("a first visit with the key: Cache-Control %q", p.header.Get("Cache-Control"))
	}

	e.content.Delete("sp2")
	if p := e.read(url2, returning...); p.status != 404 || strings.Contains(p.body, "Open words.") {
		t.Errorf("right after the space's deletion: %d %.200s", p.status, p.body)
	}
}

// TestProjectionWithoutRevisionAsksContent: a projected space whose view
// carries no revision (stored before views carried one) is served by
// asking content which revision is current, as before.
func TestProjectionWithoutRevisionAsksContent(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "First words."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	e.content.Merge("sp1", contenttest.Doc("p1", "Welcome", "welcome", "Second words."))
	e.projectSpace("sp1", func(v map[string]any) { delete(v, "revision") })
	asked := e.content.Calls("current")
	if p := e.want(url, 200, returning...); !strings.Contains(p.body, "Second words.") {
		t.Errorf("without a projected revision: %.300s", p.body)
	}
	if e.content.Calls("current") == asked {
		t.Error("content was not asked which revision is current")
	}
}

// TestImpersonalMark: only a public answer built from nothing of the
// reader's is marked impersonal (readerapi.ImpersonalHeader), the one
// mark the gateway's page cache keeps an answer by. A visitor's token,
// read from any Cookie line (an empty first line hides nothing) or the
// query, an empty cookie of access, a share key or unsigned claims each
// take the mark away; the answer still carries its tags.
func TestImpersonalMark(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hello."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1"]}`)
	key := str(e.call("ada", "GET", "/v1/orgs/acme/sites/"+id+"/publishing/auth", "", 200), "privateKey")
	tok := visitorToken(t, key, time.Now().Add(time.Hour), jwt.MapClaims{"sub": "visitor-1"})

	plain := e.want(url, 200, returning...)
	if plain.header.Get(readerapi.ImpersonalHeader) != readerapi.Impersonal || plain.header.Get(readerapi.TagsHeader) == "" {
		t.Fatalf("a page read without cookies: impersonal %q, tags %q", plain.header.Get(readerapi.ImpersonalHeader),
			plain.header.Get(readerapi.TagsHeader))
	}
	for name, hd := range map[string]http.Header{
		"split Cookie lines":  {"Cookie": {"", "docspub_visitor=" + tok}},
		"visitor cookie":      {"Cookie": {"docspub_vid=v1; docspub_visitor=" + tok}},
		"empty visitor":       {"Cookie": {"docspub_visitor="}},
		"share key cookie":    {"Cookie": {"docspub_share=k"}},
		"unsigned claims":     {"Cookie": {"docspub_unsigned=%7B%7D"}},
		"a forged mark alone": {"Cookie": {"docspub_visitor=" + tok}, readerapi.ImpersonalHeader: {readerapi.Impersonal}},
	} {
		p := e.readLines(http.MethodGet, url, hd)
		if p.status != 200 || p.header.Get(readerapi.ImpersonalHeader) != "" {
			t.Errorf("%s: %d, impersonal %q", name, p.status, p.header.Get(readerapi.ImpersonalHeader))
		}
		if name == "split Cookie lines" {
			v, _ := readerapi.ParseView(p.header.Get(readerapi.ViewHeader))
			if v.Claims["sub"] != "visitor-1" {
				t.Errorf("%s: sites did not read the second line (view %+v)", name, v)
			}
		}
	}
	for _, q := range []string{"?jwt_token=" + tok, "?shareKey=k", "?visitor.beta=true"} {
		if p := e.read(url+q, returning...); p.header.Get(readerapi.ImpersonalHeader) != "" {
			t.Errorf("%s: %d, impersonal %q", q, p.status, p.header.Get(readerapi.ImpersonalHeader))
		}
	}
}

// TestChangesDropTheirOwnStructures: a change of another organization's
// sites, or of a space the site does not show, leaves the site's cached
// structure served without a read, whether the site is found by its path
// or by its hostname; a change of its own organization, or of a space it
// shows, drops it. (The clock stands still: no TTL ends.)
func TestChangesDropTheirOwnStructures(t *testing.T) {
	now := time.Now()
	e := newEnvWith(t, reader.Deps{Now: func() time.Time { return now }})
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Hello."))
	id, url := e.site(`{"title":"First","spaces":["sp1"]}`)
	const host = "docs.acme.test"
	e.verifyHostname("ada", "acme", id, host)
	rename := func(title string) { // behind the reader's back: only a read shows it
		t.Helper()
		if _, err := e.db.Collection(sitemongo.Sites).UpdateOne(context.Background(), bson.M{"_id": id},
			bson.M{"$set": bson.M{"title": title}}); err != nil {
			t.Fatal(err)
		}
	}
	titled := func(title string) {
		t.Helper()
		for _, u := range []string{url, "http://" + host + "/"} {
			if p := e.want(u, 200, returning...); !strings.Contains(p.body, "| "+title+"</title>") {
				t.Errorf("%s: want the site titled %s: %.300s", u, title, p.body)
			}
		}
	}
	titled("First") // cached from here on

	rename("Second")
	e.changes.Invalidate(sitesapi.NewSiteUpdated("other", "s9", nil))
	e.changes.SpaceChanged("sp9")
	titled("First")
	e.changes.SpaceChanged("sp1")
	titled("Second")

	rename("Third")
	e.changes.Invalidate(sitesapi.NewSiteUpdated("other", "s9", nil))
	titled("Second")
	e.changes.Invalidate(sitesapi.NewSiteUpdated("acme", id, nil))
	titled("Third")
}
