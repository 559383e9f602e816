package reader

import (
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/spaceview"
)

// structure is what one reader sees of a site: the sections and site
// spaces whose condition their claims meet and whose space is live.
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
	// shown, else the first shown.
	root *vsection
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
	// when shown, else the first shown.
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

// structure evaluates the site's conditions on claims (nil: a visitor
// without claims).
func (r *Reader) structure(snap *snapshot, claims map[string]any) *structure {
	env := map[string]any{"visitor": map[string]any{"claims": claims}}
	if claims == nil {
		env = map[string]any{"visitor": map[string]any{"claims": map[string]any{}}}
	}
	out := &structure{sections: len(snap.sections) > 0}
	if !out.sections {
		if vs := r.vsection(snap, env, "", "", ""); vs != nil {
			vs.title = snap.site.Title
			out.all = []*vsection{vs}
			out.root = vs
		}
		return out
	}
	byID := map[string]*vsection{}
	var def *vsection
	for _, sec := range snap.sections {
		if sec.Condition != "" && !r.conds.Match(sec.Condition, env) {
			continue
		}
		vs := r.vsection(snap, env, sec.ID, sec.Path, site.SectionPrefix(sec.Path, sec.Default))
		if vs == nil {
			continue
		}
		vs.title, vs.description = sec.Title, sec.Description
		byID[sec.ID] = vs
		if sec.Default {
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
				out.tabs = append(out.tabs, tab{section: vs})
				out.all = append(out.all, vs)
			}
			continue
		}
		t := tab{group: groups[n.ID]}
		for _, c := range section.Ordered(snap.sections, snap.groups, n.ID) {
			if vs := byID[c.ID]; vs != nil {
				t.members = append(t.members, vs)
				out.all = append(out.all, vs)
			}
		}
		if len(t.members) > 0 {
			out.tabs = append(out.tabs, t)
		}
	}
	out.root = def
	if out.root == nil && len(out.all) > 0 {
		out.root = out.all[0]
	}
	return out
}

// vsection is the section id (or the site level) with the site spaces env
// shows; nil when it shows none.
func (r *Reader) vsection(snap *snapshot, env map[string]any, id, path, prefix string) *vsection {
	vs := &vsection{id: id, path: path, prefix: prefix}
	for _, ss := range snap.siteSpaces[id] {
		sp, ok := snap.spaces[ss.Space]
		if !ok || (ss.Condition != "" && !r.conds.Match(ss.Condition, env)) {
			continue
		}
		v := &variant{ss: ss, title: sp.Title, path: site.SpacePath(prefix, ss), space: sp}
		vs.variants = append(vs.variants, v)
		if ss.Default {
			vs.root = v
		}
	}
	if len(vs.variants) == 0 {
		return nil
	}
	if vs.root == nil {
		vs.root = vs.variants[0]
	}
	return vs
}

// resolve finds what a path under the site (its segments) shows: the
// section and site space, and the rest, a page path. A non-default
// section's path selects it, else the root section; then a non-default
// site space's path selects it, else the section's root. ok is false when
// the structure shows nothing.
func (st *structure) resolve(segs []string) (sec *vsection, v *variant, rest []string, ok bool) {
	sec = st.root
	if sec == nil {
		return nil, nil, nil, false
	}
	if len(segs) > 0 && st.sections {
		for _, s := range st.all {
			if s.prefix != "" && s.path == segs[0] {
				sec, segs = s, segs[1:]
				break
			}
		}
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
	return sec, v, segs, true
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
