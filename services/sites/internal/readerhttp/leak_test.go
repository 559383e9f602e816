package readerhttp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
)

// Marker words, each in one piece of content a visitor without claims may
// not be shown (hidden is read at its own address only).
const (
	markHidden      = "MARKERHIDDEN"      // a hidden site space
	markCondVariant = "MARKERCONDVARIANT" // a site space whose condition does not hold
	markCondSection = "MARKERCONDSECTION" // a section whose condition does not hold
	markUnpublished = "MARKERUNPUBLISHED" // a site space whose space was deleted
	markGroup       = "MARKERGROUP"       // a group holding only that section
	markMember      = "MARKERMEMBERONLY"  // member-only fields of a space (gitSync.url, parent)
	markVisible     = "MARKERVISIBLE"     // what every visitor reads
)

var markers = []string{markHidden, markCondVariant, markCondSection, markUnpublished, markGroup, markMember}

// leakSite is a public site with adaptive content: a default section
// "Guides" (Handbook, the visitor's; Internal, hidden; Preview, for
// unsigned claim preview; Gone, whose space is deleted) and a section for
// claim beta alone in a group.
type leakSite struct {
	id, url   string
	siteSpace map[string]string // space → its site space
	revision  map[string]string // space → its revision
	hidden    string            // the hidden site space's address under the site
}

func newLeakSite(t *testing.T, e *env) leakSite {
	t.Helper()
	ls := leakSite{siteSpace: map[string]string{}, revision: map[string]string{}}
	add := func(space, title, slug, text string) {
		e.content.AddSpace(space, "acme", title)
		ls.revision[space] = e.content.MergeFiles(space, []contentclient.Page{
			contenttest.Doc(space+"-p1", text+" home", slug, text+" home."),
			contenttest.Doc(space+"-p2", text+" more", slug+"-more", text+" more."),
		}, map[string]contenttest.File{space + "-f": {Name: "notes.txt", ContentType: "text/plain", Bytes: []byte(text + " file")}})
	}
	add("sp1", "Handbook", "welcome", markVisible)
	add("sp2", "Internal "+markHidden, "internal", markHidden)
	add("sp3", "Preview "+markCondVariant, "preview", markCondVariant)
	add("sp4", "Beta "+markCondSection, "beta", markCondSection)
	add("sp5", "Gone "+markUnpublished, "gone", markUnpublished)

	ls.id, ls.url = e.site(`{"title":"Docs"}`)
	sitePath := "/v1/orgs/acme/sites/" + ls.id
	guides := str(e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"sp1","title":"Guides"}`, 201), "id")
	for _, sp := range []string{"sp2", "sp3", "sp5"} {
		e.call("ada", "POST", sitePath+"/site-spaces", `{"spaceId":"`+sp+`","sectionId":"`+guides+`"}`, 201)
	}
	beta := str(e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"sp4","title":"Beta `+markCondSection+`"}`, 201), "id")
	e.call("ada", "PATCH", sitePath+"/sections/"+beta, `{"condition":"visitor.claims.beta == true"}`, 200)
	e.call("ada", "POST", sitePath+"/section-groups", `{"title":"Group `+markGroup+`","sections":["`+beta+`"]}`, 201)
	for _, ss := range e.call("ada", "GET", sitePath+"/site-spaces", "", 200)["items"].([]any) {
		m := ss.(map[string]any)
		if m["section"] != nil && m["section"] != "" {
			ls.siteSpace[str(m, "space", "id")] = str(m, "id")
		}
	}
	e.call("ada", "PATCH", sitePath+"/site-spaces/"+ls.siteSpace["sp2"], `{"hidden":true}`, 200)
	e.call("ada", "PATCH", sitePath+"/site-spaces/"+ls.siteSpace["sp3"], `{"condition":"visitor.claims.unsigned.preview == true"}`, 200)
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{"beta":{"type":"boolean"},
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)

	// Member-only fields of the visitor's space: a private repository's
	// URL, its collection.
	e.projectSpace("sp1", func(v map[string]any) {
		v["gitSync"] = map[string]any{"url": "https://" + markMember + "@git.acme.test/private.git",
			"installationId": "inst-" + markMember, "installationProvider": "github", "installationStatus": "active"}
		v["parent"] = "collection-" + markMember
		// The rest of a Space as content's events carry it (the stand-in's
		// answer has only a few fields).
		v["emoji"], v["defaultLevel"], v["mergeRules"] = "", "inherit", map[string]any{"type": "inherit"}
		v["comments"], v["changeRequests"], v["changeRequestsOpen"], v["changeRequestsDraft"] = 3, 5, 1, 1
		v["urls"] = map[string]any{"location": "http://gw.test/v1/spaces/sp1", "app": "http://app.test/s/sp1"}
	})
	// Gone: deleted in content, and its event projected.
	e.content.Delete("sp5")
	e.projectSpace("sp5", func(v map[string]any) { v["deletedAt"] = time.Now().UTC().Format(time.RFC3339) })
	ls.hidden = "/" + "internal-" + strings.ToLower(markHidden)
	return ls
}

