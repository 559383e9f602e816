// Package contenttest stands in for the content service over HTTP in the
// sites service's tests: the spaces it holds (GET /v1/spaces/{id} for a
// member of their organization, POST /internal/v1/spaces/access), and the
// reads published sites make for the sites service alone (content's
// readers' API, contentapi): a space's current revision (GET
// /internal/v1/spaces/{id}/current), its content (GET …/content), files
// (GET …/files/{revisionId}/{fileId}) and search (POST
// /internal/v1/orgs/{org}/search). Every call needs an internal token
// minted for content; the readers' API one of a service alone. (The real content service answers these in
// deployments/local's tests.)
package contenttest

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/contentclient"
)

// Content is the stand-in.
type Content struct {
	URL string

	mu     sync.Mutex
	spaces map[string]*space
	down   bool
	// Calls counts the calls by kind: "current", "content", "file", "search".
	calls map[string]int
	// onChange hears of every change as content.events would tell it.
	onChange func(view json.RawMessage, deleted bool)
}

// OnChange calls f with the space's view after each change (a space added,
// merged or deleted), as content's space.* events carry it: what the
// sites service's consumer feeds its projection. f must not call c.
func (c *Content) OnChange(f func(view json.RawMessage, deleted bool)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = f
}

// changed tells onChange about a space (called without c.mu held).
func (c *Content) changed(id string) {
	c.mu.Lock()
	f, sp := c.onChange, c.spaces[id]
	var view []byte
	var deleted bool
	if sp != nil {
		deleted = sp.deleted
		view, _ = json.Marshal(c.view(id, sp))
	}
	c.mu.Unlock()
	if f != nil && view != nil {
		f(view, deleted)
	}
}

// view is a space as content answers it: its updatedAt moves on each change.
func (c *Content) view(id string, sp *space) map[string]any {
	at := time.Date(2025, 1, 1, 0, 0, len(sp.revisions), 0, time.UTC)
	v := map[string]any{"object": "space", "id": id, "title": sp.title, "organization": sp.org,
		"revision": sp.current, "visibility": "private", "createdAt": "2025-01-01T00:00:00Z",
		"updatedAt": at, "editMode": "live"}
	if sp.gitbook != "" {
		v["gitbookSpaceId"] = sp.gitbook
	}
	if sp.deleted {
		at = at.Add(time.Hour)
		v["updatedAt"], v["deletedAt"] = at, at
	}
	return v
}

type space struct {
	org, title string
	gitbook    string // the GitBook space it was migrated from
	deleted    bool
	current    string
	revisions  map[string]contentclient.Revision
	files      map[string][]byte // revision/file id → bytes
}

// New starts the stand-in; it verifies tokens with secret.
func New(t testing.TB, secret string) *Content {
	t.Helper()
	verify, err := internaltoken.NewSigner(contentclient.Service, secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	c := &Content{spaces: map[string]*space{}, calls: map[string]int{}}
	srv := httptest.NewServer(c.handler(verify))
	t.Cleanup(srv.Close)
	c.URL = srv.URL
	return c
}

// AddSpace adds a space of org with a first revision of pages.
func (c *Content) AddSpace(id, org, title string, pages ...contentclient.Page) {
	c.mu.Lock()
	c.spaces[id] = &space{org: org, title: title, revisions: map[string]contentclient.Revision{}, files: map[string][]byte{}}
	c.merge(id, pages, nil)
	c.mu.Unlock()
	c.changed(id)
}

// SetGitBookSpace records the GitBook space id the space was migrated from.
func (c *Content) SetGitBookSpace(id, gitbook string) {
	c.mu.Lock()
	c.spaces[id].gitbook = gitbook
	c.mu.Unlock()
	c.changed(id)
}

// Merge makes a new revision of the space its current one and returns its id.
func (c *Content) Merge(id string, pages ...contentclient.Page) string {
	return c.MergeFiles(id, pages, nil)
}

// MergeFiles is Merge with files (id → name, type and bytes).
func (c *Content) MergeFiles(id string, pages []contentclient.Page, files map[string]File) string {
	c.mu.Lock()
	rev := c.merge(id, pages, files)
	c.mu.Unlock()
	c.changed(id)
	return rev
}

// MergeRedirects is Merge with redirects (a Git import's).
func (c *Content) MergeRedirects(id string, redirects []contentclient.Redirect, pages ...contentclient.Page) string {
	c.mu.Lock()
	rev := c.merge(id, pages, nil)
	r := c.spaces[id].revisions[rev]
	r.Redirects = redirects
	c.spaces[id].revisions[rev] = r
	c.mu.Unlock()
	c.changed(id)
	return rev
}

// File is a file of a revision.
type File struct {
	Name, ContentType string
	Bytes             []byte
	// Size is the size the revision says, len(Bytes) when 0.
	Size int64
}

func (c *Content) merge(id string, pages []contentclient.Page, files map[string]File) string {
	sp := c.spaces[id]
	rev := fmt.Sprintf("%s-r%d", id, len(sp.revisions)+1)
	r := contentclient.Revision{Space: id, Organization: sp.org, Revision: rev, Pages: pages, Files: []contentclient.File{}}
	for fid, f := range files {
		r.Files = append(r.Files, contentclient.File{ID: fid, Name: f.Name, ContentType: f.ContentType,
			Size: cmp.Or(f.Size, int64(len(f.Bytes))), SHA256: sum(f.Bytes)})
		sp.files[rev+"/"+fid] = f.Bytes
	}
	sp.revisions[rev] = r
	sp.current = rev
	return rev
}

// Delete marks a space deleted.
func (c *Content) Delete(id string) {
	c.mu.Lock()
	c.spaces[id].deleted = true
	c.mu.Unlock()
	c.changed(id)
}

// SetDown makes every call answer 503 (down) or not.
func (c *Content) SetDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

// Calls is how many calls of a kind were answered.
func (c *Content) Calls(kind string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[kind]
}

// Doc is a document page.
func Doc(id, title, slug, markdown string, children ...contentclient.Page) contentclient.Page {
	return contentclient.Page{ID: id, Kind: "document", Title: title, Slug: slug, Markdown: markdown, Pages: children}
}

func (c *Content) handler(verify *internaltoken.Signer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := verify.Verify(r.Header.Get(internaltoken.Header))
		if err != nil {
			reply(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "unauthorized"}})
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.down {
			reply(w, http.StatusServiceUnavailable, map[string]any{"error": map[string]any{"code": 503, "message": "down"}})
			return
		}
		path := r.URL.Path
		switch {
		case r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/spaces/"):
			c.space(w, p, strings.TrimPrefix(path, "/v1/spaces/"))
		case r.Method == http.MethodPost && path == "/internal/v1/spaces/access":
			c.access(w, r, p)
		case p.Service == "" || p.UserID != "":
			reply(w, http.StatusForbidden, map[string]any{"error": map[string]any{"code": 403, "message": "for services"}})
		case r.Method == http.MethodPost && strings.HasPrefix(path, "/internal/v1/orgs/") && strings.HasSuffix(path, "/search"):
			c.search(w, r, strings.TrimSuffix(strings.TrimPrefix(path, "/internal/v1/orgs/"), "/search"))
		case r.Method == http.MethodGet && strings.HasPrefix(path, "/internal/v1/spaces/"):
			c.read(w, r, strings.Split(strings.TrimPrefix(path, "/internal/v1/spaces/"), "/"))
		default:
			reply(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "no route"}})
		}
	})
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

