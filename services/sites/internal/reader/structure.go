package reader

import (
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/spaceview"
	"github.com/docspub/platform/services/sites/internal/visibility"
)

// structure is what one reader sees of a site: the sections and site
// spaces the site's visibility rule shows them (visibility.Of).
type structure struct {
	// sections is true when the site has sections (shown or not): then
	// its site-level site spaces are not shown.
	sections bool
	// all are the sections shown, in order; a site without sections has
	// one, the site level (id "").
	all []*vsection
	// tabs are the top-level items shown: sections, and groups with the
	// sections of theirs shown.
	tabs []tab
	// root is the section at the site's root: the default section when
	// listed, else the first listed; for a site without sections, its
	// site level.
	root *vsection
	// set is the visibility rule's answer the structure lays out.
	set visibility.Set
}

type tab struct {
	section *vsection
	group   *section.Group
	members []*vsection
}

// vsection is a section as shown to a reader.
type vsection struct {
	id, title, path, description string
	// prefix is the section's path under the site (site.SectionPrefix).
	prefix   string
	variants []*variant
	// root is the variant at the section's prefix: its default site space
	// when listed, else the first listed; nil when none is listed.
	root *variant
}

// variant is a site space as shown to a reader.
type variant struct {
	ss    site.SiteSpace
	title string
	// path is the site space's path under the site (prefix + site.SpacePath).
	path  string
	space spaceview.Space
}

// listed are the variants listed in the section's switcher (not hidden).
func (s *vsection) listed() []*variant {
	var out []*variant
	for _, v := range s.variants {
		if !v.ss.Hidden {
			out = append(out, v)
		}
	}
	return out
}

// structure is what a visitor with claims (nil: none) sees of the site:
// the site's visibility rule (visibility.Of) with its conditions evaluated
// on their claims.
func (r *Reader) structure(snap *snapshot, claims map[string]any) *structure {
	if claims == nil {
		claims = map[string]any{}
	}
	env := map[string]any{"visitor": map[string]any{"claims": claims}}
	set := visibility.Of(snap.vis, func(cond string) bool { return r.conds.Match(cond, env) })
	return newStructure(snap, set)
}

// newStructure lays out what set shows of the site: every reachable
// section (resolved by its path), the listed ones as tabs.
func newStructure(snap *snapshot, set visibility.Set) *structure {
	out := &structure{sections: len(snap.sections) > 0, set: set}
	if !out.sections {
		if vs := vsectionOf(snap, set, "", "", ""); vs != nil {
			vs.title = snap.site.Title
			out.all = []*vsection{vs}
			out.root = vs
		}
		return out
	}
	byID := map[string]*vsection{}
	var def *vsection
	for _, sec := range snap.sections {
		if _, shown := set.Sections[sec.ID]; !shown {
			continue
		}
		vs := vsectionOf(snap, set, sec.ID, sec.Path, site.SectionPrefix(sec.Path, sec.Default))
		if vs == nil {
			continue
		}
		vs.title, vs.description = sec.Title, sec.Description
		byID[sec.ID] = vs
		if sec.Default && set.Listed(sec.ID) {
			def = vs
		}
	}
	groups := map[string]*section.Group{}
	for i := range snap.groups {
		groups[snap.groups[i].ID] = &snap.groups[i]
	}
	for _, n := range section.Ordered(snap.sections, snap.groups, "") {
		if n.Kind == section.KindSection {
			if vs := byID[n.ID]; vs != nil {
				out.all = append(out.all, vs)
				if set.Listed(vs.id) {
					out.tabs = append(out.tabs, tab{section: vs})
				}
			}
			continue
		}
		t := tab{group: groups[n.ID]}
		for _, c := range section.Ordered(snap.sections, snap.groups, n.ID) {
			if vs := byID[c.ID]; vs != nil {
				out.all = append(out.all, vs)
				if set.Listed(vs.id) {
					t.members = append(t.members, vs)
				}
			}
		}
		if len(t.members) > 0 {
			out.tabs = append(out.tabs, t)
		}
	}
	out.root = def
	for _, vs := range out.all {
		if out.root == nil && set.Listed(vs.id) {
			out.root = vs
		}
	}
	return out
}

// vsectionOf is the section id (or the site level) with the site spaces
// set shows; nil when it shows none. Its root is its default site space
// when listed, else its first listed one; a section none of whose site
// spaces is listed has no root (its hidden ones are read at their own
// path only).
func vsectionOf(snap *snapshot, set visibility.Set, id, path, prefix string) *vsection {
	vs := &vsection{id: id, path: path, prefix: prefix}
	for _, ss := range snap.siteSpaces[id] {
		sp, ok := snap.spaces[ss.Space]
		if !ok || !set.Reachable(ss.ID) {
			continue
		}
		v := &variant{ss: ss, title: sp.Title, path: site.SpacePath(prefix, ss), space: sp}
		vs.variants = append(vs.variants, v)
		if ss.Default && set.ListedSiteSpace(ss.ID) {
			vs.root = v
		}
	}
	if len(vs.variants) == 0 {
		return nil
	}
	if vs.root == nil {
		for _, v := range vs.variants {
			if set.ListedSiteSpace(v.ss.ID) {
				vs.root = v
				break
			}
		}
	}
	return vs
}

// resolve finds what a path under the site (its segments) shows: the
// section and site space, and the rest, a page path. A non-default
// section's path selects it, else the root section; then a non-default
// site space's path selects it, else the section's root. ok is false when
// the structure shows nothing there.
func (st *structure) resolve(segs []string) (sec *vsection, v *variant, rest []string, ok bool) {
	sec = st.root
	if len(segs) > 0 && st.sections {
		for _, s := range st.all {
			if s.prefix != "" && s.path == segs[0] {
				sec, segs = s, segs[1:]
				break
			}
		}
	}
	if sec == nil {
		return nil, nil, nil, false
	}
	v = sec.root
	if len(segs) > 0 {
		for _, w := range sec.variants {
			if !w.ss.Default && w.ss.Path == segs[0] {
				v, segs = w, segs[1:]
				break
			}
		}
	}
	if v == nil {
		return nil, nil, nil, false
	}
	return sec, v, segs, true
}

// listedVariant is a variant listed to the visitor, with its section.
type listedVariant struct {
	sec *vsection
	v   *variant
}

// listed are the variants listed to the visitor, in order: those of the
// listed sections, hidden ones left out. Whatever enumerates the site
// (sitemap.xml, llms.txt, llms-full.txt, search) reads these alone.
func (st *structure) listed() []listedVariant {
	var out []listedVariant
	for _, s := range st.all {
		if !st.set.Listed(s.id) {
			continue
		}
		for _, v := range s.listed() {
			out = append(out, listedVariant{sec: s, v: v})
		}
	}
	return out
}

// siteSpace finds a shown site space by id.
func (st *structure) siteSpace(id string) (*vsection, *variant) {
	for _, s := range st.all {
		for _, v := range s.variants {
			if v.ss.ID == id {
				return s, v
			}
		}
	}
	return nil, nil
}
