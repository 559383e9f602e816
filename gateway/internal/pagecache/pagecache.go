// Package pagecache is the gateway's cache of published sites' public
// answers: what sites built from nothing of the reader's and answers every
// reader the same way (readerapi.ImpersonalHeader and TagsHeader,
// Cache-Control public) is kept for a short time (TTL) and answered by the gateway itself, with no hop to sites.
//
// What it may serve is decided before it is kept: only a GET or HEAD
// without a query, a Range or a cookie other than insights' (on any of
// its Cookie lines) is looked up (a share key, a visitor's token or claims
// always reach sites), and only a 200 sites marks impersonal
// (readerapi.ImpersonalHeader: built from no cookie, claim, share key or
// token) whose headers say it is public, set no cookie and vary by
// nothing but Accept-Encoding is kept, under its host, path and encoding,
// without the claims of its read. A write
// through the gateway purges the answers tagged with what it changed (its
// organization or space) before the writer has its answer, so a site made
// restricted is never served from here once the change is acknowledged; a
// fill that started before a purge is not kept. Changes that do not pass
// through this gateway (events, Git sync, another replica) show when the
// answer's TTL ends.
package pagecache

import (
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/sizedcache"
)

// Entry is an answer kept: its status, headers (without cookies, Date or
// internal headers) and body, the read it records, and its tags.
type Entry struct {
	Status int
	Header http.Header
	Body   []byte
	// View is the read each answer of it records (nil: none).
	View *readerapi.View
	tags []string
	at   time.Time
}

// Key names an answer: host, path and whether it is gzipped.
type Key struct {
	host, path string
	gzip       bool
}

// Cache keeps answers; it is safe for concurrent use.
type Cache struct {
	entries  *sizedcache.Cache[Key, *Entry]
	ttl      time.Duration
	maxEntry int64
	// purges counts purges: a fill that saw another count when it started
	// is not kept.
	purges atomic.Int64
	now    func() time.Time
}

// maxEntries bounds the answers kept, and so the work of a purge, which
// looks at each (a write through the gateway purges).
const maxEntries = 10_000

// New returns a cache of maxBytes bytes whose answers live ttl.
func New(maxBytes int64, ttl time.Duration) *Cache {
	return &Cache{entries: sizedcache.New[Key, *Entry](maxEntries, maxBytes).Observe("gateway.pages"),
		ttl: ttl, maxEntry: min(maxBytes/64, 1<<20), now: time.Now}
}

// Lookup tells whether r may be answered from the cache and, if so, its
// key, the fill mark to pass to Keep, and the fresh answer kept (nil if
// none).
func (c *Cache) Lookup(r *http.Request) (k Key, mark int64, e *Entry, ok bool) {
	if c == nil || !Eligible(r) {
		return Key{}, 0, nil, false
	}
	k = Key{host: strings.ToLower(r.Host), path: r.URL.EscapedPath(), gzip: httpx.AcceptsGzip(r.Header.Get("Accept-Encoding"))}
	mark = c.purges.Load()
	if e, found := c.entries.Get(k); found && c.now().Sub(e.at) < c.ttl {
		return k, mark, e, true
	}
	return k, mark, nil, true
}

// Eligible tells whether the answer to r is the same for every reader
// sending it: a GET or HEAD without a query, a range or cookies but
// insights' visitor and session ids.
//
// Every Cookie line is read, as sites reads them (an empty first line
// hides none of the others), and every name on them, whether or not it
// parses as a cookie.
func Eligible(r *http.Request) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || r.URL.RawQuery != "" || len(r.Header.Values("Range")) > 0 {
		return false
	}
	for _, line := range r.Header.Values("Cookie") {
		for _, part := range strings.Split(line, ";") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			name, _, _ := strings.Cut(part, "=")
			if name = strings.TrimSpace(name); name != "docspub_vid" && name != "docspub_sid" {
				return false
			}
		}
	}
	return true
}

// Keepable tells whether resp (sites' answer) may be kept for every
// reader, and under which tags (tagsHeader: its readerapi.TagsHeader;
// impersonal: its readerapi.ImpersonalHeader).
func Keepable(resp *http.Response, tagsHeader, impersonal string) ([]string, bool) {
	h := resp.Header
	if impersonal != readerapi.Impersonal ||
		resp.StatusCode != http.StatusOK || !strings.HasPrefix(h.Get("Cache-Control"), "public") ||
		len(h.Values("Set-Cookie")) > 0 || resp.ContentLength < 0 {
		return nil, false
	}
	for _, v := range h.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			if n := strings.TrimSpace(name); n != "" && !strings.EqualFold(n, "Accept-Encoding") {
				return nil, false
			}
		}
	}
	tags := readerapi.SplitTags(tagsHeader)
	return tags, len(tags) > 0
}

// Fits tells whether an answer of n bytes may be kept.
func (c *Cache) Fits(n int64) bool { return n >= 0 && n <= c.maxEntry }

// Keep stores an answer under k, unless a purge came after mark (the
// answer may predate it). header is kept as given: the caller passes a
// copy it no longer changes. The read kept is view without claims: every
// reader answered from here is recorded as themselves.
func (c *Cache) Keep(k Key, mark int64, status int, header http.Header, body []byte, view *readerapi.View, tags []string) {
	if c.purges.Load() != mark || !c.Fits(int64(len(body))) {
		return
	}
	if view != nil {
		v := *view
		v.Claims = nil
		view = &v
	}
	for _, name := range []string{"Set-Cookie", "Date", "X-Request-Id"} {
		header.Del(name)
	}
	for name := range header {
		if strings.HasPrefix(name, "X-Internal-") {
			header.Del(name)
		}
	}
	e := &Entry{Status: status, Header: header, Body: body, View: view, tags: tags, at: c.now()}
	c.entries.Set(k, e, int64(len(body))+512)
	// A purge between the check and the add: drop what was added.
	if c.purges.Load() != mark {
		c.entries.Remove(k)
	}
}

// Purge drops every answer tagged with one of tags, and every fill under
// way.
func (c *Cache) Purge(tags ...string) {
	if c == nil || len(tags) == 0 {
		return
	}
	c.purges.Add(1)
	c.entries.RemoveIf(func(_ Key, e *Entry) bool {
		for _, t := range e.tags {
			for _, p := range tags {
				if t == p {
					return true
				}
			}
		}
		return false
	})
}

// Len is how many answers are kept.
func (c *Cache) Len() int { return c.entries.Len() }

// WriteTags are the tags a successful write to the API path changes: its
// organization (/v1/orgs/{id}/...) or space (/v1/spaces/{id}/...).
func WriteTags(path string) []string {
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return nil
	}
	kind, rest, _ := strings.Cut(rest, "/")
	id, _, _ := strings.Cut(rest, "/")
	if id == "" {
		return nil
	}
	switch kind {
	case "orgs":
		return []string{readerapi.OrgTag(id)}
	case "spaces":
		return []string{readerapi.SpaceTag(id)}
	}
	return nil
}
