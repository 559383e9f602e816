package reader

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// currents asks content for spaces' current revisions. A request never
// gets an answer to a question asked before it arrived: it joins the
// question about its space that is waiting to start (or starts one when
// none runs), so a merge acknowledged before a request shows in its
// answer, while the requests that arrive during one question share the
// next. When content does not answer, the last revision it gave for the
// space is used (pages keep being served; a merge shows once content is
// back), if it gave one.
type currents struct {
	ask     func(ctx context.Context, spaceID string) (contentapi.Current, error)
	timeout time.Duration

	mu      sync.Mutex
	flights map[string]*lookup
	last    *sizedcache.Cache[string, contentapi.Current]
}

type lookup struct {
	running, next *flight
}

type flight struct {
	done    chan struct{}
	cur     contentapi.Current
	err     error
	waiting int // requests waiting for it (under currents.mu)
}

func newCurrents(ask func(context.Context, string) (contentapi.Current, error), timeout time.Duration) *currents {
	last := sizedcache.New[string, contentapi.Current](limits.ReaderCacheEntries, 0)
	return &currents{ask: ask, timeout: timeout, flights: map[string]*lookup{}, last: last}
}

// get returns the space's current revision as content says it now.
func (c *currents) get(ctx context.Context, spaceID string) (contentapi.Current, error) {
	c.mu.Lock()
	l := c.flights[spaceID]
	if l == nil {
		l = &lookup{}
		c.flights[spaceID] = l
	}
	var f *flight
	switch {
	case l.running == nil:
		f = &flight{done: make(chan struct{})}
		l.running = f
		go c.run(spaceID, l, f)
	case l.next == nil:
		f = &flight{done: make(chan struct{})}
		l.next = f
	default:
		f = l.next
	}
	f.waiting++
	c.mu.Unlock()
	select {
	case <-f.done:
	case <-ctx.Done():
		return contentapi.Current{}, ctx.Err()
	}
	if errors.Is(f.err, contentapi.ErrNoSpace) {
		c.last.Remove(spaceID)
		return f.cur, f.err
	}
	if f.err != nil {
		if cur, ok := c.last.Get(spaceID); ok {
			return cur, nil
		}
	}
	return f.cur, f.err
}

// run asks about the space, then runs the question queued meanwhile, if
// any, until none is.
func (c *currents) run(spaceID string, l *lookup, f *flight) {
	for f != nil {
		ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
		f.cur, f.err = c.ask(ctx, spaceID)
		cancel()
		if f.err == nil {
			c.last.Set(spaceID, f.cur, 0)
		}
		close(f.done)
		c.mu.Lock()
		f, l.running, l.next = l.next, l.next, nil
		if f == nil {
			delete(c.flights, spaceID)
		}
		c.mu.Unlock()
	}
}

// tree is a revision as readers read it: its pages in order, by path and
// by id, and its files.
type tree struct {
	id, space, org string
	pages          []*page // every page, parents before children, in order
	byPath         map[string]*page
	byID           map[string]*page
	docs           []*page // the documents readers page through: not hidden
	first          *page   // the first document: the space's home
	files          map[string]contentapi.File
	size           int64
	// assets are the files' ids by name and slugs the pages by slug, made
	// when a page first asks (links.go); includes the reusable contents'
	// markdown by id and by the slug of their title.
	assetsOnce sync.Once
	assets     map[string]string
	slugs      map[string][]*page
	includes   map[string]string
	// redirects are the revision's redirects: page ids by old path.
	redirects map[string]string
}

// page is a page of a tree.
type page struct {
	id, kind, title, slug, path, description, emoji string
	hidden                                          bool
	markdown                                        string
	// href is a link page's destination; layout and cover a document's
	// (nil: the default layout, no cover).
	href   string
	layout *contentapi.Layout
	cover  *contentapi.Cover
	// conditional: the markdown holds {% if %} blocks (gitbookmd.Evaluate).
	conditional bool
	depth       int
	children    []*page
	// index is the page's place among tree.docs; -1 when it is not one.
	index int
}

func (p *page) document() bool { return p.kind != "group" && p.kind != "link" }

// link tells whether p is a link in the table of contents (href), not a
// page of its own.
func (p *page) link() bool { return p.kind == "link" }