// projectSpace changes the projection's view of a space, as content's
// event would, and tells the reader, as the service's consumer does.
func (e *env) projectSpace(id string, change func(map[string]any)) {
	e.t.Helper()
	got, err := e.spaces.Get(context.Background(), []string{id})
	if err != nil || got[id].View == "" {
		e.t.Fatalf("projection of %s: %v", id, err)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(got[id].View), &v); err != nil {
		e.t.Fatal(err)
	}
	change(v)
	v["updatedAt"] = time.Now().Add(time.Minute).UTC().Format(time.RFC3339Nano)
	raw, _ := json.Marshal(v)
	if err := e.spaces.Put(context.Background(), raw, v["deletedAt"] != nil, time.Time{}); err != nil {
		e.t.Fatal(err)
	}
	e.changes.SpaceChanged(id)
}

// TestHiddenContentInNoReaderRoute: every route of the reader's table
// (reader.Routes), filled with every address a reader could try (every
// site space's path and every page's, every site space, revision and
// file id of the site), answers a visitor without claims nothing of a
// hidden site space, of a section or site space whose condition does not
// hold, of a deleted space, of a group left empty, of a space's
// member-only fields. The hidden site space alone is read at its own
// address (and its files), never indexed there.
func TestHiddenContentInNoReaderRoute(t *testing.T) {
	e := newEnv(t)
	ls := newLeakSite(t, e)

	// Every site space's address, as members are told (the hidden one,
	// the conditional ones, the deleted one's path guessed).
	variants := []string{"", "/gone-" + strings.ToLower(markUnpublished)}
	member := e.call("ada", "GET", "/v1/orgs/acme/sites/"+ls.id+"/published", "", 200)
	raw, _ := json.Marshal(member)
	for _, w := range []string{markHidden, markCondVariant, markCondSection, markMember} {
		if !strings.Contains(string(raw), w) {
			t.Fatalf("the member's published view lacks %s (today's answer): %s", w, raw)
		}
	}
	for _, m := range siteSpaceURLs(string(raw)) {
		if p := strings.TrimPrefix(m, ls.url); p != m && !slices.Contains(variants, p) {
			variants = append(variants, p)
		}
	}
	var pages []string
	for _, slug := range []string{"welcome", "internal", "preview", "beta", "gone"} {
		pages = append(pages, slug, slug+"-more")
	}
	var ids []string
	for _, ss := range ls.siteSpace {
		ids = append(ids, ss)
	}
	slices.Sort(ids)
	spaces := []string{"sp1", "sp2", "sp3", "sp4", "sp5"}

	fill := map[string]func(rt reader.Route) []string{
		"{variant}/{page}": func(rt reader.Route) []string {
			var out []string
			for _, v := range variants {
				out = append(out, v+"/")
				for _, p := range pages {
					out = append(out, strings.ReplaceAll(strings.ReplaceAll(rt.Path, "{variant}", v), "{page}", p))
				}
			}
			return out
		},
		"/~files/{siteSpace}/{revision}/{file}": func(rt reader.Route) []string {
			var out []string
			for _, ss := range ids {
				for _, sp := range spaces {
					for _, f := range spaces {
						out = append(out, "/~files/"+ss+"/"+ls.revision[sp]+"/"+f+"-f")
					}
				}
			}
			return out
		},
		"/~search?q={query}": func(reader.Route) []string {
			var out []string
			for _, w := range append(slices.Clone(markers), markVisible, "home", "file") {
				out = append(out, "/~search?q="+w)
			}
			return out
		},
	}
	fill["/~static/{asset}"] = func(reader.Route) []string {
		return []string{"/~static/" + reader.KaTeXCSS, "/~static/" + reader.MermaidJS}
	}
	fill["{variant}/{page}.md"] = func(rt reader.Route) []string {
		var out []string
		for _, p := range fill["{variant}/{page}"](reader.Route{Path: "{variant}/{page}"}) {
			if !strings.HasSuffix(p, "/") {
				out = append(out, p+".md")
			}
		}
		return out
	}

	served := map[string]bool{} // routes that answered the visitor's content somewhere
	for _, rt := range reader.Routes() {
		var paths []string
		switch f := fill[rt.Path]; {
		case f != nil:
			paths = f(rt)
		case !strings.Contains(rt.Path, "{"):
			paths = []string{rt.Path}
		default:
			t.Fatalf("route %s (%s) has placeholders this test does not fill: fill them", rt.Name, rt.Path)
		}
		for _, path := range paths {
			p := e.read(ls.url + path)
			if q, ok := strings.CutPrefix(path, "/~search?q="); ok {
				p.body = strings.ReplaceAll(p.body, `value="`+q+`"`, "") // the search box echoes the query
			}
			direct := strings.HasPrefix(path, ls.hidden+"/") || path == ls.hidden+"/" ||
				strings.HasPrefix(path, "/~files/"+ls.siteSpace["sp2"]+"/"+ls.revision["sp2"]+"/")
			lower := strings.ToLower(p.body) // paths hold the markers in lower case
			for _, w := range markers {
				if strings.Contains(lower, strings.ToLower(w)) && !(direct && w == markHidden && p.status == http.StatusOK) {
					t.Errorf("%s: GET %s = %d shows %s: %.300s", rt.Name, path, p.status, w, p.body)
				}
			}
			if direct && p.status == http.StatusOK && p.header.Get("X-Robots-Tag") != "noindex" {
				t.Errorf("%s: the hidden site space's own address %s is indexed", rt.Name, path)
			}
			if p.status == http.StatusOK && strings.Contains(p.body, markVisible) {
				served[rt.Name] = true
			}
		}
	}
	for _, rt := range reader.Routes() {
		// (static answers the vendored assets of pages: no content)
		if rt.Name != "robots.txt" && rt.Name != "sitemap.xml" && rt.Name != "static" && !served[rt.Name] {
			t.Errorf("route %s never answered the visitor's own content: the test proves nothing of it", rt.Name)
		}
	}
	// The hidden site space is read at its own address.
	if p := e.want(ls.url+ls.hidden+"/internal-more", 200); !strings.Contains(p.body, markHidden+" more.") {
		t.Errorf("the hidden site space at its own address: %.300s", p.body)
	}
	// The sitemap lists the visitor's pages, and theirs alone.
	if p := e.want(ls.url+"/sitemap.xml", 200); !strings.Contains(p.body, ls.url+"/welcome-more</loc>") {
		t.Errorf("sitemap: %s", p.body)
	}

	// With the claims, the conditional content shows: the rule is the
	// visitor's, not a blanket refusal.
	if p := e.want(ls.url+"/llms-full.txt?visitor.preview=true", 200); !strings.Contains(p.body, markCondVariant) {
		t.Errorf("llms-full.txt with the preview claim: %.600s", p.body)
	}
}

