// Package importer imports content from outside into a space's page tree:
// Website crawls a site over HTTP (through the URL guard's client) and
// converts its pages from HTML to markdown, downloading their images as
// files; Apply merges what was imported into an existing tree by path, so
// that importing again updates pages instead of duplicating them.
//
// Images are stored with the BlobPutter and referenced from the markdown as
// "files/<fileId>" (a relative link naming a file of the same revision),
// which is how content's markdown refers to files.
package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/content/internal/revision"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Defaults and bounds of a crawl.
const (
	DefaultMaxDepth = 2
	DefaultMaxPages = 50
	MaxImages       = 200
	maxPageBytes    = 5 << 20
	maxImageBytes   = 10 << 20
)

// FilePrefix starts the markdown link of an imported file: "files/<fileId>".
const FilePrefix = "files/"

// BlobPutter stores file bytes (revision.Store implements it).
type BlobPutter interface {
	PutBlob(ctx context.Context, name, contentType string, r io.Reader) (id string, size int64, err error)
}

// Options bound a crawl; zero values take the defaults.
type Options struct {
	MaxDepth int // links followed from the start page (0: DefaultMaxDepth)
	MaxPages int // pages imported (0: DefaultMaxPages)
}

// Imported is one imported page.
type Imported struct {
	Path     string // slugs joined by "/", from the URL's path ("home" for "/")
	Title    string // of <title>, else of the first <h1>, else from the path
	Markdown string
	URL      string // where it was fetched
}

// Result is what a crawl imported.
type Result struct {
	Pages    []Imported
	Files    []revision.File
	Imported int // pages imported
	Total    int // same-site pages found (imported or not)
}

type crawl struct {
	client *http.Client
	blobs  BlobPutter
	site   *url.URL
	images map[string]string // absolute URL → file id
	paths  map[string]bool
	failed []*url.URL // same-site pages that could not be fetched
	res    Result
}

// Website imports the site at startURL: the start page, then the same-site
// (same scheme and host) pages it links to, breadth first, up to
// opts.MaxDepth links away and opts.MaxPages pages. client must come from
// urlguard. A start URL that is not http(s) or cannot be fetched is a 400
// naming "url"; later pages that fail are skipped.
func Website(ctx context.Context, client *http.Client, blobs BlobPutter, startURL string, opts Options) (Result, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultMaxDepth
	}
	if opts.MaxPages <= 0 {
		opts.MaxPages = DefaultMaxPages
	}
	start, err := url.Parse(strings.TrimSpace(startURL))
	if err != nil || (start.Scheme != "http" && start.Scheme != "https") || start.Host == "" {
		return Result{}, apierr.Invalid("url", "must be an absolute http or https URL")
	}
	start.Fragment = ""
	c := &crawl{client: client, blobs: blobs, site: start, images: map[string]string{}, paths: map[string]bool{}}

	type item struct {
		u     *url.URL
		depth int
	}
	queue := []item{{start, 0}}
	seen := map[string]bool{start.String(): true}
	for len(queue) > 0 && len(c.res.Pages) < opts.MaxPages {
		it := queue[0]
		queue = queue[1:]
		doc, final, err := c.fetchPage(ctx, it.u)
		if err != nil {
			if it.depth == 0 {
				return Result{}, startError(err)
			}
			c.failed = append(c.failed, it.u)
			continue
		}
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		for _, l := range c.links(doc, final) {
			if !seen[l.String()] {
				seen[l.String()] = true
				if it.depth < opts.MaxDepth {
					queue = append(queue, item{l, it.depth + 1})
				}
			}
		}
		p, err := c.page(ctx, doc, final)
		if err != nil {
			return Result{}, err
		}
		c.res.Pages = append(c.res.Pages, p)
	}
	c.relink()
	c.res.Imported, c.res.Total = len(c.res.Pages), len(seen)
	return c.res, nil
}

