package gitbook

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/docspub/platform/services/integrations/internal/limits"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Limits of a tree read from a repository: content's limits of a revision
// (pages, files, one file's bytes), so that a repository over them fails
// before anything is stored.
const (
	MaxPages     = 2000
	MaxDepth     = 10
	MaxFiles     = 2000
	MaxFileBytes = 10 << 20
)

// ErrLayout is a repository whose layout cannot be read (the message says why).
var ErrLayout = errors.New("repository layout")

func layoutErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLayout, fmt.Sprintf(format, args...))
}

// reader reads one repository.
type reader struct {
	files  map[string][]byte
	root   string
	readme string
	pages  int
	// listed are the page files SUMMARY.md named so far: an entry naming
	// one again is a link to it, not a second page.
	listed map[string]bool
}

// Read builds the tree of a repository's files (path → bytes), from the
// sub-directory projectDir ("" for the top), with the redirects of its
// .gitbook.yaml that name pages of the tree; what it leaves out of the
// repository without failing is in the tree's Problems.
func Read(files map[string][]byte, projectDir string) (Tree, error) {
	dir, ok := Clean(projectDir)
	if !ok {
		return Tree{}, layoutErr("repoProjectDirectory leaves the repository")
	}
	r := &reader{files: files, root: dir, listed: map[string]bool{}}
	readme, summary := "README.md", "SUMMARY.md"
	var c config
	if b, ok := files[join(dir, ".gitbook.yaml")]; ok {
		var err error
		if c, err = readConfig(b); err != nil {
			return Tree{}, err
		}
		if c.root != "" {
			root, ok := Clean(c.root)
			if !ok {
				return Tree{}, layoutErr(".gitbook.yaml: root leaves the repository")
			}
			r.root = join(dir, root)
		}
		if readme, err = structureFile("readme", c.readme, readme); err != nil {
			return Tree{}, err
		}
		if summary, err = structureFile("summary", c.summary, summary); err != nil {
			return Tree{}, err
		}
	}
	if r.root == "." {
		r.root = ""
	}
	r.readme = join(r.root, readme)
	var t Tree
	var err error
	if b, ok := files[join(r.root, summary)]; ok {
		t.Summary = join(r.root, summary)
		t.Pages, err = r.summary(b, path.Dir(join(r.root, summary)))
	} else {
		t.Pages, err = r.walk()
	}
	if err != nil {
		return Tree{}, err
	}
	t.Files, err = r.assets()
	if err != nil {
		return Tree{}, err
	}
	t.Includes, err = r.includes()
	if err != nil {
		return Tree{}, err
	}
	uniqueSlugs(t.Pages)
	var p problems
	t.Redirects = r.redirects(c.redirects, t.Pages, &p)
	brokenLinks(t.Pages, &p)
	t.Problems = p.done()
	return t, nil
}

// broken matches GitBook's references to what it no longer has, as its
// export writes them: "/broken/pages/<id>", "/broken/spaces/<id>", ...
var broken = regexp.MustCompile(`/broken/[A-Za-z0-9_./-]*`)

// brokenLinks reports the pages' references GitBook wrote as broken (sites
// show them as text): one problem per page, naming its first.
func brokenLinks(ps []Page, p *problems) {
	for _, pg := range ps {
		if pg.Path != "" && strings.Contains(pg.Markdown, "/broken/") {
			refs := broken.FindAllString(pg.Markdown, -1)
			if len(refs) > 0 {
				p.add("%s: %d references to what GitBook lost (first: %s), shown as text", pg.Path, len(refs), refs[0])
			}
		}
		brokenLinks(pg.Pages, p)
	}
}

// structureFile is .gitbook.yaml's structure.<key> (def when unset), a
// file under the docs root: one that leaves it is refused.
func structureFile(key, set, def string) (string, error) {
	if set == "" {
		return def, nil
	}
	file, ok := Clean(set)
	if !ok || file == "" {
		return "", layoutErr(".gitbook.yaml: structure.%s leaves the docs root", key)
	}
	return file, nil
}

