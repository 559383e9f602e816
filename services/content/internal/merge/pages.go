package merge

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/aymanbagabas/go-udiff/lcs"

	"github.com/docspub/platform/services/content/internal/revision"
)

// node is a page of one side, without its children, and its place.
type node struct {
	page   revision.Page // Pages is nil
	parent string        // "" at the top
	path   string
}

// tree is one side's page tree indexed by id.
type tree struct {
	nodes    map[string]*node
	order    []string            // parents before children, in order
	children map[string][]string // parent id ("" for the top) → child ids in order
}

func index(pages []revision.Page) tree {
	flat := revision.Flatten(pages)
	t := tree{
		nodes:    make(map[string]*node, len(flat)),
		order:    make([]string, 0, len(flat)),
		children: make(map[string][]string),
	}
	slab := make([]node, len(flat))
	for i, f := range flat {
		if _, dup := t.nodes[f.Page.ID]; dup {
			continue // ids are unique in a revision; the first one wins
		}
		n := &slab[i]
		*n = node{page: *f.Page, parent: f.Parent, path: f.Path}
		n.page.Pages = nil
		p := &n.page
		t.nodes[p.ID] = n
		t.order = append(t.order, p.ID)
		t.children[f.Parent] = append(t.children[f.Parent], p.ID)
	}
	return t
}

// absent is the base parent of a page that base does not have: no real
// parent id equals it, so two sides adding the same page under different
// parents conflict.
const absent = "\x00absent"

// sameContent reports whether two versions of a page have the same fields
// and markdown (timestamps and children aside).
func sameContent(a, b *revision.Page) bool {
	return a.Kind == b.Kind && a.Title == b.Title && a.Slug == b.Slug && a.Emoji == b.Emoji &&
		a.Description == b.Description && a.Markdown == b.Markdown && a.Href == b.Href &&
		reflect.DeepEqual(a.Layout, b.Layout) && reflect.DeepEqual(a.Cover, b.Cover)
}

// edited reports whether a side changed a base page's content or parent.
func edited(b, s *node) bool {
	return b.parent != s.parent || !sameContent(&b.page, &s.page)
}

// pageMerger merges the page trees of three revisions.
type pageMerger struct {
	b, o, t   tree
	ids       []string          // every id of the three, deterministic order
	keep      map[string]bool   // the page is in the merged tree
	parent    map[string]string // merged parent of a kept page
	pages     map[string]*revision.Page
	conflicts []Conflict
	marked    map[string]bool // pages with a conflict about their place
	dropped   map[string]bool // pages left out because of a reported conflict
}

func mergePages(ctx context.Context, base, ours, theirs []revision.Page) ([]revision.Page, []Conflict, error) {
	m := &pageMerger{
		b: index(base), o: index(ours), t: index(theirs),
		marked:  make(map[string]bool),
		dropped: make(map[string]bool),
	}
	n := len(m.o.order) + len(m.t.order)
	m.keep, m.parent, m.pages = make(map[string]bool, n), make(map[string]string, n), make(map[string]*revision.Page, n)
	m.ids = slices.Clone(m.o.order)
	for _, id := range m.t.order {
		if m.o.nodes[id] == nil {
			m.ids = append(m.ids, id)
		}
	}
	for _, id := range m.b.order {
		if m.o.nodes[id] == nil && m.t.nodes[id] == nil {
			m.ids = append(m.ids, id)
		}
	}
	for _, id := range m.ids {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		m.decide(id)
	}
	for m.fixOrphans() || m.fixCycles() {
		// A fix can cause the other kind of problem: repeat until stable.
	}
	return m.build(), m.conflicts, nil
}

func (m *pageMerger) conflict(id, format string, args ...any) {
	m.conflicts = append(m.conflicts, Conflict{PageID: id, Path: m.path(id), Reason: fmt.Sprintf(format, args...)})
}

// path is where the page is: ours' path, else theirs', else base's.
func (m *pageMerger) path(id string) string {
	for _, t := range []*tree{&m.o, &m.t, &m.b} {
		if n := t.nodes[id]; n != nil {
			return n.path
		}
	}
	return ""
}

// take keeps one side's version of a page where that side put it.
func (m *pageMerger) take(n *node) {
	p := n.page
	m.keep[p.ID], m.parent[p.ID], m.pages[p.ID] = true, n.parent, &p
}