// newTree indexes a revision content answered. Pages deeper than
// limits.ReaderTreeDepth are left out.
func newTree(rev contentapi.Content) *tree {
	t := &tree{id: rev.Revision, space: rev.Space, org: rev.Organization, byPath: map[string]*page{},
		byID: map[string]*page{}, files: map[string]contentapi.File{}}
	var walk func(ps []contentapi.Page, prefix string, depth int, hidden bool) []*page
	walk = func(ps []contentapi.Page, prefix string, depth int, hidden bool) []*page {
		if depth > limits.ReaderTreeDepth {
			return nil
		}
		var out []*page
		for _, cp := range ps {
			p := &page{id: cp.ID, kind: cp.Kind, title: cp.Title, slug: cp.Slug, description: cp.Description,
				emoji: cp.Emoji, hidden: hidden || cp.Hidden, markdown: cp.Markdown, depth: depth, index: -1,
				conditional: ifTag.MatchString(cp.Markdown), href: cp.Href, layout: cp.Layout, cover: cp.Cover}
			p.path = cp.Slug
			if prefix != "" {
				p.path = prefix + "/" + cp.Slug
			}
			if p.title == "" {
				p.title = "Untitled"
			}
			t.pages = append(t.pages, p)
			if _, taken := t.byPath[p.path]; !taken && !p.link() {
				t.byPath[p.path] = p
			}
			t.byID[p.id] = p
			if p.document() && !p.hidden {
				p.index = len(t.docs)
				t.docs = append(t.docs, p)
			}
			t.size += int64(len(p.markdown)+len(p.title)+len(p.description)+len(p.path)+len(p.href)) + 256
			p.children = walk(cp.Pages, p.path, depth+1, p.hidden)
			out = append(out, p)
		}
		return out
	}
	walk(rev.Pages, "", 1, false)
	if len(t.docs) > 0 {
		t.first = t.docs[0]
	} else {
		for _, p := range t.pages {
			if p.document() {
				t.first = p
				break
			}
		}
	}
	t.includes = map[string]string{}
	for _, rc := range rev.ReusableContents {
		t.includes[rc.ID] = rc.Markdown
		if s := slugOf(rc.Title); s != "" {
			if _, taken := t.includes[s]; !taken {
				t.includes[s] = rc.Markdown
			}
		}
		t.size += int64(len(rc.ID)+len(rc.Title)+len(rc.Markdown)) + 64
	}
	for _, f := range rev.Files {
		t.files[f.ID] = f
		t.size += int64(len(f.ID)+len(f.Name)+len(f.ContentType)) + 64
	}
	for _, rd := range rev.Redirects {
		if t.redirects == nil {
			t.redirects = make(map[string]string, len(rev.Redirects))
		}
		if _, taken := t.redirects[rd.Path]; !taken {
			t.redirects[rd.Path] = rd.Page
			t.size += int64(len(rd.Path)+len(rd.Page)) + 64
		}
	}
	return t
}

// top are the tree's top-level pages.
func (t *tree) top() []*page {
	var out []*page
	for _, p := range t.pages {
		if p.depth == 1 {
			out = append(out, p)
		}
	}
	return out
}

// find returns the page at a path ("" is the home page).
func (t *tree) find(path string) (*page, bool) {
	path = strings.Trim(path, "/")
	if path == "" {
		return t.first, t.first != nil
	}
	p, ok := t.byPath[path]
	return p, ok
}

// redirect is the document a redirect sends readers of path to (a path
// under the space's root that no document has): nil when no redirect
// has the path or the revision no longer has its page.
func (t *tree) redirect(path string) *page {
	id, ok := t.redirects[path]
	if !ok {
		return nil
	}
	if p := t.byID[id]; p != nil && p.document() {
		return p
	}
	return nil
}

// revision returns the space's current revision as a tree. Which revision
// is current comes from the site's snapshot: the projection of content's
// spaces, which content's events keep current (a merge is a space.updated
// carrying the new revision), so a page view makes no call to content. A
// space the projection knows no revision of (a view stored before views
// carried one) is asked about as before (currents). A revision not cached
// yet is read from content in a turn of the organization's quota (a 429
// when the organization already reads as many as it may).
//
// The projection decides only which revision is read, never who reads
// it: the snapshot already holds only live spaces of the site's
// organization, and content's answer is checked against both again.
func (r *Reader) revision(ctx context.Context, snap *snapshot, org, spaceID string) (*tree, error) {
	var rev string
	if snap != nil {
		if sp, ok := snap.spaces[spaceID]; ok && sp.Organization == org && !sp.Deleted {
			rev = sp.Revision
		}
	}
	if rev == "" {
		cur, err := r.currents.get(ctx, spaceID)
		if err != nil {
			return nil, err
		}
		if cur.Organization != org || cur.Deleted {
			return nil, contentapi.ErrNoSpace
		}
		rev = cur.Revision
	}
	key := revKey(org, spaceID, rev)
	if t, ok := r.cache.Get(key); ok {
		return t.(*tree), nil
	}
	v, err, _ := r.loading.Do(key, func() (any, error) {
		var cr contentapi.Content
		err := r.loads.Do(context.WithoutCancel(ctx), org, func(ctx context.Context) (err error) {
			cr, err = r.deps.Content.Content(ctx, spaceID)
			return err
		})
		if err != nil {
			return nil, err
		}
		if cr.Organization != org || cr.Space != spaceID {
			return nil, contentapi.ErrNoSpace
		}
		t := newTree(cr)
		r.cache.Add(revKey(org, spaceID, t.id), t, t.size)
		if t.id != rev {
			// Content has merged again since the projection heard of
			// rev: the newer revision answers for it until the event
			// arrives (the same tree, counted once more at a small size).
			r.cache.Add(key, t, 64)
		}
		return t, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*tree), nil
}

// cacheKey names an entry of the reader's cache: its kind, then every id
// that scopes it. Whatever is cached for a revision is keyed by its
// organization and space too, so that no request through another site
// (another organization's, another space's) ever finds it by the
// revision's or a file's id alone.
func cacheKey(kind string, scope ...string) string {
	return kind + "\x00" + strings.Join(scope, "\x00")
}

// revKey names a revision's tree in the cache.
func revKey(org, space, rev string) string { return cacheKey("rev", org, space, rev) }
