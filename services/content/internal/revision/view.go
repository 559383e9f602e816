package revision

import (
	"net/url"
	"time"
)

// Page formats.
const (
	FormatMarkdown = "markdown"
	FormatDocument = "document"
)

// RevisionView is a revision as the API returns it (Revision).
type RevisionView struct {
	Object           string                `json:"object"` // "revision"
	ID               string                `json:"id"`
	Type             string                `json:"type"`
	Parents          []string              `json:"parents"`
	MergedFrom       any                   `json:"mergedFrom,omitempty"` // the change request of a merge
	Pages            []PageView            `json:"pages"`
	Files            []FileView            `json:"files"`
	ReusableContents []ReusableContentView `json:"reusableContents"`
	Tags             []any                 `json:"tags"`
	CreatedAt        time.Time             `json:"createdAt"`
	Git              *GitView              `json:"git,omitempty"`
	URLs             RevisionURLs          `json:"urls"`
}

// RevisionURLs are a revision's URLs.
type RevisionURLs struct {
	App string `json:"app"`
}

// PageView is a page as the API returns it (RevisionPage): a document
// (kind "sheet", type "document") or a group. A document carries its
// markdown, or its JSON document when asked for the document format.
type PageView struct {
	ID          string     `json:"id"`
	Title       string     `json:"title"`
	Emoji       string     `json:"emoji,omitempty"`
	Icon        string     `json:"icon,omitempty"`
	CreatedAt   time.Time  `json:"createdAt,omitzero"`
	UpdatedAt   time.Time  `json:"updatedAt,omitzero"`
	Kind        string     `json:"kind"`
	Type        string     `json:"type"`
	URLs        *PageURLs  `json:"urls,omitempty"`
	Slug        string     `json:"slug"`
	Path        string     `json:"path"`
	Description string     `json:"description,omitempty"`
	Markdown    *string    `json:"markdown,omitempty"`
	Document    Node       `json:"document,omitempty"`
	Pages       []PageView `json:"pages"`
	Layout      *Layout    `json:"layout,omitempty"`
	Cover       *CoverView `json:"cover,omitempty"`
	Href        string     `json:"href,omitempty"`   // link pages
	Target      Node       `json:"target,omitempty"` // link pages: a ContentRef
	Tags        []any      `json:"tags,omitzero"`
	Hidden      bool       `json:"hidden"`
}

// CoverView is a document's cover as the API returns it
// (RevisionPageDocumentCover): its image a file of the revision or a URL.
type CoverView struct {
	Ref     Node    `json:"ref"`
	RefDark Node    `json:"refDark,omitempty"`
	YPos    float64 `json:"yPos"`
	Height  int     `json:"height,omitempty"`
}

// PageURLs are a page's URLs.
type PageURLs struct {
	App string `json:"app"`
}

// Layout is a document page's layout options (RevisionPageLayoutOptions);
// every page shows everything, at the default width.
type Layout struct {
	Width           string `json:"width"`
	Cover           bool   `json:"cover"`
	CoverSize       string `json:"coverSize"`
	CoverMask       string `json:"coverMask"`
	Title           bool   `json:"title"`
	Description     bool   `json:"description"`
	TableOfContents bool   `json:"tableOfContents"`
	Outline         bool   `json:"outline"`
	Pagination      bool   `json:"pagination"`
	Metadata        bool   `json:"metadata"`
	Tags            bool   `json:"tags"`
	Actions         bool   `json:"actions"`
	Anchors         bool   `json:"anchors"`
}

// DefaultLayout is a page's layout when its own does not say.
var DefaultLayout = defaultLayout

var defaultLayout = Layout{
	Width: "default", CoverSize: "hero", CoverMask: "none",
	Title: true, Description: true, TableOfContents: true, Outline: true, Pagination: true,
	Metadata: true, Tags: true, Actions: true, Anchors: true,
}

// FileView is a file as the API returns it (RevisionFile).
type FileView struct {
	ID          string      `json:"id"`
	Name        string      `json:"name"`
	ContentType string      `json:"contentType"`
	DownloadURL string      `json:"downloadURL"`
	Size        int64       `json:"size"`
	Dimensions  *Dimensions `json:"dimensions,omitempty"`
}

// Dimensions are an image's size in pixels.
type Dimensions struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// ReusableContentView is a reusable content as a revision lists it.
type ReusableContentView struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// untitled stands for an empty title, which the API does not allow.
const untitled = "Untitled"

// viewer renders one revision's views.
type viewer struct {
	s    *Service
	rev  *Revision
	base string // app URL of the revision's pages
	res  *Resolver
}

func (s *Service) viewer(r *Revision, current string) *viewer {
	base := s.urls.InApp("/s/" + r.Space)
	if r.ID != current {
		base += "/~/revisions/" + r.ID
	}
	return &viewer{s: s, rev: r, base: base}
}

func (v *viewer) resolver() *Resolver {
	if v.res == nil {
		v.res = NewResolver(v.rev, v.s.urls)
	}
	return v.res
}