// decide whether a page stays, with which content and under which parent.
func (m *pageMerger) decide(id string) {
	bn, on, tn := m.b.nodes[id], m.o.nodes[id], m.t.nodes[id]
	switch {
	case on != nil && tn != nil:
		var bp revision.Page
		bParent := absent
		if bn != nil {
			bp, bParent = bn.page, bn.parent
		}
		p, reasons := mergePage(&bp, &on.page, &tn.page)
		for _, r := range reasons {
			m.conflict(id, "%s", r)
		}
		parent, ok := pick(bParent, on.parent, tn.parent)
		if !ok {
			m.marked[id] = true
			if bn == nil {
				m.conflict(id, "added on both sides under different parents (ours %s, theirs %s)", m.name(on.parent), m.name(tn.parent))
			} else {
				m.conflict(id, "moved on both sides to different parents (ours %s, theirs %s)", m.name(on.parent), m.name(tn.parent))
			}
		}
		m.keep[id], m.parent[id], m.pages[id] = true, parent, &p
	case on != nil:
		if bn == nil {
			m.take(on) // added by ours
			return
		}
		if edited(bn, on) {
			m.marked[id] = true
			m.conflict(id, "deleted by theirs but changed by ours")
			m.take(on)
		}
	case tn != nil:
		if bn == nil {
			m.take(tn) // added by theirs
			return
		}
		if edited(bn, tn) {
			m.dropped[id] = true
			m.conflict(id, "deleted by ours but changed by theirs")
		}
	}
}

// name is a parent id for a conflict's reason.
func (m *pageMerger) name(parent string) string {
	if parent == "" {
		return "the top"
	}
	if p := m.path(parent); p != "" {
		return fmt.Sprintf("page %s (%s)", parent, p)
	}
	return "page " + parent
}

// fixOrphans handles kept pages whose merged parent is gone: the parent was
// deleted on one side while the other side added or moved a page under it.
// A parent that ours has stays (ours kept); a page that theirs moved under
// a page ours deleted goes back to ours' parent, and one that theirs added
// there is left out. All are conflicts. It reports whether it
// changed anything.
func (m *pageMerger) fixOrphans() bool {
	changed := false
	for again := true; again; {
		again = false
		for _, id := range m.ids {
			p := m.parent[id]
			if !m.keep[id] || p == "" || m.keep[p] {
				continue
			}
			again, changed = true, true
			if on := m.o.nodes[p]; on != nil {
				if !m.marked[p] {
					m.marked[p] = true
					m.conflict(p, "deleted by theirs but ours added or moved page %s under it", id)
				}
				m.take(on)
				continue
			}
			if on := m.o.nodes[id]; on != nil {
				m.marked[id] = true
				m.conflict(id, "moved by theirs under page %s, which ours deleted", p)
				m.parent[id] = on.parent
				continue
			}
			m.keep[id] = false
			if !m.dropped[p] {
				m.conflict(id, "added by theirs under page %s, which ours deleted", p)
			}
			m.dropped[id] = true
		}
	}
	return changed
}

// fixCycles breaks parent cycles that moves on both sides made (ours moves
// A under B while theirs moves B under A): the pages of a cycle that took
// theirs' parent go back to ours' parent, and each is a conflict. It
// reports whether it changed anything.
func (m *pageMerger) fixCycles() bool {
	const (
		walking = 1
		done    = 2
	)
	state := make(map[string]int, len(m.ids))
	changed := false
	for _, start := range m.ids {
		if !m.keep[start] || state[start] != 0 {
			continue
		}
		var walk []string
		id := start
		for id != "" && m.keep[id] && state[id] == 0 {
			state[id] = walking
			walk = append(walk, id)
			id = m.parent[id]
		}
		if id != "" && state[id] == walking {
			cycle := walk[slices.Index(walk, id):]
			for _, c := range cycle {
				on := m.o.nodes[c]
				if on == nil || on.parent == m.parent[c] {
					continue
				}
				changed = true
				m.marked[c] = true
				m.conflict(c, "moved under %s by theirs, which would make the page its own ancestor with ours' moves", m.name(m.parent[c]))
				m.parent[c] = on.parent
			}
		}
		for _, w := range walk {
			state[w] = done
		}
	}
	return changed
}

// build lays the kept pages out as a tree.
func (m *pageMerger) build() []revision.Page {
	kids := make(map[string][]string)
	placedN := 0
	for _, p := range append([]string{""}, m.ids...) {
		if p != "" && !m.keep[p] {
			continue
		}
		kids[p] = m.order(p)
		placedN += len(kids[p])
	}
	// Every kept page is in its parent's list by construction; this only
	// guards against losing one if that ever stops being true.
	for _, id := range m.ids {
		if m.keep[id] && !slices.Contains(kids[m.parent[id]], id) {
			kids[m.parent[id]] = append(kids[m.parent[id]], id)
		}
	}
	var walk func(parent string) []revision.Page
	walk = func(parent string) []revision.Page {
		ids := kids[parent]
		if len(ids) == 0 {
			return nil
		}
		out := make([]revision.Page, len(ids))
		for i, id := range ids {
			out[i] = *m.pages[id]
			out[i].Pages = walk(id)
		}
		return out
	}
	top := walk("")
	if top == nil {
		top = []revision.Page{}
	}
	return top
}

