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
	"image"
	_ "image/gif" // image headers for files' dimensions
	_ "image/jpeg"
	_ "image/png"
	"io"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// FilePrefix starts the markdown link of an imported file: "files/<fileId>".
const FilePrefix = "files/"

// BlobPutter stores file bytes (revision.Store implements it).
type BlobPutter interface {
	PutBlob(ctx context.Context, owner revision.Owner, name, contentType string, r io.Reader) (id string, size int64, err error)
}

// Options bound a crawl; zero values take the limits of package limits.
type Options struct {
	Owner       revision.Owner // who the stored images belong to
	MaxDepth    int            // links followed from the start page (limits.ImportDepth)
	MaxPages    int            // pages imported (limits.ImportPages)
	MaxMarkdown int            // bytes of markdown imported (limits.ImportMarkdown)
	Time        time.Duration  // how long the crawl fetches pages (limits.ImportTime)
}

func (o Options) withDefaults() Options {
	if o.MaxDepth <= 0 {
		o.MaxDepth = limits.ImportDepth
	}
	if o.MaxPages <= 0 {
		o.MaxPages = limits.ImportPages
	}
	if o.MaxMarkdown <= 0 {
		o.MaxMarkdown = limits.ImportMarkdown
	}
	if o.Time <= 0 {
		o.Time = limits.ImportTime
	}
	return o
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
	client    *http.Client
	blobs     BlobPutter
	opts      Options
	site      *url.URL
	images    map[string]string // absolute URL → file id
	fileBytes int64             // bytes of the images stored
	paths     map[string]bool
	failed    []*url.URL // same-site pages that could not be fetched
	markdown  int        // bytes of markdown imported
	oversized bool       // a page converted to too much markdown
	res       Result
}