// relink rewrites the links between imported pages into relative paths
// (resolved against the linking page's parent, as links between the
// markdown files of a Git export), so that they stay in the space. Links to
// same-site pages that could not be fetched become relative too: they point
// at pages the space does not have, so the link check reports them broken
// instead of passing them as working external links.
func (c *crawl) relink() {
	byURL := map[string]string{}
	for _, u := range c.failed {
		byURL[u.String()] = c.path(u)
	}
	for _, p := range c.res.Pages {
		byURL[p.URL] = p.Path
	}
	for i, p := range c.res.Pages {
		md := p.Markdown
		for u, target := range byURL {
			if !strings.Contains(md, "]("+u) {
				continue
			}
			rel := relative(path.Dir(p.Path), target)
			md = strings.ReplaceAll(md, "]("+u+")", "]("+rel+")")
			md = strings.ReplaceAll(md, "]("+u+"#", "]("+rel+"#")
		}
		c.res.Pages[i].Markdown = md
	}
}

// relative is the path of target seen from the folder dir ("." at the top).
func relative(dir, target string) string {
	var from []string
	if dir != "." && dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(target, "/")
	n := 0
	for n < len(from) && n < len(to)-1 && from[n] == to[n] {
		n++
	}
	parts := make([]string, 0, len(from)-n+len(to)-n)
	for range from[n:] {
		parts = append(parts, "..")
	}
	return strings.Join(append(parts, to[n:]...), "/")
}

func startError(err error) error {
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae):
		return ae
	case errors.Is(err, urlguard.ErrBlocked):
		return apierr.Invalid("url", "points to an address that may not be fetched")
	default:
		return apierr.Invalid("url", "could not be fetched")
	}
}

func (c *crawl) sameSite(u *url.URL) bool {
	return u.Scheme == c.site.Scheme && strings.EqualFold(u.Host, c.site.Host)
}

// fetchPage GETs an HTML page and parses it; the URL returned is the one
// after redirects.
func (c *crawl) fetchPage(ctx context.Context, u *url.URL) (*html.Node, *url.URL, error) {
	resp, err := c.get(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, nil, apierr.Invalid("url", "answered HTTP status %d", resp.StatusCode)
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "" && mt != "text/html" && mt != "application/xhtml+xml" {
		return nil, nil, apierr.Invalid("url", "is not an HTML page (%s)", mt)
	}
	doc, err := html.Parse(io.LimitReader(resp.Body, maxPageBytes))
	if err != nil {
		return nil, nil, fmt.Errorf("parse %s: %w", u, err)
	}
	final := *resp.Request.URL
	final.Fragment = ""
	return doc, &final, nil
}

func (c *crawl) get(ctx context.Context, u *url.URL) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "docspub-importer/1")
	return c.client.Do(req)
}

// links are the same-site page links of a document, absolute, without fragments.
func (c *crawl) links(doc *html.Node, base *url.URL) []*url.URL {
	var out []*url.URL
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.DataAtom != atom.A {
			continue
		}
		u := resolve(base, attr(n, "href"))
		if u == nil || !c.sameSite(u) {
			continue
		}
		u.Fragment = ""
		if ext := strings.ToLower(path.Ext(u.Path)); ext != "" && ext != ".html" && ext != ".htm" && ext != ".php" && ext != ".asp" && ext != ".aspx" {
			continue // a file, not a page
		}
		out = append(out, u)
	}
	return out
}

// page converts a fetched document: the images are downloaded and their
// sources replaced by file links, links are made absolute, then the main
// content (<main>, <article> or <body> without its navigation) becomes
// markdown.
func (c *crawl) page(ctx context.Context, doc *html.Node, u *url.URL) (Imported, error) {
	title := ""
	var h1, mainEl, article, body *html.Node
	var drop []*html.Node
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.Title:
			if title == "" {
				title = text(n)
			}
		case atom.H1:
			if h1 == nil {
				h1 = n
			}
		case atom.Main:
			if mainEl == nil {
				mainEl = n
			}
		case atom.Article:
			if article == nil {
				article = n
			}
		case atom.Body:
			body = n
		case atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Iframe:
			drop = append(drop, n)
		}
	}
	if title == "" && h1 != nil {
		title = text(h1)
	}
	for _, n := range drop {
		if n.Parent != nil {
			n.Parent.RemoveChild(n)
		}
	}
	content := body
	switch {
	case mainEl != nil:
		content = mainEl
	case article != nil:
		content = article
	case body != nil:
		for n := range body.Descendants() {
			if n.Type == html.ElementNode && (n.DataAtom == atom.Nav || n.DataAtom == atom.Header || n.DataAtom == atom.Footer) {
				drop = append(drop, n)
			}
		}
		for _, n := range drop {
			if n.Parent != nil {
				n.Parent.RemoveChild(n)
			}
		}
	}
	if content == nil {
		content = doc
	}
	for n := range content.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		switch n.DataAtom {
		case atom.A:
			if l := resolve(u, attr(n, "href")); l != nil {
				setAttr(n, "href", l.String())
			}
		case atom.Img:
			src := resolve(u, attr(n, "src"))
			if src == nil {
				continue
			}
			setAttr(n, "src", src.String())
			id, err := c.image(ctx, src)
			if err != nil {
				return Imported{}, err
			}
			if id != "" {
				setAttr(n, "src", FilePrefix+id)
			}
		}
	}
	md, err := htmltomarkdown.ConvertNode(content)
	if err != nil {
		return Imported{}, fmt.Errorf("convert %s: %w", u, err)
	}
	p := c.path(u)
	if title == "" {
		title = titleOf(path.Base(p))
	}
	return Imported{Path: p, Title: strings.TrimSpace(title), Markdown: strings.TrimSpace(string(md)) + "\n", URL: u.String()}, nil
}