// order merges the child lists of a parent: ours' order, kept children
// only, then theirs' insertions and moves, each placed before the sibling
// that follows it in theirs (at the end when none does).
func (m *pageMerger) order(p string) []string {
	bl, ol, tl := m.b.children[p], m.o.children[p], m.t.children[p]
	want := func(id string) bool { return m.keep[id] && m.parent[id] == p }
	list := make([]string, 0, len(ol))
	for _, id := range ol {
		if want(id) {
			list = append(list, id)
		}
	}
	if slices.Equal(bl, tl) {
		return list // theirs changed nothing here
	}
	oPlaced, tPlaced := placed(bl, ol), placed(bl, tl)
	var moves []int // indexes in tl
	for k, id := range tl {
		if !want(id) || !tPlaced[id] {
			continue
		}
		if oPlaced[id] && slices.Contains(list, id) {
			// Both sides placed it: fine when after the same sibling.
			if !m.marked[id] && anchor(ol, id, tl) != anchor(tl, id, ol) {
				m.marked[id] = true
				m.conflict(id, "moved on both sides to different places among its siblings")
			}
			continue
		}
		moves = append(moves, k)
	}
	for i := len(moves) - 1; i >= 0; i-- {
		k := moves[i]
		id := tl[k]
		if at := slices.Index(list, id); at >= 0 {
			list = slices.Delete(list, at, at+1)
		}
		at := len(list)
		for _, next := range tl[k+1:] {
			if j := slices.Index(list, next); j >= 0 {
				at = j
				break
			}
		}
		list = slices.Insert(list, at, id)
	}
	return list
}

// anchor is the nearest sibling before id in l that other also has, "" if
// none.
func anchor(l []string, id string, other []string) string {
	at := slices.Index(l, id)
	for i := at - 1; i >= 0; i-- {
		if slices.Contains(other, l[i]) {
			return l[i]
		}
	}
	return ""
}

// placed lists the children that a side put where they are: new under the
// parent (added or moved in), or moved among the siblings they had in base
// (not on a longest common subsequence of the two orders).
func placed(bl, sl []string) map[string]bool {
	out := make(map[string]bool)
	inB := make(map[string]bool, len(bl))
	for _, id := range bl {
		inB[id] = true
	}
	inS := make(map[string]bool, len(sl))
	var cs []string
	for _, id := range sl {
		inS[id] = true
		if inB[id] {
			cs = append(cs, id)
		} else {
			out[id] = true
		}
	}
	var cb []string
	for _, id := range bl {
		if inS[id] {
			cb = append(cb, id)
		}
	}
	if slices.Equal(cb, cs) {
		return out
	}
	for _, d := range lcs.DiffLines(cb, cs) {
		for _, id := range cs[d.ReplStart:d.ReplEnd] {
			out[id] = true
		}
	}
	return out
}

// mergePage merges a page's fields and markdown; reasons name what
// conflicts (ours' value is kept there).
func mergePage(b, o, t *revision.Page) (revision.Page, []string) {
	p := *o
	p.Pages = nil
	var reasons []string
	field := func(name string, dst *string, bv, ov, tv string) {
		v, ok := pick(bv, ov, tv)
		if !ok {
			reasons = append(reasons, fmt.Sprintf("%s changed on both sides (ours %q, theirs %q)", name, ov, tv))
		}
		*dst = v
	}
	field("kind", &p.Kind, b.Kind, o.Kind, t.Kind)
	field("title", &p.Title, b.Title, o.Title, t.Title)
	field("slug", &p.Slug, b.Slug, o.Slug, t.Slug)
	field("emoji", &p.Emoji, b.Emoji, o.Emoji, t.Emoji)
	field("description", &p.Description, b.Description, o.Description, t.Description)
	field("href", &p.Href, b.Href, o.Href, t.Href)
	var ok bool
	if p.Layout, ok = pickValue(b.Layout, o.Layout, t.Layout); !ok {
		reasons = append(reasons, "layout changed on both sides")
	}
	if p.Cover, ok = pickValue(b.Cover, o.Cover, t.Cover); !ok {
		reasons = append(reasons, "cover changed on both sides")
	}
	md, rs := mergeText(b.Markdown, o.Markdown, t.Markdown)
	if len(rs) > 0 {
		reasons = append(reasons, "markdown changed differently on both sides at "+describe(rs)+" (of the common version)")
	}
	p.Markdown = md
	p.CreatedAt = pickTime(b.CreatedAt, o.CreatedAt, t.CreatedAt)
	p.UpdatedAt = pickTime(b.UpdatedAt, o.UpdatedAt, t.UpdatedAt)
	return p, reasons
}

// pickValue is pick for values compared whole (a page's layout, its
// cover): ok is false when both sides changed one differently (ours is
// kept).
func pickValue[T any](b, o, t *T) (*T, bool) {
	switch {
	case reflect.DeepEqual(o, b):
		return t, true
	case reflect.DeepEqual(t, b), reflect.DeepEqual(o, t):
		return o, true
	}
	return o, false
}

// pickTime is pick for timestamps, which never conflict: when both sides
// changed one, the later wins.
func pickTime(b, o, t time.Time) time.Time {
	switch {
	case o.Equal(b):
		return t
	case t.Equal(b), o.After(t):
		return o
	}
	return t
}
