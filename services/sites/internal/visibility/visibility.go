// Package visibility is the one rule of what a site's visitor may see:
// which sections and site spaces (variants) a visitor is shown, given
// their claims. The reader builds every output from it (navigation, pages,
// <page>.md, files, sitemap.xml, llms.txt, llms-full.txt, search) and the
// published view of the API (GET SITE/published) shows a visitor who is
// not a member only what it lists.
//
// A site space is reachable when its condition holds for the visitor and
// its space is published on the site (live, in the site's organization);
// it is listed when it is reachable and not hidden. A section is
// reachable when its condition holds and it has a reachable site space,
// listed when it has a listed one. Only listed sections and site spaces
// appear in anything that enumerates a site; a hidden site space is read
// only at its own address (as a hidden page is), never listed, indexed or
// searched. A condition that does not hold, or cannot be evaluated, hides
// what it guards.
//
// The package holds no state and imports nothing of the service: callers
// give the site's sections and site spaces and the evaluation of their
// conditions.
package visibility

// Section is a section of a site as the rule reads it.
type Section struct {
	ID, Condition string
}

// SiteSpace is a site space of a site as the rule reads it: Section is
// "" for a site-level one.
type SiteSpace struct {
	ID, Section, Space, Condition string
	Hidden                        bool
}

// Site is what the rule reads of a site: its sections (none for a site
// without sections: then its site-level site spaces are its content, and
// with sections those are not shown), its site spaces in order, and the
// spaces it publishes (live and in the site's organization).
type Site struct {
	Sections   []Section
	SiteSpaces []SiteSpace
	Published  map[string]bool
}

// Holds tells whether a condition holds for the visitor (false when it
// cannot be evaluated).
type Holds func(condition string) bool

// Set is what one visitor may see of a site.
type Set struct {
	// Sections are the sections by id: true when listed, false when only
	// reachable at their address; absent ones are not shown at all. A
	// site without sections has the site level, "".
	Sections map[string]bool
	// SiteSpaces are the site spaces by id: true when listed, false when
	// only reachable at their address (hidden); absent ones are not shown.
	SiteSpaces map[string]bool
}

// Listed reports whether the section (or site level "") is listed.
func (s Set) Listed(sectionID string) bool { return s.Sections[sectionID] }

// ListedSiteSpace reports whether the site space is listed.
func (s Set) ListedSiteSpace(id string) bool { return s.SiteSpaces[id] }

// Reachable reports whether the site space may be read at its address.
func (s Set) Reachable(id string) bool {
	_, ok := s.SiteSpaces[id]
	return ok
}

// Of is what a visitor for whom holds evaluates conditions may see of st.
// Each condition is evaluated once.
func Of(st Site, holds Holds) Set {
	out := Set{Sections: map[string]bool{}, SiteSpaces: map[string]bool{}}
	sections := map[string]bool{} // the sections whose condition holds
	if len(st.Sections) == 0 {
		sections[""] = true
	}
	for _, sec := range st.Sections {
		if sec.Condition == "" || holds(sec.Condition) {
			sections[sec.ID] = true
		}
	}
	for _, ss := range st.SiteSpaces {
		if !sections[ss.Section] || !st.Published[ss.Space] {
			continue
		}
		if ss.Condition != "" && !holds(ss.Condition) {
			continue
		}
		out.SiteSpaces[ss.ID] = !ss.Hidden
		out.Sections[ss.Section] = out.Sections[ss.Section] || !ss.Hidden
	}
	return out
}

// CountListed is how many site spaces are listed.
func (s Set) CountListed() int {
	n := 0
	for _, listed := range s.SiteSpaces {
		if listed {
			n++
		}
	}
	return n
}
