package reader

import (
	"github.com/docspub/platform/libs/slug"
	"net/url"
	"path"
	"strings"
)

// pageLinks resolves the links and images of one page of a variant to
// URLs on the site, as GitBook repositories write them: relative paths to
// markdown files and folders ("../reference/concepts.md#x", "../git-sync/",
// "README.md"), files under .gitbook/assets/ relative to the page, and
// other files by their name.
//
// A page's repository path is not kept with the revision: it is derived
// the way Git export writes it (<slug>.md, <slug>/README.md for a page
// with children, the first page as README.md), and a path that does not
// name a page that way falls back on the one page whose path ends with
// the same segments.
type pageLinks struct {
	r     *Reader
	rd    *read
	v     *variant
	t     *tree
	dir   string // the page's folder in the repository, "" at its root
	files string // URL prefix of the revision's files
	// crossed is set once a link was looked up in another space.
	crossed bool
}

func (r *Reader) links(rd *read, v *variant, t *tree, p *page, files string) *pageLinks {
	dir := p.path
	if len(p.children) == 0 || p == t.first {
		dir = path.Dir(p.path)
	}
	if p == t.first || dir == "." {
		dir = ""
	}
	return &pageLinks{r: r, rd: rd, v: v, t: t, dir: dir, files: files}
}

// Resolve implements gitbookmd.Links.
func (l *pageLinks) Resolve(dest string) (string, bool) {
	dest = strings.TrimSpace(dest)
	if dest == "" || strings.HasPrefix(dest, "#") {
		return dest, true
	}
	u, err := url.Parse(dest)
	if err != nil {
		// Names GitBook writes with spaces and no escaping.
		u, err = url.Parse(strings.ReplaceAll(dest, " ", "%20"))
		if err != nil {
			return dest, true // the sanitizer drops what does not parse
		}
	}
	if u.Scheme == "" && u.Host == "" && strings.HasPrefix(u.Path, "/broken/") {
		// GitBook's export of a link to a page or space it no longer
		// has ("/broken/pages/<id>"): text, never a dead link.
		return "", false
	}
	if id, rest, ok := gitbookAppLink(u); ok {
		// A link into a GitBook space: the page of the site's space
		// migrated from it, else GitBook's page, as written.
		if to, ok := l.gitbookSpace(id, rest, u); ok {
			return to, true
		}
		return dest, true
	}
	if u.Scheme != "" || u.Host != "" || strings.HasPrefix(dest, "/") {
		return dest, true // external, or a path on this host: as written
	}
	p, err := url.PathUnescape(u.EscapedPath())
	if err != nil {
		p = u.Path
	}
	if id, ok := strings.CutPrefix(p, "files/"); ok && id != "" && !strings.ContainsAny(id, "/") {
		if _, known := l.t.files[id]; known {
			return l.files + url.PathEscape(id), true
		}
		return "", false
	}
	if i := strings.Index(p, ".gitbook/assets/"); i >= 0 {
		if id, ok := l.t.assetID(p[i+len(".gitbook/assets/"):]); ok {
			return l.files + url.PathEscape(id), true
		}
		return "", false
	}
	frag := ""
	if u.Fragment != "" {
		frag = "#" + u.EscapedFragment()
	}
	ext := strings.ToLower(path.Ext(p))
	if ext != "" && ext != ".md" {
		// Another kind of file: one of the revision's by its name, as the
		// link check finds it.
		if id, ok := l.t.assetID(path.Base(p)); ok {
			return l.files + url.PathEscape(id), true
		}
		return "", false
	}
	if rest, ok := escapes(l.dir, p); ok {
		return l.otherSpace(rest, frag)
	}
	target, ok := l.page(p)
	if !ok {
		return "", false
	}
	return l.rd.pageURL(l.v, l.t, target) + frag, true
}

// escapes tells whether rel, from dir, leaves the space's folder, and
// returns what follows the "../" that leave it.
func escapes(dir, rel string) (string, bool) {
	joined := path.Join(dir, rel)
	if !strings.HasPrefix(joined, "../") {
		return "", false
	}
	for strings.HasPrefix(joined, "../") {
		joined = joined[3:]
	}
	return joined, joined != ".." && joined != ""
}

// otherSpace resolves a link out of the space's folder into another
// space of the site the reader sees, as a repository holding several
// spaces side by side writes it ("../api/reference.md"): its first
// segment names the space (its site space's path, or its title as a
// slug), the rest a page of it. A space the reader does not see, or
// whose content cannot be read, leaves the link plain text.
func (l *pageLinks) otherSpace(rel, frag string) (string, bool) {
	l.crossed = true
	first, rest, _ := strings.Cut(rel, "/")
	name := slugOf(first)
	if l.rd.st == nil || l.rd.ctx == nil || name == "" {
		return "", false
	}
	for _, sec := range l.rd.st.all {
		for _, w := range sec.variants {
			if w == l.v || (slugOf(w.ss.Path) != name && slugOf(w.space.Title) != name && slugOf(w.title) != name) {
				continue
			}
			return l.pageIn(w, rest, frag)
		}
	}
	return "", false
}

// pageIn is the URL of the page at rest of site space w (its revision
// read, unless w is this page's own), with frag: false when the revision
// cannot be read or holds no such page.
func (l *pageLinks) pageIn(w *variant, rest, frag string) (string, bool) {
	t := l.t
	if w != l.v {
		var err error
		if t, err = l.r.revision(l.rd.ctx, l.rd.snap, l.rd.site.Organization, w.ss.Space); err != nil {
			return "", false
		}
	}
	target, ok := (&pageLinks{r: l.r, rd: l.rd, v: w, t: t}).page(rest)
	if !ok {
		return "", false
	}
	return l.rd.pageURL(w, t, target) + frag, true
}

