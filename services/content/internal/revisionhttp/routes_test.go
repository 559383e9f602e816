package revisionhttp_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"github.com/docspub/platform/libs/blob/blobtest"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionhttp"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const (
	org   = "org1"
	space = "sp1"
	rev   = "rev1"   // the space's current revision
	crRev = "rev-cr" // the change request's revision
	cr    = "/v1/spaces/" + space + "/change-requests/cr1"
	sp    = "/v1/spaces/" + space
)

// gate stands in for the space service: fixed grants per user on one
// space, answering 404 for a space the caller cannot see.
type gate map[string]access.Grant

func (g gate) Enter(_ context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error) {
	gr, ok := g[c.UserID]
	if !ok || gr.Space != spaceID || !gr.Can(access.View) {
		return access.Grant{}, apierr.NotFound("space not found")
	}
	if !gr.Can(a) {
		return access.Grant{}, apierr.Forbidden("your access to this space does not allow you to %s", a)
	}
	return gr, nil
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: map[string]string{org: "read"}}
}

var logo = bytes.Repeat([]byte{0x89, 'P', 'N', 'G'}, 1000)

type env struct {
	api     *apitest.Client
	handler http.Handler
	signer  *internaltoken.Signer
}

// newEnv serves the routes over the real store on a fresh database:
// space sp1 at rev1, its change request cr1 at rev-cr, and rev-x of
// another space.
func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvOn(t, blobtest.Dir(t), false)
}

// newEnvOn is newEnv with its blob store at blobURL, downloads redirected
// to presigned URLs when redirect is set.
func newEnvOn(t *testing.T, blobURL string, redirect bool) *env {
	t.Helper()
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, revisionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	store := revisionmongo.NewStore(db, blobtest.Open(t, blobURL))
	blob, size, err := store.PutBlob(ctx, revision.Owner{Space: "sp1", Organization: "org1"}, "logo.png", "image/png", bytes.NewReader(logo))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	doc := func(id, title, slug, md string, children ...revision.Page) revision.Page {
		return revision.Page{ID: id, Kind: revision.KindDocument, Title: title, Slug: slug, Markdown: md, Pages: children, CreatedAt: t0, UpdatedAt: t0}
	}
	base := revision.Revision{
		ID: rev, Space: space, Organization: org, Type: revision.TypeEdits, Parents: []string{}, CreatedAt: t0,
		Pages: []revision.Page{
			{ID: "pg-guide", Kind: revision.KindGroup, Title: "Guide", Slug: "guide", Pages: []revision.Page{
				doc("pg-install", "Install", "install", "# Install\n\nSee [usage](usage.md) and [gone](gone.md).\n\n![logo](../.gitbook/assets/logo.png)\n"),
				doc("pg-usage", "Usage", "usage", "Read <https://go.dev> and [install](install.md).\n"),
			}},
		},
		Files: []revision.File{
			{ID: "f-logo", Name: "logo.png", ContentType: "image/png", Size: size, Blob: blob, Width: 8, Height: 8},
			{ID: "f-notes", Name: "notes.txt", ContentType: "text/plain", Size: 0, Blob: "000000000000000000000000"},
		},
	}
	crr := revision.Build(base, revision.TypeEdits, append(base.Pages, doc("pg-new", "New", "new", "Link to [missing](nope.md)")), base.Files, t0)
	crr.ID = crRev
	other := base
	other.ID, other.Space = "rev-x", "sp2"
	for _, r := range []revision.Revision{base, crr, other} {
		if err := store.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	svc := revision.New(store, links.New("http://gw.test", "http://app.test"), nil)
	g := gate{
		"rex": {Organization: org, Space: space, Revision: rev, Level: roles.Read, User: "rex"},
		"oz":  {Organization: org, Space: "sp9", Revision: "r9", Level: roles.Read, User: "oz"},
	}
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "content")
	v1 := e.Group("/v1", internaltoken.Require(signer))
	var rd revisionhttp.Redirect
	if redirect {
		rd = func(ctx context.Context, key, ct, disposition string) (string, error) {
			return store.BlobURL(ctx, key, time.Minute, ct, disposition)
		}
	}
	revisionhttp.RegisterSpace(v1, svc, g, rd)
	revisionhttp.Routes(v1.Group("/spaces/:spaceId/change-requests/:changeRequestId"), svc, g,
		func(c *gin.Context, _ access.Grant) (string, error) {
			if c.Param("changeRequestId") != "cr1" {
				return "", apierr.NotFound("change request not found")
			}
			return crRev, nil
		})
	return &env{api: apitest.New(t, e, signer), handler: e, signer: signer}
}