// pages renders a tree whose parent has path prefix; children carry
// their markdown.
func (v *viewer) pages(ps []Page, prefix string) []PageView {
	out := make([]PageView, len(ps))
	for i := range ps {
		out[i] = v.page(Flat{Page: &ps[i], Path: join(prefix, ps[i].Slug)}, FormatMarkdown)
	}
	return out
}

func join(prefix, slug string) string {
	if prefix == "" {
		return slug
	}
	return prefix + "/" + slug
}

// page renders one page with its children in format.
func (v *viewer) page(f Flat, format string) PageView {
	p := f.Page
	pv := PageView{
		ID: p.ID, Title: p.Title, Emoji: p.Emoji, CreatedAt: p.CreatedAt.UTC(), UpdatedAt: p.UpdatedAt.UTC(),
		Slug: p.Slug, Path: f.Path, Pages: v.pages(p.Pages, f.Path), Icon: p.Icon, Hidden: p.Hidden,
	}
	if pv.Title == "" {
		pv.Title = untitled
	}
	if p.Kind == KindGroup {
		pv.Kind, pv.Type = "group", "group"
		return pv
	}
	if p.Kind == KindLink {
		pv.Kind, pv.Type, pv.Href = "link", "link", p.Href
		pv.Target = v.linkTarget(p.Href)
		return pv
	}
	pv.Kind, pv.Type = "sheet", "document"
	pv.URLs = &PageURLs{App: v.base + "/" + f.Path}
	pv.Description = p.Description
	layout := defaultLayout
	if p.Layout != nil {
		layout = *p.Layout
	}
	pv.Layout, pv.Tags, pv.Cover = &layout, []any{}, v.cover(p.Cover)
	if format == FormatDocument {
		from := f
		pv.Document = ToDocument(p.Markdown, func(href string) Target { return v.resolver().Resolve(from, href) })
	} else {
		md := p.Markdown
		pv.Markdown = &md
	}
	return pv
}

func (v *viewer) file(f File) FileView {
	r := v.rev
	fv := FileView{
		ID: f.ID, Name: f.Name, ContentType: f.ContentType, Size: f.Size,
		DownloadURL: v.s.urls.Location("/spaces/" + r.Space + "/revisions/" + r.ID + "/files/" + f.ID + "/download"),
	}
	if fv.ContentType == "" {
		fv.ContentType = "application/octet-stream"
	}
	if f.Width > 0 && f.Height > 0 {
		fv.Dimensions = &Dimensions{Width: f.Width, Height: f.Height}
	}
	return fv
}

func (v *viewer) revision() RevisionView {
	r := v.rev
	rv := RevisionView{
		Object: "revision", ID: r.ID, Type: r.Type, Parents: r.Parents,
		Pages: v.pages(r.Pages, ""), Files: make([]FileView, len(r.Files)),
		ReusableContents: make([]ReusableContentView, len(r.ReusableContents)),
		Tags:             []any{}, CreatedAt: r.CreatedAt.UTC(),
		URLs: RevisionURLs{App: v.s.urls.InApp("/s/" + r.Space + "/~/revisions/" + r.ID)},
	}
	if rv.Type == "" {
		rv.Type = TypeEdits
	}
	rv.Git = r.Git.view()
	if rv.Parents == nil {
		rv.Parents = []string{}
	}
	for i, f := range r.Files {
		rv.Files[i] = v.file(f)
	}
	for i, rc := range r.ReusableContents {
		rv.ReusableContents[i] = ReusableContentView(rc)
	}
	return rv
}

// linkTarget is the ContentRef a link page's destination names: a page of
// the revision (with its anchor), resolved from the docs root, or else
// the URL as written.
func (v *viewer) linkTarget(href string) Node {
	t := v.resolver().Resolve(Flat{Page: &Page{}}, href)
	switch {
	case t.Kind == TargetPage && t.Page != "" && t.Anchor != "":
		return Node{"kind": "anchor", "page": t.Page, "anchor": t.Anchor}
	case t.Kind == TargetPage && t.Page != "":
		return Node{"kind": "page", "page": t.Page}
	}
	return Node{"kind": "url", "url": href}
}

// cover is a document's cover as the API shows it: nil without one, or
// when its image is neither a file of the revision nor a URL.
func (v *viewer) cover(c *Cover) *CoverView {
	if c == nil {
		return nil
	}
	ref := v.imageRef(c.Src)
	if ref == nil {
		return nil
	}
	return &CoverView{Ref: ref, RefDark: v.imageRef(c.SrcDark), YPos: c.YPos, Height: c.Height}
}

// imageRef is the ContentRef of an image's source: a file of the revision
// by its name, or an http(s) URL; nil for anything else.
func (v *viewer) imageRef(src string) Node {
	if src == "" {
		return nil
	}
	if u, err := url.Parse(src); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		return Node{"kind": "url", "url": src}
	}
	if f, ok := v.resolver().file(src); ok {
		return Node{"kind": "file", "file": f.ID}
	}
	return nil
}
