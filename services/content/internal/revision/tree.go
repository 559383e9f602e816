package revision

import "strings"

// Flat is a page with its place in the tree.
type Flat struct {
	Page   *Page
	Path   string // slugs from the top joined by "/"
	Parent string // parent page id; "" at the top
	Index  int    // position among its siblings
}

// Flatten lists every page of a tree, parents before children, in order.
func Flatten(pages []Page) []Flat {
	var out []Flat
	var walk func(ps []Page, parent, prefix string)
	walk = func(ps []Page, parent, prefix string) {
		for i := range ps {
			p := &ps[i]
			path := p.Slug
			if prefix != "" {
				path = prefix + "/" + p.Slug
			}
			out = append(out, Flat{Page: p, Path: path, Parent: parent, Index: i})
			walk(p.Pages, p.ID, path)
		}
	}
	walk(pages, "", "")
	return out
}

// FindPage returns the page with the id.
func (r *Revision) FindPage(id string) (Flat, bool) {
	for _, f := range Flatten(r.Pages) {
		if f.Page.ID == id {
			return f, true
		}
	}
	return Flat{}, false
}

// FindPath returns the page at a path (leading and trailing slashes ignored).
func (r *Revision) FindPath(path string) (Flat, bool) {
	path = strings.Trim(path, "/")
	for _, f := range Flatten(r.Pages) {
		if f.Path == path {
			return f, true
		}
	}
	return Flat{}, false
}

// FindFile returns the file with the id.
func (r *Revision) FindFile(id string) (File, bool) {
	for _, f := range r.Files {
		if f.ID == id {
			return f, true
		}
	}
	return File{}, false
}
