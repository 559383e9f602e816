package importer_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/docspub/platform/libs/blob/blobtest"
	"image"
	"image/color"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/importer"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var owner = revision.Owner{Space: "sp1", Organization: "org1"}

// newBlobs returns a revision store on a fresh database: the blob store
// imports write to.
func newBlobs(t *testing.T) *revisionmongo.Store {
	t.Helper()
	return revisionmongo.NewStore(mongotest.Database(t), blobtest.Open(t, blobtest.Dir(t)))
}

// blob reads a stored blob back.
func blob(t *testing.T, s *revisionmongo.Store, id string) []byte {
	t.Helper()
	rc, err := s.OpenBlob(context.Background(), id, -1)
	if err != nil {
		t.Fatalf("open blob %s: %v", id, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	img.Set(1, 1, color.RGBA{R: 255, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// site serves three pages that link each other, an image, an external link
// and a page three links away from the start.
func site(t *testing.T) *httptest.Server {
	t.Helper()
	logo := pngBytes(t)
	pages := map[string]string{
		"/": `<html><head><title>Acme Docs</title><script>var x</script></head><body>
			<nav><a href="/docs/guide">Guide</a></nav>
			<main><h1>Welcome</h1><p>Start with the <a href="/docs/guide">guide</a> or read <a href="about.html">about us</a>.</p>
			<img src="/img/logo.png" alt="logo"><p><a href="https://example.com/elsewhere">External</a></p></main></body></html>`,
		"/docs/guide": `<html><head><title>Guide</title></head><body><h1>Guide</h1>
			<p>Go <a href="/">home</a>. Deeper: <a href="/docs/deep/one">one</a>.</p><img src="/img/logo.png"></body></html>`,
		"/about.html":    `<html><body><h1>About</h1><ul><li>We make docs.</li></ul><p><a href="/docs/guide">Guide</a></p></body></html>`,
		"/docs/deep/one": `<html><head><title>One</title></head><body><p>Level two. <a href="/docs/deep/two">two</a></p></body></html>`,
		"/docs/deep/two": `<html><head><title>Two</title></head><body><p>Too deep.</p></body></html>`,
	}
	return contenttest.NewSite(t, pages, map[string][]byte{"/img/logo.png": logo}, nil).Server
}

func TestWebsite(t *testing.T) {
	srv := site(t)
	store := newBlobs(t)
	client := urlguard.Guard{AllowPrivate: true}.Client(10 * time.Second)
	res, err := importer.Website(context.Background(), client, store, srv.URL+"/", importer.Options{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	byPath := map[string]importer.Imported{}
	for _, p := range res.Pages {
		paths = append(paths, p.Path+"|"+p.Title)
		byPath[p.Path] = p
	}
	want := []string{"home|Acme Docs", "docs/guide|Guide", "about|About", "docs/deep/one|One"}
	if diff := cmp.Diff(paths, want); diff != "" {
		t.Fatalf("pages (-got +want):\n%s", diff)
	}
	if res.Imported != 4 || res.Total != 5 {
		t.Errorf("imported %d of %d, want 4 of 5 (two is past MaxDepth)", res.Imported, res.Total)
	}
	if len(res.Files) != 1 {
		t.Fatalf("files %+v, want the logo once", res.Files)
	}
	f := res.Files[0]
	if f.ContentType != "image/png" || f.Name != "logo.png" || f.Size == 0 || len(blob(t, store, f.Blob)) != int(f.Size) ||
		f.Width != 4 || f.Height != 4 {
		t.Errorf("file %+v", f)
	}
	home := byPath["home"].Markdown
	for _, s := range []string{"# Welcome", "](files/" + f.ID + ")", "(https://example.com/elsewhere)", "[guide](docs/guide)", "[about us](about)"} {
		if !strings.Contains(home, s) {
			t.Errorf("home markdown lacks %q:\n%s", s, home)
		}
	}
	if strings.Contains(home, "var x") || strings.Contains(home, "<nav") {
		t.Errorf("home markdown has script or nav:\n%s", home)
	}
	if g := byPath["docs/guide"].Markdown; !strings.Contains(g, "[home](../home)") || !strings.Contains(g, "](files/"+f.ID+")") {
		t.Errorf("guide markdown:\n%s", g)
	}
}

func TestWebsiteMaxPages(t *testing.T) {
	srv := site(t)
	client := urlguard.Guard{AllowPrivate: true}.Client(10 * time.Second)
	res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL, importer.Options{MaxPages: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Pages) != 2 {
		t.Fatalf("%d pages, want 2", len(res.Pages))
	}
}

func TestWebsiteRefuses(t *testing.T) {
	srv := site(t)
	ctx := context.Background()
	tests := []struct {
		name   string
		client *http.Client
		url    string
	}{
		{"the default guard refuses loopback", urlguard.Guard{}.Client(5 * time.Second), srv.URL + "/"},
		{"not http", urlguard.Guard{AllowPrivate: true}.Client(5 * time.Second), "ftp://example.com/"},
		{"relative", urlguard.Guard{AllowPrivate: true}.Client(5 * time.Second), "/docs"},
		{"missing start page", urlguard.Guard{AllowPrivate: true}.Client(5 * time.Second), srv.URL + "/nope"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := importer.Website(ctx, tc.client, newBlobs(t), tc.url, importer.Options{})
			var ae *apierr.Error
			if !errors.As(err, &ae) || ae.Status != http.StatusBadRequest || ae.Field != "url" {
				t.Fatalf("err %v, want a 400 naming url", err)
			}
		})
	}
}

func TestApply(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	base := []revision.Page{{ID: "keep", Kind: revision.KindDocument, Title: "Old home", Slug: "home", Markdown: "old\n"}}
	res := importer.Result{Pages: []importer.Imported{
		{Path: "home", Title: "Home", Markdown: "new\n"},
		{Path: "docs/guide", Title: "Guide", Markdown: "guide\n"},
		{Path: "docs/deep/one", Title: "One", Markdown: "one\n"},
	}}
	once := importer.Apply(base, res, now)
	twice := importer.Apply(once, res, now.Add(time.Hour))
	if diff := cmp.Diff(twice, once); diff != "" {
		t.Fatalf("second import changed the tree (-got +want):\n%s", diff)
	}
	if base[0].Markdown != "old\n" {
		t.Fatal("Apply modified base")
	}
	var got []string
	for _, f := range revision.Flatten(once) {
		got = append(got, f.Path+"|"+f.Page.Kind+"|"+f.Page.Title)
	}
	want := []string{"home|document|Home", "docs|group|Docs", "docs/guide|document|Guide", "docs/deep|document|Deep", "docs/deep/one|document|One"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Fatalf("tree (-got +want):\n%s", diff)
	}
	if once[0].ID != "keep" || once[0].UpdatedAt != now {
		t.Errorf("home page %+v: want id kept and updated", once[0])
	}
}
