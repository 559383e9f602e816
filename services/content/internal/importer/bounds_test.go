package importer_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/content/internal/contenttest"
	"github.com/docspub/platform/services/content/internal/importer"
	"github.com/docspub/platform/services/content/internal/limits"
)

// serve answers pages by path; a handler may replace a page.
func serve(t *testing.T, pages map[string]string, handlers map[string]http.HandlerFunc) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	s := contenttest.NewSite(t, pages, nil, handlers)
	return s.Server, &s.Requests
}

var client = urlguard.Guard{AllowPrivate: true}.Client(10 * time.Second)

func TestNestedQuotesConvertBounded(t *testing.T) {
	srv, _ := serve(t, map[string]string{"/": contenttest.NestedQuotes()}, nil)
	t0 := time.Now()
	res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner})
	took := time.Since(t0)
	if err != nil {
		t.Fatal(err)
	}
	md := res.Pages[0].Markdown
	t.Logf("56 KB of nested quotes: %d bytes of markdown in %s", len(md), took)
	// Each line carries at most HTMLQuoteDepth quote markers: the markdown
	// stays within a few times the page.
	if len(md) > 16*len(contenttest.NestedQuotes()) {
		t.Errorf("%d bytes of markdown from a %d-byte page", len(md), len(contenttest.NestedQuotes()))
	}
	for _, line := range strings.Split(md, "\n") {
		if n := strings.Count(line, ">"); n > limits.HTMLQuoteDepth {
			t.Fatalf("a line nests %d quotes, at most %d: %q", n, limits.HTMLQuoteDepth, line[:min(len(line), 80)])
		}
	}
	if n := strings.Count(md, "x"); n != 8800 {
		t.Errorf("%d of the 8800 lines kept", n)
	}
}

