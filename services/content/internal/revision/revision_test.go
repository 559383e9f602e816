package revision_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/google/go-cmp/cmp"
)

var urls = links.New("http://gw.test", "http://app.test")

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fixture is a revision of space sp1:
//
//	guide            (group)
//	  guide/install  document
//	  guide/usage    document, child of install's sibling
//	api              document
//	  api/auth       document
func fixture() revision.Revision {
	doc := func(id, title, slug, md string, children ...revision.Page) revision.Page {
		return revision.Page{ID: id, Kind: revision.KindDocument, Title: title, Slug: slug, Markdown: md, Pages: children, CreatedAt: t0, UpdatedAt: t0}
	}
	return revision.Revision{
		ID: "rev1", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, Parents: []string{"rev0"}, CreatedAt: t0,
		Pages: []revision.Page{
			{ID: "pg-guide", Kind: revision.KindGroup, Title: "Guide", Slug: "guide", Pages: []revision.Page{
				doc("pg-install", "Install", "install", "See [usage](usage.md), [api](../api/README.md#top), [gone](missing.md) and <https://go.dev>.\n\n![logo](../.gitbook/assets/logo.png)\n\n`[not](a-link.md)`\n"),
				doc("pg-usage", "Usage", "usage", "Back to [install](install) or [auth](/api/auth).\n\n```\n[code](x.md)\n```\n"),
			}},
			doc("pg-api", "API", "api", "{% file src=\"manual.pdf\" %}\n\n[same page](#intro) and www.example.com\n",
				doc("pg-auth", "Auth", "auth", "[parent](../api) [app](http://app.test/s/sp1/guide/usage) [app gone](http://app.test/s/sp1/nope) <img src=\"assets/logo.png\">")),
		},
		Files: []revision.File{
			{ID: "f-logo", Name: "logo.png", ContentType: "image/png", Size: 3, Blob: "b1", Width: 10, Height: 20},
			{ID: "f-manual", Name: "manual.pdf", ContentType: "application/pdf", Size: 5, Blob: "b2"},
			{ID: "f-unused", Name: "unused.txt", ContentType: "text/plain", Size: 1, Blob: "b3"},
		},
	}
}