// get answers a GET as rex that must succeed; op, when set, names the
// contract operation the body must match.
func (e *env) get(t *testing.T, path, op string) []byte {
	t.Helper()
	return e.api.Expect(t, as("rex"), "GET", path, "", http.StatusOK, op).Body
}

func TestChangeRequestContent(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, path, op string
		contains       []string
	}{
		{"revision", cr + "/content", "getRevisionOfChangeRequestById", []string{`"id":"rev-cr"`, `"parents":["rev1"]`, `"object":"revision"`}},
		{"revision with flags", cr + "/content?metadata=false&computed=false", "getRevisionOfChangeRequestById", []string{`"id":"rev-cr"`}},
		{"pages", cr + "/content/pages", "listPagesInChangeRequest", []string{`"id":"pg-new"`, `"path":"guide/install"`, `"kind":"group"`}},
		{"page as markdown", cr + "/content/page/pg-install", "getPageInChangeRequestById", []string{`"markdown":"# Install`, `"kind":"sheet"`, `"app":"http://app.test/s/sp1/~/revisions/rev-cr/guide/install"`}},
		{"page as document", cr + "/content/page/pg-install?format=document", "getPageInChangeRequestById", []string{`"document":{`, `"type":"heading-1"`, `"ref":{"kind":"page","page":"pg-usage"}`, `"ref":{"file":"f-logo","kind":"file"}`}},
		{"group page", cr + "/content/page/pg-guide", "getPageInChangeRequestById", []string{`"type":"group"`}},
		{"files", cr + "/content/files", "listFilesInChangeRequestById", []string{`"count":2`, `"downloadURL":"http://gw.test/v1/spaces/sp1/revisions/rev-cr/files/f-logo/download"`}},
		{"file", cr + "/content/files/f-logo", "getFileInChangeRequestById", []string{`"dimensions":{"width":8,"height":8}`, `"contentType":"image/png"`}},
		// Not in the public GitBook API (x-docspub-extension): api.md's shapes.
		{"page links", cr + "/content/page/pg-new/links", "listPageLinksInChangeRequest", []string{`"status":"broken"`, `"stats":{"total":1,"ok":0,"inApp":0,"broken":{"total":1,"changeRequest":0}}`}},
		{"backlinks", cr + "/content/files/f-logo/backlinks", "listFileBacklinksInChangeRequest", []string{`"count":1`, `"page":"pg-install"`, `"file":"f-logo"`, `"versionContext":{"type":"revision","revision":"rev-cr"}`}},
	}
	// The API document has no page by path on a change request (the
	// gateway routes none), so the service has none either.
	e.api.Expect(t, as("rex"), "GET", cr+"/content/path/new", "", http.StatusNotFound, "")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := string(e.get(t, tc.path, tc.op))
			for _, want := range tc.contains {
				if !strings.Contains(b, want) {
					t.Errorf("GET %s lacks %s:\n%s", tc.path, want, b)
				}
			}
		})
	}
}

func TestSpaceContent(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name, path, schema string
		contains           []string
	}{
		{"revision", sp + "/content", "Revision", []string{`"id":"rev1"`, `"type":"edits"`}},
		{"revision by id", sp + "/revisions/rev-cr", "Revision", []string{`"id":"rev-cr"`}},
		{"page", sp + "/content/page/pg-usage", "RevisionPage", []string{`"app":"http://app.test/s/sp1/guide/usage"`}},
		{"page by path", sp + "/content/path/guide/install?format=document", "RevisionPage", []string{`"id":"pg-install"`, `"document":`}},
		{"file", sp + "/content/files/f-notes", "RevisionFile", []string{`"size":0`}},
		{"links", sp + "/links", "ContentLinkListing", []string{`"count":5`, `"stats":{"total":5,"ok":1,"inApp":3,"broken":{"total":1,"changeRequest":0}}`}},
		{"broken links", sp + "/links?status=broken", "ContentLinkListing", []string{`"count":1`, `"url":"gone.md"`, `"locationReferences":[{"kind":"page","organization":"org1","space":"sp1","versionContext":{"type":"revision","revision":"rev1"},"page":"pg-install"}]`}},
		{"ok links", sp + "/links?status=ok", "ContentLinkListing", []string{`"count":1`, `"url":"https://go.dev"`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := e.get(t, tc.path, "")
			if tc.schema != "" {
				contracttest.Validate(t, tc.schema, b)
			}
			for _, want := range tc.contains {
				if !strings.Contains(string(b), want) {
					t.Errorf("GET %s lacks %s:\n%s", tc.path, want, b)
				}
			}
		})
	}
}