// image downloads an image once and stores it as a file; an image that
// cannot be fetched or is not an image is left as a link to its URL ("").
// Only a failing blob store is an error.
func (c *crawl) image(ctx context.Context, u *url.URL) (string, error) {
	key := u.String()
	if id, ok := c.images[key]; ok {
		return id, nil
	}
	c.images[key] = ""
	if len(c.res.Files) >= MaxImages {
		return "", nil
	}
	resp, err := c.get(ctx, u)
	if err != nil {
		return "", nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
	if err != nil || resp.StatusCode != http.StatusOK || len(b) > maxImageBytes {
		return "", nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(ct, "image/") {
		ct = http.DetectContentType(b)
		if !strings.HasPrefix(ct, "image/") {
			return "", nil
		}
	}
	name := path.Base(u.Path)
	if name == "/" || name == "." {
		name = "image"
	}
	blob, size, err := c.blobs.PutBlob(ctx, name, ct, bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("store image %s: %w", name, err)
	}
	f := revision.File{ID: ids.New(), Name: name, ContentType: ct, Size: size, Blob: blob}
	c.res.Files = append(c.res.Files, f)
	c.images[key] = f.ID
	return f.ID, nil
}

// path derives a page's path from its URL: the slugs of the URL path's
// segments, without a trailing "index" and file extensions; the site's root
// is "home". Two URLs with the same path (different queries) get "-2", ....
func (c *crawl) path(u *url.URL) string {
	var segs []string
	for _, s := range strings.Split(u.Path, "/") {
		s = strings.TrimSuffix(s, path.Ext(s))
		if s = Slugify(s); s != "" {
			segs = append(segs, s)
		}
	}
	if n := len(segs); n > 0 && segs[n-1] == "index" {
		segs = segs[:n-1]
	}
	p := strings.Join(segs, "/")
	if p == "" {
		p = "home"
	}
	if c.paths[p] {
		for i := 2; ; i++ {
			if q := p + "-" + strconv.Itoa(i); !c.paths[q] {
				p = q
				break
			}
		}
	}
	c.paths[p] = true
	return p
}

// Slugify makes a path segment: lower-case ASCII letters and digits, other
// runs of characters as one "-".
func Slugify(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(s) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
			continue
		}
		dash = true
	}
	return b.String()
}

// titleOf makes a title of a slug: "getting-started" → "Getting started".
func titleOf(slug string) string {
	t := strings.ReplaceAll(slug, "-", " ")
	if t == "" {
		return "Untitled"
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

func resolve(base *url.URL, ref string) *url.URL {
	ref = strings.TrimSpace(ref)
	if ref == "" || strings.HasPrefix(ref, "#") {
		return nil
	}
	r, err := url.Parse(ref)
	if err != nil {
		return nil
	}
	u := base.ResolveReference(r)
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil
	}
	return u
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func setAttr(n *html.Node, key, val string) {
	for i, a := range n.Attr {
		if a.Key == key {
			n.Attr[i].Val = val
			return
		}
	}
	n.Attr = append(n.Attr, html.Attribute{Key: key, Val: val})
}

func text(n *html.Node) string {
	var b strings.Builder
	for d := range n.Descendants() {
		if d.Type == html.TextNode {
			b.WriteString(d.Data)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
