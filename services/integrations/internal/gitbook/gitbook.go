// Package gitbook reads and writes GitBook's Git repository layout, so that
// repositories synced with GitBook import unchanged: an optional
// .gitbook.yaml (root, structure.readme, structure.summary, redirects), SUMMARY.md
// (headings are page groups, nested lists nested pages), README.md as the
// first page, page files as markdown with YAML front matter (description,
// icon, hidden, layout) and files under .gitbook/assets/. Without a
// SUMMARY.md the tree of markdown files gives the pages.
//
// It works on a repository's files in memory (path → bytes) and knows
// nothing of Git or of the content service.
package gitbook

import (
	"bytes"
	"github.com/docspub/platform/libs/slug"
	"mime"
	"path"
	"regexp"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// Page kinds.
const (
	KindDocument = "document"
	KindGroup    = "group"
	// KindLink is an entry of SUMMARY.md that links (an anchor of a
	// page, a URL) rather than names a page file: Href is its
	// destination, as written.
	KindLink = "link"
)

// Page is a page of the tree.
type Page struct {
	Kind        string         `json:"kind"`
	Title       string         `json:"title"`
	Slug        string         `json:"slug"`
	Description string         `json:"description,omitempty"`
	Icon        string         `json:"icon,omitempty"`
	Emoji       string         `json:"emoji,omitempty"`
	Hidden      bool           `json:"hidden,omitempty"`
	Layout      map[string]any `json:"layout,omitempty"`
	// Options and Cover are what Layout and the cover keys of the front
	// matter say (nil: GitBook's defaults, no cover).
	Options  *Options `json:"-"`
	Cover    *Cover   `json:"-"`
	Markdown string   `json:"markdown"`
	Path     string   `json:"path,omitempty"` // the page's file, relative to the repository
	Href     string   `json:"href,omitempty"` // a link page's destination, as SUMMARY.md writes it
	Pages    []Page   `json:"pages"`
}

// File is a file of the space: its name and where it is in the repository.
type File struct {
	Name        string `json:"name"`
	Path        string `json:"path"`
	ContentType string `json:"contentType"`
}

// Include is a block of markdown pages reuse ({% include %}): a file
// under .gitbook/includes/, named by its base name.
type Include struct {
	Name     string `json:"name"`
	Path     string `json:"path"`
	Markdown string `json:"markdown"`
}

// Tree is what a repository holds in the layout.
type Tree struct {
	Pages    []Page
	Files    []File
	Includes []Include
	Summary  string // the path of SUMMARY.md, when there is one
	// Redirects are .gitbook.yaml's redirects that name a page of the
	// tree, in the file's order.
	Redirects []Redirect
	// Problems say what of the repository was left out, and why (a
	// redirect that is malformed or names no page): at most
	// limits.Problems of them, the last one counting the rest.
	Problems []string
}

// Redirect is a redirect of .gitbook.yaml: readers asking for Path, a
// page's path under the space's root that no page has, are sent to the
// page read from the file File.
type Redirect struct {
	// Path is the old path: its segments joined by "/", no leading or
	// trailing slash, percent-escapes decoded.
	Path string
	// File is the page's file, relative to the repository.
	File string
	// Page is where the page is in Tree.Pages: its index among the
	// top-level pages, then among its parent's pages, down to it.
	Page []int
}

// Paths lists the repository files the tree was read from: its page files,
// its files and its SUMMARY.md.
func (t Tree) Paths() []string {
	var out []string
	if t.Summary != "" {
		out = append(out, t.Summary)
	}
	var walk func(ps []Page)
	walk = func(ps []Page) {
		for _, p := range ps {
			if p.Path != "" {
				out = append(out, p.Path)
			}
			walk(p.Pages)
		}
	}
	walk(t.Pages)
	for _, f := range t.Files {
		out = append(out, f.Path)
	}
	return out
}

// AssetsDir is where files live, under the docs root; IncludesDir where
// reusable contents do.
const (
	AssetsDir   = ".gitbook/assets"
	IncludesDir = ".gitbook/includes"
)

// Clean cleans a repository sub-directory ("" for the top); ok is false for
// one that leaves the repository.
func Clean(dir string) (string, bool) {
	dir = strings.TrimSpace(dir)
	if strings.ContainsRune(dir, '\\') || strings.ContainsRune(dir, 0) {
		return "", false
	}
	for _, seg := range strings.Split(dir, "/") {
		if seg == ".." {
			return "", false
		}
	}
	return strings.Trim(path.Clean("/"+dir), "/"), true
}

func join(dir, name string) string {
	if dir == "" {
		return path.Clean(name)
	}
	return path.Clean(dir + "/" + name)
}

// ContentType guesses a file's content type from its name.
func ContentType(name string) string {
	if t := mime.TypeByExtension(strings.ToLower(path.Ext(name))); t != "" {
		return t
	}
	return "application/octet-stream"
}

// frontMatter splits a page file into its front matter and its body.
func frontMatter(b []byte) (map[string]any, []byte) {
	s := b
	if !bytes.HasPrefix(s, []byte("---\n")) && !bytes.HasPrefix(s, []byte("---\r\n")) {
		return nil, b
	}
	rest := s[bytes.IndexByte(s, '\n')+1:]
	end := -1
	for off := 0; off < len(rest); {
		line := rest[off:]
		nl := bytes.IndexByte(line, '\n')
		if nl < 0 {
			nl = len(line)
		}
		if t := bytes.TrimRight(line[:nl], "\r"); string(t) == "---" {
			end = off
			rest = rest[min(off+nl+1, len(rest)):]
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return nil, b
	}
	var fm map[string]any
	if err := yaml.Unmarshal(s[bytes.IndexByte(s, '\n')+1:][:end], &fm); err != nil {
		return nil, b
	}
	return fm, rest
}

var h1 = regexp.MustCompile(`^#[ \t]+(.+?)[ \t#]*$`)

// body reads a page file: its front matter into p, its first-level heading
// as the title (when title is ""), and the markdown after it.
func body(p *Page, b []byte) {
	fm, rest := frontMatter(b)
	if v, ok := fm["description"].(string); ok {
		p.Description = v
	}
	if v, ok := fm["icon"].(string); ok {
		p.Icon = v
	}
	if v, ok := fm["emoji"].(string); ok {
		p.Emoji = v
	}
	if v, ok := fm["hidden"].(bool); ok {
		p.Hidden = v
	}
	if v, ok := fm["layout"].(map[string]any); ok {
		p.Layout = v
	}
	p.Options, p.Cover = layoutOf(fm)
	md := strings.ReplaceAll(string(rest), "\r\n", "\n")
	md = strings.TrimLeft(md, "\n")
	line, after, _ := strings.Cut(md, "\n")
	if m := h1.FindStringSubmatch(line); m != nil {
		if p.Title == "" {
			p.Title = m[1]
		}
		md = strings.TrimLeft(after, "\n")
	}
	p.Markdown = md
}

// Slugify makes a page slug of a name: lower-case letters and digits, other
// runs one dash.
func Slugify(s string) string { return slug.Make(s) }

// titleOf makes a title of a file name: "getting-started.md" → "Getting started".
func titleOf(name string) string {
	name = strings.TrimSuffix(path.Base(name), path.Ext(name))
	name = strings.NewReplacer("-", " ", "_", " ").Replace(name)
	if name == "" {
		return "Untitled"
	}
	r := []rune(name)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

func isMarkdown(p string) bool { return strings.EqualFold(path.Ext(p), ".md") }