// Website imports the site at startURL: the start page, then the same-site
// (same scheme and host) pages it links to, breadth first, up to
// opts.MaxDepth links away and opts.MaxPages pages. client must come from
// urlguard. A start URL that is not http(s) or cannot be fetched is a 400
// naming "url"; later pages that fail are skipped.
//
// Every bound of package limits applies: the HTML read of a page, the
// nesting given to the converter, the markdown of a page (a page over it is
// skipped) and of the import (pages past it are not imported; a 413 when
// not even one fits), the pages requested, the images stored and their
// bytes, and the crawl's time (pages not fetched within opts.Time are not
// imported). The crawl stops, with ctx's error, as soon as ctx is done.
func Website(ctx context.Context, client *http.Client, blobs BlobPutter, startURL string, opts Options) (Result, error) {
	opts = opts.withDefaults()
	start, err := url.Parse(strings.TrimSpace(startURL))
	if err != nil || (start.Scheme != "http" && start.Scheme != "https") || start.Host == "" {
		return Result{}, apierr.Invalid("url", "must be an absolute http or https URL")
	}
	start.Fragment = ""
	c := &crawl{client: client, blobs: blobs, opts: opts, site: start, images: map[string]string{}, paths: map[string]bool{}}
	fetchCtx, cancel := context.WithTimeout(ctx, opts.Time)
	defer cancel()

	type item struct {
		u     *url.URL
		depth int
	}
	queue := []item{{start, 0}}
	seen := map[string]bool{start.String(): true}
	fetches := 0
	for len(queue) > 0 && len(c.res.Pages) < opts.MaxPages && fetches < limits.ImportFetches && c.markdown < opts.MaxMarkdown {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		if fetchCtx.Err() != nil {
			break // out of time: import what was fetched
		}
		it := queue[0]
		queue = queue[1:]
		fetches++
		doc, final, err := c.fetchPage(fetchCtx, it.u)
		if err != nil {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			if it.depth == 0 {
				return Result{}, startError(err)
			}
			c.failed = append(c.failed, it.u)
			continue
		}
		for _, l := range c.links(doc, final) {
			if !seen[l.String()] {
				seen[l.String()] = true
				if it.depth < opts.MaxDepth {
					queue = append(queue, item{l, it.depth + 1})
				}
			}
		}
		p, err := c.page(ctx, fetchCtx, doc, final)
		switch {
		case errors.Is(err, errTooMuchMarkdown):
			c.oversized = true
			continue
		case errors.Is(err, errUnconvertible):
			continue
		case err != nil:
			return Result{}, err
		}
		if c.markdown+len(p.Markdown) > opts.MaxMarkdown {
			c.oversized = true
			break
		}
		c.markdown += len(p.Markdown)
		c.res.Pages = append(c.res.Pages, p)
	}
	if len(c.res.Pages) == 0 && c.oversized {
		return Result{}, apierr.TooLarge("url: the page converts to more markdown than an import may hold (%d KiB per page, %d KiB in all)",
			limits.PageMarkdown>>10, opts.MaxMarkdown>>10)
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
// instead of passing them as working external links. Each page's markdown
// is read once.
func (c *crawl) relink() {
	byURL := map[string]string{}
	for _, u := range c.failed {
		byURL[u.String()] = c.path(u)
	}
	for _, p := range c.res.Pages {
		byURL[p.URL] = p.Path
	}
	for i, p := range c.res.Pages {
		c.res.Pages[i].Markdown = relinkPage(p.Markdown, path.Dir(p.Path), byURL)
	}
}

// relinkPage rewrites the link destinations "](<url>)" and "](<url>#" of md
// whose URL is in byURL.
func relinkPage(md, dir string, byURL map[string]string) string {
	var b strings.Builder
	rest := md
	for {
		i := strings.Index(rest, "](")
		if i < 0 {
			break
		}
		b.WriteString(rest[:i+2])
		rest = rest[i+2:]
		end := strings.IndexAny(rest, ")# \n")
		if end < 0 {
			continue
		}
		if target, ok := byURL[rest[:end]]; ok && (rest[end] == ')' || rest[end] == '#') {
			b.WriteString(relative(dir, target))
			rest = rest[end:]
		}
	}
	if b.Len() == 0 {
		return md
	}
	b.WriteString(rest)
	return b.String()
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

// fetchPage GETs an HTML page and parses it (at most limits.PageHTML
// bytes); the URL returned is the one after redirects.
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
	doc, err := parse(resp.Body)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", u, err)
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

// page converts a fetched document: the images are downloaded (with
// fetchCtx) and stored (with ctx) and their sources replaced by file links,
// links are made absolute, then the main content becomes markdown.
func (c *crawl) page(ctx, fetchCtx context.Context, doc *html.Node, u *url.URL) (Imported, error) {
	title, content := extract(doc)
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
			id, err := c.image(ctx, fetchCtx, src)
			if err != nil {
				return Imported{}, err
			}
			if id != "" {
				setAttr(n, "src", FilePrefix+id)
			}
		}
	}
	md, err := toMarkdown(ctx, content)
	if err != nil {
		return Imported{}, err
	}
	p := c.path(u)
	if title == "" {
		title = titleOf(path.Base(p))
	}
	return Imported{Path: p, Title: title, Markdown: md, URL: u.String()}, nil
}

// image downloads an image once and stores it as a file with its
// dimensions; an image that cannot be fetched, is not an image, is larger
// than limits.FileBytes or comes after the import's limits of images is
// left as a link to its URL (""). Only a failing blob store is an error.
func (c *crawl) image(ctx, fetchCtx context.Context, u *url.URL) (string, error) {
	key := u.String()
	if id, ok := c.images[key]; ok {
		return id, nil
	}
	c.images[key] = ""
	if len(c.res.Files) >= limits.ImportImages || c.fileBytes >= limits.ImportFileBytes {
		return "", nil
	}
	resp, err := c.get(fetchCtx, u)
	if err != nil {
		return "", nil
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, limits.FileBytes+1))
	if err != nil || resp.StatusCode != http.StatusOK || len(b) > limits.FileBytes || c.fileBytes+int64(len(b)) > limits.ImportFileBytes {
		return "", nil
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if !strings.HasPrefix(ct, "image/") {
		ct = http.DetectContentType(b)
		if !strings.HasPrefix(ct, "image/") {
			return "", nil
		}
	}
	name := clean(path.Base(u.Path), limits.FileName)
	if name == "" || name == "/" || name == "." {
		name = "image"
	}
	blob, size, err := c.blobs.PutBlob(ctx, c.opts.Owner, name, ct, bytes.NewReader(b))
	if err != nil {
		return "", fmt.Errorf("store image %s: %w", name, err)
	}
	c.fileBytes += size
	f := revision.File{ID: ids.New(), Name: name, ContentType: ct, Size: size, Blob: blob}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(b)); err == nil {
		f.Width, f.Height = cfg.Width, cfg.Height // the header only: pixels are never decoded here
	}
	c.res.Files = append(c.res.Files, f)
	c.images[key] = f.ID
	return f.ID, nil
}

// path derives a page's path from its URL: the slugs of the URL path's
// segments, without a trailing "index" and file extensions; the site's root
// is "home". Two URLs with the same path (different queries) get "-2", ....
// A path has at most limits.ImportPathDepth levels (the segments of a
// deeper URL join the last level) of at most limits.PageSlug characters.
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
	if n := limits.ImportPathDepth; len(segs) > n {
		segs = append(segs[:n-1], strings.Join(segs[n-1:], "-"))
	}
	for i, s := range segs {
		if len(s) > limits.PageSlug {
			segs[i] = strings.TrimRight(s[:limits.PageSlug], "-")
		}
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