var notFound = map[string]any{"error": map[string]any{"code": 404, "message": "space not found"}}

func (c *Content) space(w http.ResponseWriter, p internaltoken.Principal, id string) {
	sp, ok := c.spaces[id]
	if !ok || p.Role(sp.org) == "" {
		reply(w, http.StatusNotFound, notFound)
		return
	}
	reply(w, http.StatusOK, c.view(id, sp))
}

func (c *Content) access(w http.ResponseWriter, r *http.Request, p internaltoken.Principal) {
	var q struct {
		Spaces []string `json:"spaces"`
	}
	_ = json.NewDecoder(r.Body).Decode(&q)
	out := map[string]any{}
	for _, id := range q.Spaces {
		out[id] = nil
		if sp, ok := c.spaces[id]; ok && p.Role(sp.org) != "" {
			out[id] = map[string]any{"organization": sp.org, "level": p.Role(sp.org), "deleted": sp.deleted}
		}
	}
	reply(w, http.StatusOK, map[string]any{"spaces": out})
}

func (c *Content) read(w http.ResponseWriter, r *http.Request, parts []string) {
	sp, ok := c.spaces[parts[0]]
	if !ok || len(parts) < 2 {
		reply(w, http.StatusNotFound, notFound)
		return
	}
	switch {
	case parts[1] == "current" && len(parts) == 2:
		c.calls["current"]++
		reply(w, http.StatusOK, contentclient.Current{Space: parts[0], Organization: sp.org, Revision: sp.current, Deleted: sp.deleted})
	case sp.deleted:
		reply(w, http.StatusConflict, map[string]any{"error": map[string]any{"code": 409, "message": "deleted"}})
	case parts[1] == "content" && len(parts) == 2:
		c.calls["content"]++
		reply(w, http.StatusOK, sp.revisions[sp.current])
	case parts[1] == "files" && len(parts) == 4:
		c.calls["file"]++
		b, ok := sp.files[parts[2]+"/"+parts[3]]
		if !ok {
			reply(w, http.StatusNotFound, map[string]any{"error": map[string]any{"code": 404, "message": "file not found"}})
			return
		}
		// As content serves them: ETag, If-None-Match, Range.
		w.Header().Set("Content-Type", "application/octet-stream")
		httpx.ServeFile(w, r, sum(b), bytes.NewReader(b))
	default:
		reply(w, http.StatusNotFound, notFound)
	}
}

// search finds the query in the markdown of the asked spaces of org.
func (c *Content) search(w http.ResponseWriter, r *http.Request, org string) {
	c.calls["search"]++
	var q struct {
		Spaces []string `json:"spaces"`
		Query  string   `json:"query"`
	}
	_ = json.NewDecoder(r.Body).Decode(&q)
	items := []any{}
	for _, id := range q.Spaces {
		sp, ok := c.spaces[id]
		if !ok || sp.org != org {
			continue
		}
		var pages []any
		var walk func(ps []contentclient.Page, prefix string)
		walk = func(ps []contentclient.Page, prefix string) {
			for _, pg := range ps {
				path := strings.TrimPrefix(prefix+"/"+pg.Slug, "/")
				if strings.Contains(strings.ToLower(pg.Markdown), strings.ToLower(q.Query)) {
					pages = append(pages, map[string]any{"id": pg.ID, "title": pg.Title, "path": path,
						"sections": []any{map[string]any{"title": pg.Title, "path": path, "body": pg.Markdown}}})
				}
				walk(pg.Pages, path)
			}
		}
		walk(sp.revisions[sp.current].Pages, "")
		if len(pages) > 0 {
			items = append(items, map[string]any{"type": "space", "id": id, "title": sp.title, "pages": pages})
		}
	}
	reply(w, http.StatusOK, map[string]any{"items": items, "count": len(items)})
}

// sum is the hex SHA-256 of b: a file's ETag, as content's.
func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