// gitbookAppLink reads a link into a space of GitBook's app
// (https://app.gitbook.com/s/<spaceId>/<path>, as GitBook's exports
// write links between spaces): the space id and the page path.
func gitbookAppLink(u *url.URL) (id, rest string, ok bool) {
	if !strings.EqualFold(u.Host, "app.gitbook.com") || (u.Scheme != "https" && u.Scheme != "http") {
		return "", "", false
	}
	after, ok := strings.CutPrefix(u.Path, "/s/")
	if !ok {
		return "", "", false
	}
	id, rest, _ = strings.Cut(after, "/")
	return id, strings.Trim(rest, "/"), id != ""
}

// gitbookSpace resolves a link into the GitBook space id to the page at
// rest of the site space, in this site, whose space was migrated from it
// (spaceview.Space.GitBookSpaceID): the first such site space the reader
// sees, of the site's organization. No such space, or no page at rest,
// is false: the link stays GitBook's.
func (l *pageLinks) gitbookSpace(id, rest string, u *url.URL) (string, bool) {
	if l.rd == nil || l.rd.st == nil || l.rd.ctx == nil {
		return "", false
	}
	l.crossed = true
	frag := ""
	if u.Fragment != "" {
		frag = "#" + u.EscapedFragment()
	}
	for _, sec := range l.rd.st.all {
		for _, w := range sec.variants {
			if w.space.GitBookSpaceID != id || w.space.Organization != l.rd.site.Organization {
				continue
			}
			return l.pageIn(w, rest, frag)
		}
	}
	return "", false
}

// Title names the page a link of the space leads to (gitbookmd's
// PageTitle).
func (l *pageLinks) Title(dest string) (string, bool) {
	u, err := url.Parse(strings.ReplaceAll(strings.TrimSpace(dest), " ", "%20"))
	if err != nil || u.Scheme != "" || u.Host != "" || u.Path == "" || strings.HasPrefix(u.Path, "/") {
		return "", false
	}
	p, err := url.PathUnescape(u.EscapedPath())
	if err != nil {
		return "", false
	}
	if ext := strings.ToLower(path.Ext(p)); ext != "" && ext != ".md" {
		return "", false
	}
	if _, out := escapes(l.dir, p); out {
		return "", false
	}
	target, ok := l.page(p)
	if !ok {
		return "", false
	}
	return target.title, true
}

// page finds the page a relative path names.
func (l *pageLinks) page(rel string) (*page, bool) {
	full := strings.TrimSuffix(path.Join("/", l.dir, rel)[1:], "/")
	if strings.EqualFold(path.Base(full), "README.md") || strings.EqualFold(path.Base(full), "README") {
		full = path.Dir(full)
		if full == "." || full == "/" {
			full = ""
		}
	}
	full = strings.TrimSuffix(full, ".md")
	var segs []string
	for _, s := range strings.Split(full, "/") {
		if s != "" {
			segs = append(segs, slugOf(s))
		}
	}
	if len(segs) == 0 {
		return l.t.first, l.t.first != nil
	}
	if p, ok := l.t.byPath[strings.Join(segs, "/")]; ok {
		return docOrFirstChild(p)
	}
	// The one page whose path ends with the same segments; else with the
	// same last ones: a folder's name need not be its page's slug (a
	// SUMMARY.md group's id is its slug, "getting-started" for the folder
	// get-started/).
	for k := range segs {
		want := strings.Join(segs[k:], "/")
		var found *page
		for _, p := range l.t.bySlug(segs[len(segs)-1]) {
			if p.path == want || strings.HasSuffix(p.path, "/"+want) {
				if found != nil {
					return nil, false // ambiguous
				}
				found = p
			}
		}
		if found != nil {
			return docOrFirstChild(found)
		}
	}
	return nil, false
}

// docOrFirstChild is the page to open for p: itself, or for a group its
// first document.
func docOrFirstChild(p *page) (*page, bool) {
	if p.document() {
		return p, true
	}
	for _, c := range p.children {
		if c.document() {
			return c, true
		}
	}
	return nil, false
}

// slugOf makes a file name a slug as Git import does (lower case ASCII
// letters and digits, a dash for each run of anything else).
func slugOf(s string) string { return slug.Make(s) }

// assetID finds a file by its name under .gitbook/assets/ (as Git import
// names files).
func (t *tree) assetID(name string) (string, bool) {
	t.assetsOnce.Do(t.index)
	id, ok := t.assets[name]
	return id, ok
}

// index makes the tree's indexes links use: files by name, pages by slug.
func (t *tree) index() {
	t.assets = make(map[string]string, len(t.files))
	for id, f := range t.files {
		if prev, taken := t.assets[f.Name]; !taken || id < prev {
			t.assets[f.Name] = id
		}
	}
	t.slugs = make(map[string][]*page, len(t.pages))
	for _, p := range t.pages {
		if !p.link() {
			t.slugs[p.slug] = append(t.slugs[p.slug], p)
		}
	}
}

// bySlug are the pages whose own slug is slug.
func (t *tree) bySlug(slug string) []*page {
	t.assetsOnce.Do(t.index)
	return t.slugs[slug]
}