// Lists page with opaque cursors until next is absent.
func TestPaging(t *testing.T) {
	e := newEnv(t)
	type page struct {
		Next  *struct{ Page string } `json:"next"`
		Count int                    `json:"count"`
		Items []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		} `json:"items"`
	}
	tests := []struct {
		name, path, op string
		want           []string
	}{
		{"files", cr + "/content/files", "listFilesInChangeRequestById", []string{"f-logo", "f-notes"}},
		{"links", sp + "/links", "", []string{"in-app", "in-app", "in-app", "broken", "ok"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			path := tc.path + "?limit=1"
			for range 10 {
				p := apitest.Decode[page](t, e.get(t, path, tc.op))
				if p.Count != len(tc.want) || len(p.Items) != 1 {
					t.Fatalf("GET %s: count %d, %d items", path, p.Count, len(p.Items))
				}
				got = append(got, p.Items[0].ID+p.Items[0].Status)
				if p.Next == nil {
					break
				}
				path = tc.path + "?limit=1&page=" + url.QueryEscape(p.Next.Page)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("paged through (-got +want):\n%s", diff)
			}
		})
	}
}

func TestDownload(t *testing.T) {
	e := newEnv(t)
	r := e.api.Expect(t, as("rex"), "GET", sp+"/revisions/rev1/files/f-logo/download", "", http.StatusOK, "")
	if !bytes.Equal(r.Body, logo) {
		t.Errorf("downloaded %d bytes that differ from the %d stored", len(r.Body), len(logo))
	}
	want := map[string]string{
		"Content-Type":           "image/png",
		"Content-Length":         strconv.Itoa(len(logo)),
		"Content-Disposition":    `inline; filename=logo.png`,
		"X-Content-Type-Options": "nosniff",
	}
	for k, v := range want {
		if got := r.Header.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
}

// download sends a GET of the logo as rex with extra headers.
func (e *env) download(t *testing.T, headers ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := apitest.NewRequest("GET", sp+"/revisions/rev1/files/f-logo/download", "")
	tok, err := e.signer.Mint(e.signer.Service(), as("rex"))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	w := httptest.NewRecorder()
	e.handler.ServeHTTP(w, req)
	return w
}

// A file is served like a static file: a strong ETag (its SHA-256),
// revalidated with a 304 and no body, a Range answered with 206, cached
// as immutable (privately: the API needs a token).
func TestDownloadLikeAStaticFile(t *testing.T) {
	for _, backend := range []string{"file", "s3"} {
		t.Run(backend, func(t *testing.T) {
			url := blobtest.Dir(t)
			if backend == "s3" {
				url = blobtest.S3(t)
			}
			e := newEnvOn(t, url, false)
			first := e.download(t)
			sum := sha256.Sum256(logo)
			etag := `"` + hex.EncodeToString(sum[:]) + `"`
			if first.Code != http.StatusOK || first.Header().Get("ETag") != etag || !bytes.Equal(first.Body.Bytes(), logo) {
				t.Fatalf("first download = %d, ETag %q, %d bytes; want 200, %s, the logo", first.Code, first.Header().Get("ETag"), first.Body.Len(), etag)
			}
			if got, want := first.Header().Get("Cache-Control"), "private, max-age=31536000, immutable"; got != want {
				t.Errorf("Cache-Control = %q, want %q", got, want)
			}
			again := e.download(t, "If-None-Match", etag)
			if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
				t.Errorf("revalidation = %d with %d bytes, want 304 and none", again.Code, again.Body.Len())
			}
			part := e.download(t, "Range", "bytes=4-11")
			if part.Code != http.StatusPartialContent || !bytes.Equal(part.Body.Bytes(), logo[4:12]) {
				t.Errorf("Range = %d %q, want 206 %q", part.Code, part.Body.Bytes(), logo[4:12])
			}
			if got, want := part.Header().Get("Content-Range"), "bytes 4-11/"+strconv.Itoa(len(logo)); got != want {
				t.Errorf("Content-Range = %q, want %q", got, want)
			}
			stale := e.download(t, "If-None-Match", `"other"`)
			if stale.Code != http.StatusOK || stale.Body.Len() != len(logo) {
				t.Errorf("another ETag = %d with %d bytes, want 200 and the logo", stale.Code, stale.Body.Len())
			}
		})
	}
}