// page reads the page file at p (a missing file gives an empty page).
func (r *reader) page(p, title string, depth int) (Page, error) {
	r.pages++
	if r.pages > MaxPages {
		return Page{}, layoutErr("more than %d pages", MaxPages)
	}
	if depth > MaxDepth {
		return Page{}, layoutErr("pages nested deeper than %d levels", MaxDepth)
	}
	pg := Page{Kind: KindDocument, Title: title, Path: p, Pages: []Page{}}
	if b, ok := r.files[p]; ok {
		body(&pg, b)
	}
	if pg.Title == "" {
		pg.Title = titleOf(p)
	}
	base := path.Base(p)
	if strings.EqualFold(base, "README.md") {
		base = path.Base(path.Dir(p))
		if path.Dir(p) == r.root || path.Dir(p) == "." {
			base = pg.Title
		}
	}
	pg.Slug = Slugify(strings.TrimSuffix(base, path.Ext(base)))
	if pg.Slug == "" {
		pg.Slug = Slugify(pg.Title)
	}
	return pg, nil
}

// summary reads SUMMARY.md: level-1 headings are its title, other headings
// start page groups, lists are pages with their nested lists as children.
func (r *reader) summary(src []byte, dir string) ([]Page, error) {
	if err := checkSummary(src); err != nil {
		return nil, err
	}
	doc := goldmark.New().Parser().Parse(text.NewReader(src))
	var out []Page
	group := -1
	seenReadme := false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch n := n.(type) {
		case *ast.Heading:
			if n.Level == 1 {
				continue
			}
			title := strings.TrimSpace(inline(n, src))
			r.pages++
			out = append(out, Page{Kind: KindGroup, Title: title, Slug: groupSlug(n, src, title), Pages: []Page{}})
			group = len(out) - 1
		case *ast.List:
			items, err := r.list(n, src, dir, 1, &seenReadme)
			if err != nil {
				return nil, err
			}
			if group >= 0 {
				out[group].Pages = append(out[group].Pages, items...)
			} else {
				out = append(out, items...)
			}
		}
	}
	if !seenReadme {
		return r.withReadme(out)
	}
	return out, nil
}

// groupID is the id GitBook gives a group in its SUMMARY.md heading
// ("## Get Started <a href="#getting-started" id="getting-started"></a>"),
// which its URLs use.
var groupID = regexp.MustCompile(`<a\s[^>]*\bid="([^"]+)"`)

// groupSlug is a group heading's slug: its id when it has one that is a
// slug, else its title's.
func groupSlug(h *ast.Heading, src []byte, title string) string {
	var raw []byte
	for i := 0; i < h.Lines().Len(); i++ {
		seg := h.Lines().At(i)
		raw = append(raw, seg.Value(src)...)
	}
	if m := groupID.FindSubmatch(raw); m != nil && Slugify(string(m[1])) == string(m[1]) {
		return string(m[1])
	}
	return Slugify(title)
}

// checkSummary bounds SUMMARY.md before the markdown parser reads it, in
// one pass over its bytes: its size; on each line its length, and the
// indentation and container markers (list items, block quotes) that open
// it, which is how deeply the line can nest (the parser's work grows with
// the nesting of every line); the lines of a paragraph; and the list items,
// each a page.
func checkSummary(src []byte) error {
	if len(src) > limits.SummaryBytes {
		return layoutErr("SUMMARY.md is larger than %d bytes", limits.SummaryBytes)
	}
	line, run, pages := 1, 0, 0
	var fence byte // '`' or '~' inside a fenced code block
	for i := 0; i < len(src); line++ {
		start := i
		var cols, markers, items int
		i, cols, markers, items = lineOpening(src, i)
		blank := i == len(src) || src[i] == '\n' || src[i] == '\r'
		// A fenced code block (GitBook writes one in an entry for an
		// OpenAPI reference's options) is no paragraph: its lines are
		// read as they are, in linear time.
		fenced := fence != 0
		if rest := src[i:]; bytes.HasPrefix(rest, []byte("```")) || bytes.HasPrefix(rest, []byte("~~~")) {
			switch {
			case fence == 0:
				fence, fenced = rest[0], true
			case fence == rest[0]:
				fence = 0
			}
		}
		pages += items
		switch {
		case blank || fenced:
			run = 0
		case items > 0 || src[i] == '#':
			run = 1
		default:
			run++
		}
		end := len(src)
		if nl := bytes.IndexByte(src[i:], '\n'); nl >= 0 {
			end = i + nl + 1
		}
		switch {
		case !blank && cols > limits.SummaryIndent:
			return layoutErr("SUMMARY.md line %d is indented more than %d columns", line, limits.SummaryIndent)
		case markers > limits.SummaryMarkers:
			return layoutErr("SUMMARY.md line %d opens more than %d nested lists or quotes", line, limits.SummaryMarkers)
		case end-start > limits.SummaryLine+1:
			return layoutErr("SUMMARY.md line %d is longer than %d bytes", line, limits.SummaryLine)
		case run > limits.SummaryParagraph:
			return layoutErr("SUMMARY.md line %d continues a paragraph of more than %d lines", line, limits.SummaryParagraph)
		case pages > MaxPages:
			return layoutErr("more than %d pages", MaxPages) // every list item is one
		}
		i = end
	}
	return nil
}

