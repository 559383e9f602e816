package gitbook

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Wanted reports whether a repository file matters to the layout under
// projectDir: markdown, .gitbook.yaml and files under .gitbook/assets/.
// Other files are never read.
func Wanted(p, projectDir string) bool {
	if projectDir != "" && !strings.HasPrefix(p, projectDir+"/") {
		return false
	}
	return isMarkdown(p) || path.Base(p) == ".gitbook.yaml" ||
		strings.HasPrefix(p, AssetsDir+"/") || strings.Contains(p, "/"+AssetsDir+"/")
}

// Output is a space written in the layout: text files to write by path,
// the path of each file of the space by its name, and the files of the
// previous layout to remove (those it no longer has).
type Output struct {
	Text   map[string][]byte
	Files  map[string]string
	Remove []string
}

// Previous is the layout an export writes over: the tree read from the
// base commit (Read of Text) and its text files (markdown, .gitbook.yaml).
type Previous struct {
	Tree Tree
	Text map[string][]byte
}

// Write lays out pages and the names of files under projectDir: README.md
// for the first top-level page, <slug>.md for pages, <slug>/README.md for
// pages with children (which go under <slug>/), group pages under the
// group's slug, SUMMARY.md listing them all, and the files under
// .gitbook/assets/.
func Write(pages []Page, files []string, projectDir string) (Output, error) {
	return WriteOver(pages, files, projectDir, nil)
}

// WriteOver lays out pages and files as Write does, over the previous
// layout when there is one, so that a space imported from a repository
// goes back unchanged: a page found at the same place of the tree (its
// path of slugs) keeps its file; unchanged (the same title, description,
// icon, emoji, hidden and markdown as read from its file) it is not
// written at all, so its bytes stay (front matter, HTML, GitBook's blocks,
// line endings); changed, its file keeps what did not change (its front
// matter, its heading line, its line endings) around the new markdown.
// SUMMARY.md is written only when the tree (titles, files, order,
// nesting) changed, and files keep their paths under the assets folder.
// The previous layout's files that the space no longer has are in Remove
// when it has a SUMMARY.md (without one, every markdown file of the
// repository is a page, and a repository loses nothing).
func WriteOver(pages []Page, files []string, projectDir string, prev *Previous) (Output, error) {
	dir, ok := Clean(projectDir)
	if !ok {
		return Output{}, layoutErr("repoProjectDirectory leaves the repository")
	}
	out := Output{Text: map[string][]byte{}, Files: map[string]string{}}
	w := &writer{dir: dir, taken: map[string]bool{}, old: map[string]Page{}, out: &out, first: true}
	if prev != nil {
		w.text = prev.Text
		indexPages(prev.Tree.Pages, "", w.old)
		// The files of matched pages are theirs: new pages go elsewhere.
		w.claim(pages, "")
	}
	w.sum.WriteString("# Table of contents\n\n")
	for _, p := range pages {
		if p.Kind == KindGroup {
			w.group(p)
			continue
		}
		w.page(p, "", "", 0)
	}
	summary := w.summary(prev)
	names := append([]string(nil), files...)
	sort.Strings(names)
	for _, n := range names {
		out.Files[n] = join(dir, AssetsDir+"/"+n)
	}
	if prev != nil && prev.Tree.Summary != "" { // a repository without a SUMMARY.md loses nothing
		out.Remove = w.removed(prev, summary)
	}
	return out, nil
}

// writer is one WriteOver.
type writer struct {
	dir   string
	taken map[string]bool   // files (relative to dir) given to pages
	old   map[string]Page   // the previous pages by path of slugs
	text  map[string][]byte // the previous text files
	out   *Output
	// The SUMMARY.md written and its lines.
	sum     strings.Builder
	entries []entry
	first   bool // no page written yet
	inGroup bool // a group written
}

// claim takes the files of the pages ps (under the path of slugs prefix)
// found in the previous layout, so that new pages go elsewhere.
func (w *writer) claim(ps []Page, prefix string) {
	for _, p := range ps {
		key := slugPath(prefix, p.Slug)
		if o, ok := w.old[key]; ok && o.Path != "" && o.Kind == p.Kind {
			if rel, ok := w.rel(o.Path); ok {
				w.taken[rel] = true
			}
		}
		w.claim(p.Pages, key)
	}
}

// group writes a group's heading in SUMMARY.md and its pages under a
// folder of the group's slug.
func (w *writer) group(p Page) {
	if !w.inGroup && !w.first {
		w.sum.WriteString("\n")
	}
	id := ""
	if p.Slug != "" && p.Slug != Slugify(p.Title) && Slugify(p.Slug) == p.Slug {
		id = fmt.Sprintf(` <a href="#%s" id="%s"></a>`, p.Slug, p.Slug) // the group's id, which its URLs use
	}
	fmt.Fprintf(&w.sum, "\n## %s%s\n\n", oneLine(p.Title), id)
	w.entries = append(w.entries, entry{kind: KindGroup, title: p.Title})
	w.inGroup = true
	folder := uniquePath(w.taken, p.Slug, "")
	w.taken[folder] = true
	for _, c := range p.Pages {
		w.page(c, folder, p.Slug, 0)
	}
}