// With BLOB_REDIRECT on S3, a download is a redirect to a presigned URL
// that serves the bytes.
func TestDownloadRedirect(t *testing.T) {
	e := newEnvOn(t, blobtest.S3(t), true)
	w := e.download(t)
	loc := w.Header().Get("Location")
	if w.Code != http.StatusFound || loc == "" {
		t.Fatalf("download = %d to %q, want a 302", w.Code, loc)
	}
	res, err := http.Get(loc)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, logo) || res.Header.Get("Content-Type") != "image/png" {
		t.Errorf("presigned URL = %d %s, %d bytes", res.StatusCode, res.Header.Get("Content-Type"), len(body))
	}
}

func TestErrors(t *testing.T) {
	e := newEnv(t)
	e.api.Run(t, as, []apitest.Row{
		{Name: "space the caller cannot see", User: "oz", Method: "GET", Path: sp + "/content", Want: 404, Field: "space not found"},
		{Name: "unknown change request", User: "rex", Method: "GET", Path: "/v1/spaces/sp1/change-requests/cr9/content", Want: 404, Field: "change request not found"},
		{Name: "missing page", User: "rex", Method: "GET", Path: cr + "/content/page/nope", Want: 404, Field: "page not found"},
		{Name: "missing path", User: "rex", Method: "GET", Path: sp + "/content/path/guide/nope", Want: 404, Field: "page not found"},
		{Name: "page of the change request only", User: "rex", Method: "GET", Path: sp + "/content/page/pg-new", Want: 404, Field: "page not found"},
		{Name: "bad format", User: "rex", Method: "GET", Path: cr + "/content/page/pg-install?format=html", Want: 400, Field: "format"},
		{Name: "bad metadata flag", User: "rex", Method: "GET", Path: cr + "/content?metadata=maybe", Want: 400, Field: "metadata"},
		{Name: "missing file", User: "rex", Method: "GET", Path: cr + "/content/files/nope", Want: 404, Field: "file not found"},
		{Name: "backlinks of missing file", User: "rex", Method: "GET", Path: cr + "/content/files/nope/backlinks", Want: 404, Field: "file not found"},
		{Name: "links of missing page", User: "rex", Method: "GET", Path: cr + "/content/page/nope/links", Want: 404, Field: "page not found"},
		{Name: "bad status filter", User: "rex", Method: "GET", Path: sp + "/links?status=dead", Want: 400, Field: "status"},
		{Name: "bad limit", User: "rex", Method: "GET", Path: cr + "/content/files?limit=5000", Want: 400, Field: "limit"},
		{Name: "bad cursor", User: "rex", Method: "GET", Path: cr + "/content/files?page=zzz", Want: 400, Field: "page"},
		{Name: "revision of another space", User: "rex", Method: "GET", Path: sp + "/revisions/rev-x", Want: 404, Field: "revision not found"},
		{Name: "missing revision", User: "rex", Method: "GET", Path: sp + "/revisions/nope", Want: 404, Field: "revision not found"},
		{Name: "download from another space's revision", User: "rex", Method: "GET", Path: sp + "/revisions/rev-x/files/f-logo/download", Want: 404, Field: "revision not found"},
		{Name: "download of a missing file", User: "rex", Method: "GET", Path: sp + "/revisions/rev1/files/nope/download", Want: 404, Field: "file not found"},
		{Name: "download of a file without bytes", User: "rex", Method: "GET", Path: sp + "/revisions/rev1/files/f-notes/download", Want: 404, Field: "file not found"},
	})
	t.Run("no token", func(t *testing.T) {
		if r := e.api.Anonymous("GET", sp+"/content", ""); r.Status != http.StatusUnauthorized {
			t.Errorf("anonymous: %d %s", r.Status, r.Body)
		}
	})
}