func TestWebsiteBounds(t *testing.T) {
	big := "<html><body><main>" + strings.Repeat("<p>"+strings.Repeat("word ", 200)+"</p>\n", limits.PageMarkdown/1000+10) + "</main></body></html>"
	small := func(title, text string) string {
		return "<html><head><title>" + title + "</title></head><body><p>" + text + "</p></body></html>"
	}
	tests := []struct {
		name     string
		pages    map[string]string
		opts     importer.Options
		wantErr  int      // status, 0 for none
		want     []string // imported paths
		wantText map[string]string
		total    int
	}{
		{name: "a page over PageMarkdown is skipped", pages: map[string]string{
			"/":    "<html><body><a href=\"/big\">big</a> <a href=\"/ok\">ok</a></body></html>",
			"/big": big, "/ok": small("Ok", "fine"),
		}, want: []string{"home", "ok"}, total: 3},
		{name: "a start page over PageMarkdown alone is a 413", pages: map[string]string{"/": big}, wantErr: 413},
		{name: "the import's markdown budget stops the crawl", pages: map[string]string{
			"/":  "<html><body><p>" + strings.Repeat("a", 600) + "</p><a href=\"/b\">b</a> <a href=\"/c\">c</a></body></html>",
			"/b": small("B", strings.Repeat("b", 600)), "/c": small("C", "c"),
		}, opts: importer.Options{MaxMarkdown: 1000}, want: []string{"home"}, total: 3},
		{name: "titles are cleaned and cut", pages: map[string]string{
			"/": small("Bad\x00\u202Etitle\n\t with\u200Bspaces "+strings.Repeat("é", 300), "x"),
		}, wantText: map[string]string{"home": "Bad" + "title with" + "spaces " + strings.Repeat("é", limits.PageTitle-len("Badtitle withspaces "))}, want: []string{"home"}, total: 1},
		{name: "deep URL paths are cut to ImportPathDepth levels", pages: map[string]string{
			"/":                        `<html><body><a href="/a/b/c/d/e/f/g/h/i/j/k/l">deep</a></body></html>`,
			"/a/b/c/d/e/f/g/h/i/j/k/l": small("Deep", "deep"),
		}, want: []string{"home", "a/b/c/d/e/f/g/h/i/j-k-l"}, total: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _ := serve(t, tc.pages, nil)
			opts := tc.opts
			opts.Owner = owner
			res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", opts)
			if tc.wantErr != 0 {
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Status != tc.wantErr {
					t.Fatalf("err %v, want %d", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range res.Pages {
				got = append(got, p.Path)
				if w, ok := tc.wantText[p.Path]; ok && p.Title != w {
					t.Errorf("title of %s = %q, want %q", p.Path, p.Title, w)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || res.Total != tc.total {
				t.Errorf("imported %v of %d, want %v of %d", got, res.Total, tc.want, tc.total)
			}
		})
	}
}

func TestWebsiteReadsAtMostPageHTML(t *testing.T) {
	// An endless page: the crawl reads PageHTML bytes of it and goes on.
	srv, _ := serve(t, nil, map[string]http.HandlerFunc{"/": func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		_, _ = io.WriteString(w, "<html><body><p>")
		chunk := strings.Repeat("<b></b>x", 1024) // 8 bytes of HTML, 1 of markdown
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}})
	res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Pages[0].Markdown); n > limits.PageHTML/8+100 {
		t.Errorf("%d bytes of markdown: more than the first %d bytes of the page were read", n, limits.PageHTML)
	}
}

func TestWebsiteFetchesBounded(t *testing.T) {
	// A start page linking 500 missing pages: the crawl asks for at most ImportFetches.
	var links strings.Builder
	for i := range 500 {
		fmt.Fprintf(&links, `<a href="/missing/%d">%d</a> `, i, i)
	}
	srv, requests := serve(t, map[string]string{"/": "<html><body>" + links.String() + "</body></html>"}, nil)
	res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	if n := requests.Load(); n > limits.ImportFetches {
		t.Errorf("%d requests, at most %d", n, limits.ImportFetches)
	}
	if res.Imported != 1 || res.Total != 501 {
		t.Errorf("imported %d of %d, want 1 of 501", res.Imported, res.Total)
	}
}

func TestWebsiteTimeAndCancellation(t *testing.T) {
	// The second page never answers on its own.
	slow := func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
	pages := map[string]string{"/": `<html><body><p>start</p><a href="/slow">slow</a></body></html>`}

	t.Run("out of time the crawl imports what it fetched", func(t *testing.T) {
		srv, _ := serve(t, pages, map[string]http.HandlerFunc{"/slow": slow})
		res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner, Time: 300 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		if res.Imported != 1 || res.Total != 2 {
			t.Errorf("imported %d of %d, want 1 of 2", res.Imported, res.Total)
		}
	})
	t.Run("a cancelled request stops the crawl", func(t *testing.T) {
		fetching := make(chan struct{})
		srv, _ := serve(t, pages, map[string]http.HandlerFunc{"/slow": func(w http.ResponseWriter, r *http.Request) {
			close(fetching)
			slow(w, r)
		}})
		ctx, cancel := context.WithCancel(context.Background())
		errc := make(chan error, 1)
		go func() {
			_, err := importer.Website(ctx, client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner})
			errc <- err
		}()
		<-fetching
		cancel()
		contenttest.Stops(t, "the crawl", errc)
	})
}

func TestWebsiteImages(t *testing.T) {
	logo := pngBytes(t)
	huge := make([]byte, limits.FileBytes+1)
	copy(huge, logo)
	srv, _ := serve(t, map[string]string{
		"/": `<html><body><img src="/img/a%00%E2%80%AEb.png"><img src="/img/huge.png"></body></html>`,
	}, map[string]http.HandlerFunc{
		"/img/a\x00\u202Eb.png": func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(logo) },
		"/img/huge.png":         func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(huge) },
	})
	res, err := importer.Website(context.Background(), client, newBlobs(t), srv.URL+"/", importer.Options{Owner: owner})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 {
		t.Fatalf("files %+v, want only the small image (the other is over FileBytes)", res.Files)
	}
	if f := res.Files[0]; f.Name != "ab.png" || f.Width != 4 || f.Height != 4 {
		t.Errorf("file %+v: want the name cleaned and the dimensions read", f)
	}
	if !strings.Contains(res.Pages[0].Markdown, "/img/huge.png") {
		t.Errorf("the huge image is not left as a link:\n%s", res.Pages[0].Markdown)
	}
}