// page writes page p (at the path of slugs prefix, depth deep in
// SUMMARY.md) and its children: in its file of the previous layout, or a
// new one under folder, and its line in SUMMARY.md.
func (w *writer) page(p Page, folder, prefix string, depth int) {
	key := slugPath(prefix, p.Slug)
	if p.Kind == KindLink {
		w.link(p, depth)
		for _, c := range p.Pages {
			w.page(c, folder, key, depth+1)
		}
		return
	}
	file, matched := w.file(p, key)
	if !matched {
		switch {
		case w.first && depth == 0 && !w.taken["README.md"]:
			file = "README.md"
		case len(p.Pages) > 0:
			file = uniquePath(w.taken, join(folder, p.Slug), "/README.md")
		default:
			file = uniquePath(w.taken, join(folder, p.Slug), ".md")
		}
		w.taken[file] = true
		w.out.Text[join(w.dir, file)] = pageFile(p)
	}
	w.first = false
	w.entries = append(w.entries, entry{depth: depth, kind: p.Kind, title: p.Title, file: join(w.dir, file)})
	fmt.Fprintf(&w.sum, "%s* [%s](%s)\n", strings.Repeat("  ", depth), escapeTitle(p.Title), escapeLink(file))
	sub := strings.TrimSuffix(strings.TrimSuffix(file, "/README.md"), ".md")
	if file == "README.md" {
		sub = folder
	}
	for _, c := range p.Pages {
		w.page(c, sub, key, depth+1)
	}
}

// link writes a link page's line in SUMMARY.md: its destination as
// written, its title.
func (w *writer) link(p Page, depth int) {
	w.entries = append(w.entries, entry{depth: depth, kind: KindLink, title: p.Title, file: p.Href})
	fmt.Fprintf(&w.sum, "%s* [%s](%s)\n", strings.Repeat("  ", depth), escapeTitle(p.Title), escapeLink(oneLine(p.Href)))
}

// summary returns the path of SUMMARY.md (the previous layout's, when it
// has one) and writes it unless its entries are the previous layout's.
func (w *writer) summary(prev *Previous) string {
	summary := join(w.dir, "SUMMARY.md")
	if prev == nil || !sameEntries(w.entries, entriesOf(prev.Tree.Pages, 0)) {
		if prev != nil && prev.Tree.Summary != "" {
			summary = prev.Tree.Summary
		}
		w.out.Text[summary] = []byte(w.sum.String())
	} else if prev.Tree.Summary != "" {
		summary = prev.Tree.Summary
	}
	return summary
}

// removed lists, sorted, the paths of the previous layout that the one
// written (its summary, pages and files) no longer has.
func (w *writer) removed(prev *Previous, summary string) []string {
	var remove []string
	keep := map[string]bool{summary: true}
	for _, e := range w.entries {
		keep[e.file] = true
	}
	for _, p := range w.out.Files {
		keep[p] = true
	}
	for _, p := range prev.Tree.Paths() {
		if !keep[p] {
			remove = append(remove, p)
		}
	}
	sort.Strings(remove)
	return remove
}

// rel is a repository path relative to the layout's directory.
func (w *writer) rel(p string) (string, bool) {
	if w.dir == "" {
		return p, true
	}
	return strings.CutPrefix(p, w.dir+"/")
}

// file is the file of a page found in the previous layout (relative to the
// directory), written to out when the page changed.
func (w *writer) file(p Page, key string) (string, bool) {
	o, ok := w.old[key]
	if !ok || o.Path == "" || o.Kind != p.Kind {
		return "", false
	}
	rel, ok := w.rel(o.Path)
	if !ok {
		return "", false
	}
	delete(w.old, key) // one page per file
	if !samePage(o, p) {
		w.out.Text[o.Path] = rewrite(w.text[o.Path], o, p)
	}
	return rel, true
}

func slugPath(prefix, slug string) string {
	if prefix == "" {
		return slug
	}
	return prefix + "/" + slug
}

// indexPages maps pages by their path of slugs.
func indexPages(ps []Page, prefix string, into map[string]Page) {
	for _, p := range ps {
		key := slugPath(prefix, p.Slug)
		if _, dup := into[key]; !dup {
			into[key] = p
		}
		indexPages(p.Pages, key, into)
	}
}

// samePage reports whether a page has what its file gave it.
func samePage(o, p Page) bool {
	return o.Kind == p.Kind && o.Title == p.Title && o.Description == p.Description && o.Icon == p.Icon &&
		o.Emoji == p.Emoji && o.Hidden == p.Hidden && o.Markdown == p.Markdown
}

// entry is a line of SUMMARY.md: a page's place, title and file, or a group.
type entry struct {
	depth       int
	kind, title string
	file        string
}