// lineOpening reads the opening of the line at i: its indentation in
// columns, its list and quote markers, and how many of them are list items;
// next is where its text starts.
func lineOpening(src []byte, i int) (next, cols, markers, items int) {
	for i < len(src) {
		switch c := src[i]; {
		case c == ' ':
			cols++
			i++
		case c == '\t':
			cols += 4
			i++
		case c == '>':
			markers++
			i++
		case (c == '-' || c == '*' || c == '+') && (i+1 == len(src) || src[i+1] == ' ' || src[i+1] == '\t' || src[i+1] == '\n'):
			markers++
			items++
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(src) && j-i < 9 && src[j] >= '0' && src[j] <= '9' {
				j++
			}
			if j < len(src) && (src[j] == '.' || src[j] == ')') && (j+1 == len(src) || src[j+1] == ' ' || src[j+1] == '\t') {
				markers++
				items++
				i = j + 1
				continue
			}
			return i, cols, markers, items
		default:
			return i, cols, markers, items
		}
	}
	return i, cols, markers, items
}

// entryHead reads an entry's text c: its first link, its title (the link's
// text, else the text), and whether the entry is a link rather than a page.
// A page file is marked listed before the entry's children are read: an
// entry naming a page file listed already links to it.
func (r *reader) entryHead(c ast.Node, src []byte, dir string) (link *ast.Link, title string, isLink bool) {
	_ = ast.Walk(c, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if l, ok := n.(*ast.Link); ok && entering && link == nil {
			link = l
			return ast.WalkStop, nil
		}
		return ast.WalkContinue, nil
	})
	if link == nil {
		return nil, strings.TrimSpace(inline(c, src)), false
	}
	file := r.entryFile(string(link.Destination), dir)
	isLink = linkEntry(string(link.Destination)) || r.listed[file]
	if !isLink && file != "" {
		r.listed[file] = true
	}
	return link, strings.TrimSpace(inline(link, src)), isLink
}

func (r *reader) list(l *ast.List, src []byte, dir string, depth int, seenReadme *bool) ([]Page, error) {
	var out []Page
	for it := l.FirstChild(); it != nil; it = it.NextSibling() {
		var link *ast.Link
		var title string
		var children []Page
		isLink, code := false, false
		for c := it.FirstChild(); c != nil; c = c.NextSibling() {
			switch c := c.(type) {
			case *ast.FencedCodeBlock:
				// GitBook's options of an OpenAPI reference it generates
				// pages from (type: builtin:openapi): no page here.
				code = true
			case *ast.List:
				kids, err := r.list(c, src, dir, depth+1, seenReadme)
				if err != nil {
					return nil, err
				}
				children = append(children, kids...)
			default:
				if link == nil && title == "" {
					link, title, isLink = r.entryHead(c, src, dir)
				}
			}
		}
		if link == nil && title == "" && code {
			out = append(out, children...)
			continue
		}
		if isLink {
			// A link in the table of contents (an anchor of a page, a
			// URL, a page listed already), not a page: a link page (GitBook's type "link") with
			// the destination as written; its children stay, one level up.
			if r.pages++; r.pages > MaxPages {
				return nil, layoutErr("more than %d pages", MaxPages)
			}
			if depth > MaxDepth {
				return nil, layoutErr("pages nested deeper than %d levels", MaxDepth)
			}
			if title == "" {
				title = "Untitled"
			}
			out = append(out, Page{Kind: KindLink, Title: title, Slug: Slugify(title), Href: string(link.Destination), Pages: []Page{}})
			out = append(out, children...)
			continue
		}
		var p Page
		var err error
		if link != nil {
			file := r.entryFile(string(link.Destination), dir)
			if file == r.readme {
				*seenReadme = true
			}
			p, err = r.page(file, title, depth)
			if file == "" {
				p.Path = ""
			}
		} else {
			p, err = r.page("", title, depth)
			p.Path = ""
		}
		if err != nil {
			return nil, err
		}
		p.Pages = append(p.Pages, children...)
		out = append(out, p)
	}
	return out, nil
}