func TestParseLinks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		md   string
		want []revision.MarkdownLink
	}{
		{"inline link and image", "[a](x.md) ![b](y.png)", []revision.MarkdownLink{{"x.md", "link"}, {"y.png", "image"}}},
		{"reference link", "[a][r]\n\n[r]: https://ex.com/r\n", []revision.MarkdownLink{{"https://ex.com/r", "link"}}},
		{"autolinks", "<https://a.test> and www.b.test and me@c.test", []revision.MarkdownLink{{"https://a.test", "link"}, {"http://www.b.test", "link"}, {"mailto:me@c.test", "link"}}},
		{"code is not a link", "`[a](x.md)`\n\n```\n[b](y.md)\n```\n\n    [c](z.md)\n", nil},
		{"liquid tags", "{% file src=\"a.pdf\" %}\n\n{% embed url=\"https://v.test\" %}", []revision.MarkdownLink{{"a.pdf", "file"}, {"https://v.test", "embed"}}},
		{"raw html", "<a href=\"h.md\">x</a> <img src='i.png'>", []revision.MarkdownLink{{"h.md", "link"}, {"i.png", "image"}}},
		{"html block", "<div>\n<img src=\"d.png\">\n</div>\n", []revision.MarkdownLink{{"d.png", "image"}}},
		{"angle destination with spaces", "![x](<../assets/a b.png>)", []revision.MarkdownLink{{"../assets/a b.png", "image"}}},
		{"empty destination", "[a]()", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := revision.ParseLinks(tc.md)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("ParseLinks(%q) (-got +want):\n%s", tc.md, diff)
			}
		})
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	r := fixture()
	x := revision.NewResolver(&r, urls)
	install, _ := r.FindPage("pg-install")
	auth, _ := r.FindPage("pg-auth")
	api, _ := r.FindPage("pg-api")
	tests := []struct {
		name string
		from revision.Flat
		href string
		want revision.Target
	}{
		{"external https", install, "https://go.dev/doc", revision.Target{Status: "ok", Kind: "url", URL: "https://go.dev/doc"}},
		{"mailto", install, "mailto:a@b.test", revision.Target{Status: "ok", Kind: "url", URL: "mailto:a@b.test"}},
		{"protocol relative", install, "//cdn.test/x.js", revision.Target{Status: "ok", Kind: "url", URL: "//cdn.test/x.js"}},
		{"sibling .md", install, "usage.md", revision.Target{Status: "in-app", Kind: "page", Page: "pg-usage"}},
		{"sibling without .md", install, "usage", revision.Target{Status: "in-app", Kind: "page", Page: "pg-usage"}},
		{"up and README with anchor", install, "../api/README.md#top", revision.Target{Status: "in-app", Kind: "page", Page: "pg-api", Anchor: "top"}},
		{"absolute path", install, "/api/auth", revision.Target{Status: "in-app", Kind: "page", Page: "pg-auth"}},
		{"child of the page itself", api, "auth.md", revision.Target{Status: "in-app", Kind: "page", Page: "pg-auth"}},
		{"anchor only", install, "#setup", revision.Target{Status: "in-app", Kind: "page", Page: "pg-install", Anchor: "setup"}},
		{"missing page", install, "missing.md", revision.Target{Status: "broken", Kind: "url", URL: "missing.md"}},
		{"file by name in assets", install, "../.gitbook/assets/logo.png", revision.Target{Status: "in-app", Kind: "file", File: "f-logo"}},
		{"file by id", auth, "files/f-manual", revision.Target{Status: "in-app", Kind: "file", File: "f-manual"}},
		{"missing file", auth, "assets/nope.png", revision.Target{Status: "broken", Kind: "url", URL: "assets/nope.png"}},
		{"app url of a page", auth, "http://app.test/s/sp1/guide/usage", revision.Target{Status: "in-app", Kind: "page", Page: "pg-usage"}},
		{"app url of a revision's page", auth, "http://app.test/s/sp1/~/revisions/r9/api#x", revision.Target{Status: "in-app", Kind: "page", Page: "pg-api", Anchor: "x"}},
		{"app url of a missing page", auth, "http://app.test/s/sp1/nope", revision.Target{Status: "broken", Kind: "url", URL: "http://app.test/s/sp1/nope"}},
		{"app url elsewhere", auth, "http://app.test/s/other/x", revision.Target{Status: "in-app", Kind: "url", URL: "http://app.test/s/other/x"}},
		{"unparsable relative", install, "50%.md", revision.Target{Status: "broken", Kind: "url", URL: "50%.md"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := x.Resolve(tc.from, tc.href)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Resolve(%s, %q) (-got +want):\n%s", tc.from.Path, tc.href, diff)
			}
		})
	}
}

func TestSlugify(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"Getting Started", "getting-started"},
		{"  Hello,   World!  ", "hello-world"},
		{"Éléphant & Çà", "elephant-ca"},
		{"Straße Øre", "strasse-ore"},
		{"API v2.0 — ÜBER", "api-v2-0-uber"},
		{"日本語", ""},
		{"a--b__c", "a-b-c"},
		{strings.Repeat("ab ", 60), strings.TrimRight(strings.Repeat("ab-", 34)[:100], "-")},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			if got := revision.Slugify(tc.in); got != tc.want {
				t.Errorf("Slugify(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	t.Parallel()
	parent := fixture()
	parent.ReusableContents = []revision.ReusableContent{{ID: "rc1", Title: "Note", Markdown: "hi"}}
	parent.Redirects = []revision.Redirect{{Path: "old", Page: "p1"}}
	now := time.Date(2025, 4, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))
	pages := []revision.Page{{ID: revision.NewPageID(), Kind: revision.KindDocument, Title: "New", Slug: "new"}}
	got := revision.Build(parent, revision.TypeMerge, pages, nil, now)
	if got.ID == "" || got.ID == parent.ID {
		t.Fatalf("id = %q, want a new one", got.ID)
	}
	want := revision.Revision{
		ID: got.ID, Space: "sp1", Organization: "org1", Type: revision.TypeMerge, Parents: []string{"rev1"},
		Pages: pages, Files: []revision.File{}, ReusableContents: parent.ReusableContents, Redirects: parent.Redirects, CreatedAt: now.UTC(),
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Build (-got +want):\n%s", diff)
	}
	if got.Redirects[0].Page = "p2"; parent.Redirects[0].Page != "p1" {
		t.Error("the new revision's redirects are its parent's slice")
	}
	if a, b := revision.NewFileID(), revision.NewFileID(); a == b || a == "" {
		t.Errorf("NewFileID gave %q and %q", a, b)
	}
}

// memStore keeps revisions in memory: the domain's own Store interface,
// so that view tests need no database (revisionmongo tests the real one).
type memStore map[string]revision.Revision