// siteSpaceURLs are the urls.published of the site spaces of a published
// view (JSON).
func siteSpaceURLs(view string) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if v["object"] == "site-space" {
				if u, ok := v["urls"].(map[string]any); ok {
					if s, ok := u["published"].(string); ok {
						out = append(out, s)
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	var doc any
	_ = json.Unmarshal([]byte(view), &doc)
	walk(doc)
	return out
}

// TestPublishedViewOfANonMember: GET SITE/published shows a visitor who is
// not a member what the reader shows them (the same rule) and no
// member-only field: no condition, no hidden or conditional site space, no
// deleted space, no group left empty, no gitSync or parent of a space; it
// stays valid against the contract. Members keep today's answer.
func TestPublishedViewOfANonMember(t *testing.T) {
	e := newEnv(t)
	ls := newLeakSite(t, e)
	path := "/v1/orgs/acme/sites/" + ls.id + "/published"

	r := e.api.Expect(t, as("eve"), "GET", path, "", 200, "getPublishedContentSite")
	body := string(r.Body)
	for _, w := range append(slices.Clone(markers), `"condition"`, `"gitSync"`, `"parent"`) {
		if strings.Contains(body, w) {
			t.Errorf("the non-member's published view shows %s: %s", w, body)
		}
	}
	var got struct {
		Site struct {
			SiteSpaces int `json:"siteSpaces"`
		} `json:"site"`
		Structure struct {
			Type      string           `json:"type"`
			Structure []map[string]any `json:"structure"`
		} `json:"structure"`
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatal(err)
	}
	urls := siteSpaceURLs(body)
	if got.Structure.Type != "sections" || len(got.Structure.Structure) != 1 || len(urls) != 1 || urls[0] != ls.url ||
		got.Site.SiteSpaces != 1 {
		t.Errorf("the non-member's structure: %s", body)
	}
	// What the reader shows the same visitor: the same site spaces.
	if p := e.want(ls.url, 200); !strings.Contains(p.body, markVisible) {
		t.Errorf("the reader's root: %.300s", p.body)
	}

	m := e.api.Expect(t, as("ada"), "GET", path, "", 200, "")
	for _, w := range []string{markHidden, markCondVariant, markCondSection, markGroup, markMember, `"condition"`} {
		if !strings.Contains(string(m.Body), w) {
			t.Errorf("the member's published view lacks %s: %s", w, m.Body)
		}
	}
	contracttest.Validate(t, "PublishedContentSite", r.Body)
}

// TestSearchSkipsSpacesContentDeleted: before the site's projection hears
// of a deletion, content's search (whose index keeps a deleted space until
// it is purged) may answer its pages: the reader shows none of them, as it
// serves none of its pages.
func TestSearchSkipsSpacesContentDeleted(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "Common words here."))
	e.content.AddSpace("sp2", "acme", "Old", contenttest.Doc("q1", "Old", "old", "Common words "+markUnpublished+"."))
	_, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	if p := e.want(url+"/~search?q=common", 200); !strings.Contains(p.body, markUnpublished) {
		t.Fatalf("before the deletion the search finds both spaces: %.600s", p.body)
	}
	e.content.Delete("sp2") // the event not projected yet
	p := e.want(url+"/~search?q=common", 200)
	if body := strings.ReplaceAll(p.body, `value="common"`, ""); strings.Contains(body, markUnpublished) ||
		!strings.Contains(body, "/welcome") {
		t.Errorf("search after the deletion: %.800s", p.body)
	}
}