// entryFile is the page file a SUMMARY.md entry's destination names,
// relative to the repository ("" for one out of the repository).
func (r *reader) entryFile(dest, dir string) string {
	if u, err := url.PathUnescape(dest); err == nil {
		dest = u
	}
	dest, _, _ = strings.Cut(dest, "#")
	base := dir
	if strings.HasPrefix(dest, "/") {
		base = r.root // "/x.md" is relative to the docs root
	}
	file := strings.TrimPrefix(path.Clean(path.Join(base, dest)), "/")
	if file == ".." || strings.HasPrefix(file, "../") {
		return "" // a link out of the repository names no page file
	}
	return file
}

// linkEntry tells whether a SUMMARY.md entry's destination is a link
// GitBook keeps in the table of contents rather than a page: an anchor of
// a page ("page.md#anchor") or a URL ("https://…", "mailto:…").
func linkEntry(dest string) bool {
	u, err := url.Parse(strings.TrimSpace(dest))
	if err != nil {
		return strings.Contains(dest, "#") || strings.Contains(dest, "://")
	}
	return u.Scheme != "" || u.Host != "" || u.Fragment != "" || strings.HasSuffix(dest, "#")
}

// inline is the plain text of a node's inline children.
func inline(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
			if t.SoftLineBreak() || t.HardLineBreak() {
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(t.Value)
		case *ast.CodeSpan:
			for cc := t.FirstChild(); cc != nil; cc = cc.NextSibling() {
				if tt, ok := cc.(*ast.Text); ok {
					b.Write(tt.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return unescape.ReplaceAllString(b.String(), "$1")
}

// unescape drops the backslash of markdown's escaped punctuation.
var unescape = regexp.MustCompile(`\\([!-/:-@\[-` + "`" + `{-~])`)

// walk reads the tree of markdown files under the root: README.md first,
// then files and directories by name; a directory is a page (its README.md
// gives its content), a group at the top when it has no README.md.
func (r *reader) walk() ([]Page, error) {
	prefix := ""
	if r.root != "" {
		prefix = r.root + "/"
	}
	dirs := markdownDirs(r.files, prefix)
	out, err := r.walkDir(dirs, prefix, "", 1)
	if err != nil {
		return nil, err
	}
	return r.withReadme(out)
}

// withReadme puts the root's README.md, when there is one, before the
// top-level pages out.
func (r *reader) withReadme(out []Page) ([]Page, error) {
	if _, ok := r.files[r.readme]; ok {
		p, err := r.page(r.readme, "", 1)
		if err != nil {
			return nil, err
		}
		out = append([]Page{p}, out...)
	}
	return out, nil
}

// mdDir is a directory of markdown files: its files and its
// sub-directories (paths relative to the root).
type mdDir struct {
	files []string
	dirs  map[string]bool
}

// mdDirs are the directories of markdown files by path relative to the
// root ("" for the root).
type mdDirs map[string]*mdDir

// get is directory d, added empty when it is not there yet.
func (ds mdDirs) get(d string) *mdDir {
	if ds[d] == nil {
		ds[d] = &mdDir{dirs: map[string]bool{}}
	}
	return ds[d]
}

// markdownDirs lists the markdown files under prefix (but those of
// .gitbook/ and SUMMARY.md) by directory, each directory listed in its
// parent's up to the root.
func markdownDirs(files map[string][]byte, prefix string) mdDirs {
	dirs := mdDirs{}
	for p := range files {
		if !isMarkdown(p) || !strings.HasPrefix(p, prefix) {
			continue
		}
		rel := strings.TrimPrefix(p, prefix)
		if strings.HasPrefix(rel, ".gitbook/") || rel == "SUMMARY.md" {
			continue
		}
		d := path.Dir(rel)
		if d == "." {
			d = ""
		}
		dirs.get(d).files = append(dirs.get(d).files, rel)
		for d != "" {
			parent := path.Dir(d)
			if parent == "." {
				parent = ""
			}
			dirs.get(parent).dirs[d] = true
			d = parent
		}
	}
	return dirs
}

// walkDir reads the pages of directory d, depth deep: its files but
// README.md by name, then its sub-directories by name, each a page with
// its own pages as children.
func (r *reader) walkDir(dirs mdDirs, prefix, d string, depth int) ([]Page, error) {
	e := dirs.get(d)
	sort.Strings(e.files)
	var out []Page
	for _, f := range e.files {
		if strings.EqualFold(path.Base(f), "README.md") {
			continue
		}
		p, err := r.page(prefix+f, "", depth)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	var subs []string
	for s := range e.dirs {
		subs = append(subs, s)
	}
	sort.Strings(subs)
	for _, s := range subs {
		kids, err := r.walkDir(dirs, prefix, s, depth+1)
		if err != nil {
			return nil, err
		}
		p, err := r.dirPage(prefix, s, depth)
		if err != nil {
			return nil, err
		}
		p.Pages = append(p.Pages, kids...)
		out = append(out, p)
	}
	return out, nil
}

// dirPage is the page of directory s, depth deep: its README.md, or
// without one an empty page titled after the directory (a group at the
// top).
func (r *reader) dirPage(prefix, s string, depth int) (Page, error) {
	readme := prefix + s + "/README.md"
	if _, ok := r.files[readme]; ok {
		return r.page(readme, "", depth)
	}
	kind := KindDocument
	if depth == 1 {
		kind = KindGroup
	}
	r.pages++
	return Page{Kind: kind, Title: titleOf(s), Slug: Slugify(path.Base(s)), Pages: []Page{}}, nil
}

// assets lists the files under the root's .gitbook/assets/.
func (r *reader) assets() ([]File, error) {
	dir := join(r.root, AssetsDir) + "/"
	var out []File
	for p := range r.files {
		if !strings.HasPrefix(p, dir) {
			continue
		}
		name := strings.TrimPrefix(p, dir)
		if len(r.files[p]) > MaxFileBytes {
			return nil, layoutErr("%s is larger than %d bytes", p, MaxFileBytes)
		}
		out = append(out, File{Name: name, Path: p, ContentType: ContentType(name)})
	}
	if len(out) > MaxFiles {
		return nil, layoutErr("more than %d files under %s", MaxFiles, AssetsDir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// includes lists the markdown files directly under the root's
// .gitbook/includes/.
func (r *reader) includes() ([]Include, error) {
	dir := join(r.root, IncludesDir) + "/"
	var out []Include
	for p, b := range r.files {
		name, ok := strings.CutPrefix(p, dir)
		if !ok || strings.Contains(name, "/") || !isMarkdown(p) {
			continue
		}
		if len(b) > MaxFileBytes {
			return nil, layoutErr("%s is larger than %d bytes", p, MaxFileBytes)
		}
		out = append(out, Include{Name: strings.TrimSuffix(name, path.Ext(name)), Path: p, Markdown: string(b)})
	}
	if len(out) > MaxFiles {
		return nil, layoutErr("more than %d files under %s", MaxFiles, IncludesDir)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// uniqueSlugs makes sibling slugs unique ("a", "a-2", ...) and never empty.
func uniqueSlugs(ps []Page) {
	seen := map[string]int{}
	for i := range ps {
		if ps[i].Slug == "" {
			ps[i].Slug = "page"
		}
		if n := seen[ps[i].Slug]; n > 0 {
			seen[ps[i].Slug]++
			ps[i].Slug = fmt.Sprintf("%s-%d", ps[i].Slug, n+1)
		} else {
			seen[ps[i].Slug] = 1
		}
		uniqueSlugs(ps[i].Pages)
	}
}