func (m memStore) Insert(_ context.Context, r revision.Revision) error { m[r.ID] = r; return nil }
func (m memStore) Get(_ context.Context, id string) (revision.Revision, error) {
	r, ok := m[id]
	if !ok {
		return revision.Revision{}, apierr.NotFound("revision not found")
	}
	return r, nil
}
func (m memStore) Tree(ctx context.Context, id string) (revision.Revision, error) {
	return m.Get(ctx, id)
}
func (m memStore) Markdown(context.Context, []*revision.Page) error { return nil }
func (m memStore) PutBlob(context.Context, revision.Owner, string, string, io.Reader) (string, int64, error) {
	return "", 0, nil
}
func (m memStore) OpenBlob(context.Context, string, int64) (io.ReadSeekCloser, error) {
	return nopCloser{strings.NewReader("")}, nil
}

type nopCloser struct{ *strings.Reader }

func (nopCloser) Close() error { return nil }

func service(t *testing.T, revs ...revision.Revision) *revision.Service {
	t.Helper()
	m := memStore{}
	for _, r := range revs {
		m[r.ID] = r
	}
	return revision.New(m, urls, nil)
}

var grant = access.Grant{Organization: "org1", Space: "sp1", Revision: "rev1", Level: "read", User: "u1"}

func validate(t *testing.T, schema string, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := contracttest.Check(schema, b); err != nil {
		t.Error(err)
	}
	return b
}