func entriesOf(ps []Page, depth int) []entry {
	var out []entry
	for _, p := range ps {
		if p.Kind == KindGroup && depth == 0 {
			out = append(out, entry{kind: KindGroup, title: p.Title})
			for _, c := range p.Pages {
				out = append(out, entriesOf([]Page{c}, 0)...)
			}
			continue
		}
		file := p.Path
		if p.Kind == KindLink {
			file = p.Href
		}
		out = append(out, entry{depth: depth, kind: p.Kind, title: p.Title, file: file})
		out = append(out, entriesOf(p.Pages, depth+1)...)
	}
	return out
}

func sameEntries(a, b []entry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// rewrite is a changed page's file: the original's front matter when the
// fields it gives did not change (else the original's keys with the new
// values), its heading line when the title did not change, and the new
// markdown, with the original's line endings.
func rewrite(orig []byte, o, p Page) []byte {
	if orig == nil {
		return pageFile(p)
	}
	fm, rest := frontMatter(orig)
	crlf := bytes.Contains(orig, []byte("\r\n"))
	nl := "\n"
	if crlf {
		nl = "\r\n"
	}
	var b bytes.Buffer
	sameMeta := o.Description == p.Description && o.Icon == p.Icon && o.Emoji == p.Emoji && o.Hidden == p.Hidden
	if sameMeta {
		b.Write(orig[:len(orig)-len(rest)])
	} else {
		if fm == nil {
			fm = map[string]any{}
		}
		set := func(k string, v any, keep bool) {
			if keep {
				fm[k] = v
			} else {
				delete(fm, k)
			}
		}
		set("description", p.Description, p.Description != "")
		set("icon", p.Icon, p.Icon != "")
		set("emoji", p.Emoji, p.Emoji != "")
		set("hidden", true, p.Hidden)
		if len(fm) > 0 {
			y, _ := yaml.Marshal(fm)
			b.WriteString("---" + nl + toEOL(string(y), nl) + "---" + nl)
			if skipBlank(rest, 0) == 0 {
				b.WriteString(nl)
			}
		}
	}
	// The heading: the original's lines up to the markdown, when the title is the same.
	i := skipBlank(rest, 0)
	line, next := lineAt(rest, i)
	if h1.Match(line) {
		if o.Title == p.Title {
			end := skipBlank(rest, next)
			b.Write(rest[:end])
			if end == next && p.Markdown != "" {
				b.WriteString(nl) // a blank line between the heading and the markdown
			}
		} else {
			b.WriteString("# " + oneLine(p.Title) + nl + nl)
		}
	} else {
		b.Write(rest[:i])
		if o.Title != p.Title {
			b.WriteString("# " + oneLine(p.Title) + nl + nl)
		}
	}
	md := p.Markdown
	if md != "" && !strings.HasSuffix(md, "\n") {
		md += "\n"
	}
	b.WriteString(toEOL(md, nl))
	return b.Bytes()
}

// skipBlank skips empty lines from i.
func skipBlank(b []byte, i int) int {
	for {
		switch {
		case bytes.HasPrefix(b[i:], []byte("\n")):
			i++
		case bytes.HasPrefix(b[i:], []byte("\r\n")):
			i += 2
		default:
			return i
		}
	}
}

// lineAt is the line at i without its end, and where the next starts.
func lineAt(b []byte, i int) ([]byte, int) {
	end := bytes.IndexByte(b[i:], '\n')
	if end < 0 {
		return b[i:], len(b)
	}
	return bytes.TrimRight(b[i:i+end], "\r"), i + end + 1
}

func toEOL(s, nl string) string {
	if nl == "\n" {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", nl)
}

func uniquePath(taken map[string]bool, base, suffix string) string {
	p := base + suffix
	for i := 2; taken[p]; i++ {
		p = fmt.Sprintf("%s-%d%s", base, i, suffix)
	}
	return p
}

// pageFile is a page's file: front matter when it has any, its title as a
// first-level heading, its markdown.
func pageFile(p Page) []byte {
	var b strings.Builder
	fm := map[string]any{}
	if p.Description != "" {
		fm["description"] = p.Description
	}
	if p.Icon != "" {
		fm["icon"] = p.Icon
	}
	if p.Emoji != "" {
		fm["emoji"] = p.Emoji
	}
	if p.Hidden {
		fm["hidden"] = true
	}
	if len(p.Layout) > 0 {
		fm["layout"] = p.Layout
	}
	if len(fm) > 0 {
		y, _ := yaml.Marshal(fm)
		b.WriteString("---\n")
		b.Write(y)
		b.WriteString("---\n\n")
	}
	b.WriteString("# " + oneLine(p.Title) + "\n\n")
	b.WriteString(p.Markdown)
	if p.Markdown != "" && !strings.HasSuffix(p.Markdown, "\n") {
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func escapeTitle(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(oneLine(s))
}

func escapeLink(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(p)
}