func TestViews(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	other := fixture()
	other.ID, other.Space = "rev-other", "sp2"
	merged := fixture()
	merged.ID, merged.Type, merged.MergedFrom = "rev-merge", revision.TypeMerge, "cr1"
	empty := revision.Revision{ID: "rev-empty", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, CreatedAt: t0}
	svc := service(t, fixture(), other, merged, empty)

	t.Run("revision", func(t *testing.T) {
		v, err := svc.Revision(ctx, grant, "rev1")
		if err != nil {
			t.Fatal(err)
		}
		validate(t, "Revision", v)
		if v.URLs.App != "http://app.test/s/sp1/~/revisions/rev1" || len(v.Pages) != 2 || len(v.Files) != 3 {
			t.Errorf("revision view = %+v", v)
		}
		usage := v.Pages[0].Pages[1]
		if usage.Path != "guide/usage" || usage.URLs.App != "http://app.test/s/sp1/guide/usage" || usage.Kind != "sheet" {
			t.Errorf("usage = %+v", usage)
		}
	})
	t.Run("empty revision", func(t *testing.T) {
		v, err := svc.Revision(ctx, grant, "rev-empty")
		if err != nil {
			t.Fatal(err)
		}
		b := validate(t, "Revision", v)
		if !strings.Contains(string(b), `"pages":[]`) || !strings.Contains(string(b), `"parents":[]`) {
			t.Errorf("empty revision = %s", b)
		}
	})
	t.Run("merge revision", func(t *testing.T) {
		v, err := svc.Revision(ctx, grant, "rev-merge")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(v.MergedFrom)
		if string(got) != `{"id":"cr1","object":"change-request"}` {
			t.Errorf("mergedFrom = %s", got)
		}
	})
	t.Run("page as markdown and as document", func(t *testing.T) {
		for _, format := range []string{"", "markdown", "document"} {
			p, err := svc.Page(ctx, grant, "rev1", "pg-install", format)
			if err != nil {
				t.Fatal(err)
			}
			b := validate(t, "RevisionPage", p)
			if hasDoc := p.Document != nil; hasDoc != (format == "document") || (p.Markdown != nil) == hasDoc {
				t.Errorf("format %q: %s", format, b)
			}
		}
		g, err := svc.Page(ctx, grant, "rev1", "pg-guide", "document")
		if err != nil {
			t.Fatal(err)
		}
		validate(t, "RevisionPage", g)
		if g.Kind != "group" || len(g.Pages) != 2 {
			t.Errorf("group = %+v", g)
		}
	})
	t.Run("page of an older revision links into it", func(t *testing.T) {
		older := fixture()
		older.ID = "rev-old"
		p, err := service(t, older).Page(ctx, grant, "rev-old", "pg-auth", "")
		if err != nil {
			t.Fatal(err)
		}
		if want := "http://app.test/s/sp1/~/revisions/rev-old/api/auth"; p.URLs.App != want {
			t.Errorf("urls.app = %s, want %s", p.URLs.App, want)
		}
	})
	t.Run("page by path", func(t *testing.T) {
		p, err := svc.PageByPath(ctx, grant, "rev1", "/api/auth/", "markdown")
		if err != nil || p.ID != "pg-auth" {
			t.Fatalf("PageByPath = %+v, %v", p, err)
		}
	})
	t.Run("file", func(t *testing.T) {
		f, err := svc.File(ctx, grant, "rev1", "f-logo")
		if err != nil {
			t.Fatal(err)
		}
		validate(t, "RevisionFile", f)
		want := revision.FileView{ID: "f-logo", Name: "logo.png", ContentType: "image/png", Size: 3,
			DownloadURL: "http://gw.test/v1/spaces/sp1/revisions/rev1/files/f-logo/download", Dimensions: &revision.Dimensions{Width: 10, Height: 20}}
		if diff := cmp.Diff(f, want); diff != "" {
			t.Errorf("file (-got +want):\n%s", diff)
		}
	})
	t.Run("files paged by id", func(t *testing.T) {
		l, err := svc.Files(ctx, grant, "rev1", revision.Window{After: "f-logo", Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if l.Count != 3 || len(l.Items) != 1 || l.Items[0].ID != "f-manual" {
			t.Errorf("files = %+v", l)
		}
	})
	t.Run("backlinks", func(t *testing.T) {
		tests := []struct {
			file string
			want []string
		}{{"f-logo", []string{"pg-auth", "pg-install"}}, {"f-manual", []string{"pg-api"}}, {"f-unused", nil}}
		for _, tc := range tests {
			l, err := svc.FileBacklinks(ctx, grant, "rev1", tc.file, revision.Window{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range l.Items {
				got = append(got, b.Page)
				if b.File != tc.file || b.VersionContext.Revision != "rev1" || b.Kind != "page" {
					t.Errorf("backlink = %+v", b)
				}
			}
			if diff := cmp.Diff(got, tc.want); diff != "" || l.Count != len(tc.want) {
				t.Errorf("backlinks of %s (-got +want):\n%s", tc.file, diff)
			}
		}
	})
	t.Run("errors", func(t *testing.T) {
		tests := []struct {
			name string
			call func() error
			want string
		}{
			{"other space's revision", func() error { _, err := svc.Revision(ctx, grant, "rev-other"); return err }, "revision not found"},
			{"missing revision", func() error { _, err := svc.Pages(ctx, grant, "nope"); return err }, "revision not found"},
			{"missing page", func() error { _, err := svc.Page(ctx, grant, "rev1", "nope", ""); return err }, "page not found"},
			{"bad format", func() error { _, err := svc.Page(ctx, grant, "rev1", "pg-api", "html"); return err }, "format: must be"},
			{"missing path", func() error { _, err := svc.PageByPath(ctx, grant, "rev1", "api/x", ""); return err }, "page not found"},
			{"missing file", func() error { _, err := svc.File(ctx, grant, "rev1", "nope"); return err }, "file not found"},
			{"backlinks of missing file", func() error { _, err := svc.FileBacklinks(ctx, grant, "rev1", "nope", revision.Window{}); return err }, "file not found"},
			{"links of missing page", func() error { _, err := svc.PageLinks(ctx, grant, "rev1", "nope", revision.Window{}); return err }, "page not found"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				err := tc.call()
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %v, want %q", err, tc.want)
				}
			})
		}
	})
}

func TestLinks(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc := service(t, fixture())
	type item struct{ Status, Relation, Target string }
	summary := func(l revision.LinkList) []item {
		var out []item
		for _, it := range l.Items {
			tg := it.TargetReference.URL + it.TargetReference.Page + it.TargetReference.File
			out = append(out, item{it.Status, it.Relation, tg})
		}
		return out
	}
	all, err := svc.Links(ctx, grant, "rev1", "", revision.Window{})
	if err != nil {
		t.Fatal(err)
	}
	wantStats := revision.LinkStats{Total: 12, OK: 2, InApp: 8, Broken: revision.BrokenStats{Total: 2}}
	if diff := cmp.Diff(all.Stats, wantStats); diff != "" {
		t.Errorf("stats (-got +want):\n%s\nitems: %+v", diff, summary(all))
	}
	tests := []struct {
		status string
		want   []item
	}{
		{"broken", []item{{"broken", "link", "http://app.test/s/sp1/nope"}, {"broken", "link", "missing.md"}}},
		{"ok", []item{{"ok", "link", "http://www.example.com"}, {"ok", "link", "https://go.dev"}}},
		{"in-app", []item{
			{"in-app", "file", "f-manual"},
			{"in-app", "image", "f-logo"},
			{"in-app", "link", "pg-api"}, // #intro on itself
			{"in-app", "link", "pg-api"}, // ../api/README.md#top
			{"in-app", "link", "pg-api"}, // ../api from auth
			{"in-app", "link", "pg-auth"},
			{"in-app", "link", "pg-install"},
			{"in-app", "link", "pg-usage"}, // usage.md and its app URL: one target
		}},
	}
	for _, tc := range tests {
		t.Run(tc.status, func(t *testing.T) {
			l, err := svc.Links(ctx, grant, "rev1", tc.status, revision.Window{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(summary(l), tc.want); diff != "" || l.Count != len(tc.want) || l.Stats != wantStats {
				t.Errorf("links %s (count %d) (-got +want):\n%s", tc.status, l.Count, diff)
			}
		})
	}
	t.Run("locations", func(t *testing.T) {
		for _, it := range all.Items {
			var pages []string
			for _, loc := range it.LocationReferences {
				pages = append(pages, loc.Page)
			}
			switch it.TargetReference.File + it.TargetReference.Page {
			case "f-logo", "pg-usage":
				if diff := cmp.Diff(pages, []string{"pg-install", "pg-auth"}); diff != "" {
					t.Errorf("locations of %+v (-got +want):\n%s", it.TargetReference, diff)
				}
			}
		}
	})
	t.Run("paging", func(t *testing.T) {
		first, _ := svc.Links(ctx, grant, "rev1", "", revision.Window{Limit: 4})
		next, _ := svc.Links(ctx, grant, "rev1", "", revision.Window{After: first.Items[3].Key(), Limit: 100})
		if len(first.Items) != 4 || len(next.Items) != 8 || first.Count != 12 {
			t.Errorf("pages of %d and %d items, count %d", len(first.Items), len(next.Items), first.Count)
		}
		if next.Items[0].Key() <= first.Items[3].Key() {
			t.Errorf("second page starts at %q, not after %q", next.Items[0].Key(), first.Items[3].Key())
		}
	})
	t.Run("page links", func(t *testing.T) {
		l, err := svc.PageLinks(ctx, grant, "rev1", "pg-usage", revision.Window{})
		if err != nil {
			t.Fatal(err)
		}
		want := []item{{"in-app", "link", "pg-auth"}, {"in-app", "link", "pg-install"}}
		if diff := cmp.Diff(summary(l), want); diff != "" {
			t.Errorf("page links (-got +want):\n%s", diff)
		}
	})
}

func TestToDocument(t *testing.T) {
	t.Parallel()
	md := "# Title *em*\n\nText **bold** `code` ~~gone~~ [link](x.md) <https://a.test>  \nnext\n\n" +
		"![one](a.png) ![two](https://img.test/b.png)\n\n" +
		"- item ![inline](a.png)\n  - nested\n1. first\n2. second\n\n> quote\n>\n> ```\n> in quote\n> ```\n\n" +
		"```go\nfunc main() {}\n\n// end\n```\n\n---\n\n<div>html</div>\n\n#### Deep\n\n- ![only](a.png)\n"
	resolve := func(href string) revision.Target {
		switch href {
		case "x.md":
			return revision.Target{Status: "in-app", Kind: "page", Page: "p1"}
		case "a.png":
			return revision.Target{Status: "in-app", Kind: "file", File: "f1"}
		}
		return revision.Target{Status: "ok", Kind: "url", URL: href}
	}
	doc := revision.ToDocument(md, resolve)
	b := validate(t, "JSONDocument", doc)
	s := string(b)
	for _, want := range []string{
		`"type":"heading-1"`, `"id":"title-em"`, `{"object":"mark","type":"bold"}`, `{"object":"mark","type":"code"}`,
		`{"object":"mark","type":"strikethrough"}`, `"ref":{"kind":"page","page":"p1"}`, `"ref":{"kind":"url","url":"https://a.test"}`,
		`"type":"images"`, `"ref":{"file":"f1","kind":"file"}`, `"type":"inline-image"`, `"type":"list-unordered"`,
		`"type":"list-ordered"`, `"start":1`, `"type":"blockquote"`, `"syntax":"go"`, `"text":"// end"`, `"type":"divider"`,
		`"text":"\u003cdiv\u003ehtml\u003c/div\u003e"`, `"type":"heading-3"`, `"text":"\n"`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("document lacks %s:\n%s", want, s)
		}
	}
	if got := revision.ToDocument("", nil); len(got["nodes"].([]any)) != 0 {
		t.Errorf("empty markdown gives %v", got)
	}
}
