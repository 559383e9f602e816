package gitsynchttp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Limits of a revision built from a repository: content's revision limits,
// and a depth.
const (
	MaxPages = limits.RevisionPages
	MaxDepth = 10
	MaxFiles = limits.RevisionFiles
)

// Page is a page of a tree sent or read (ids are content's; an incoming
// page's id is matched by its path in the parent revision).
type Page struct {
	ID          string `json:"id,omitempty"`
	Kind        string `json:"kind"` // document or group
	Title       string `json:"title"`
	Slug        string `json:"slug"`
	Description string `json:"description,omitempty"`
	Emoji       string `json:"emoji,omitempty"`
	Icon        string `json:"icon,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	Markdown    string `json:"markdown"`
	Pages       []Page `json:"pages"`
}

// File is a file of a revision sent or read.
type File struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	Blob        string `json:"blob,omitempty"` // from POST blobs (sent only)
	// SHA256 is the hex SHA-256 of the bytes (read only): their ETag.
	SHA256 string `json:"sha256,omitempty"`
}

// Git is the commit of a revision.
type Git struct {
	OID     string `json:"oid"`
	Message string `json:"message"`
	Ref     string `json:"ref,omitempty"`
	URL     string `json:"url,omitempty"`
	// CreatedByService marks a commit the platform made (an export).
	CreatedByService bool `json:"createdByService,omitempty"`
}

// RevisionInput is the body of POST revisions.
type RevisionInput struct {
	// Parent is the revision the space must still point at (compare-and-set).
	Parent     string `json:"parent"`
	Standalone bool   `json:"standalone"`
	Pages      []Page `json:"pages"`
	Files      []File `json:"files"`
	Git        *Git   `json:"git"`
	// ReusableContents are added to the parent's, replacing those of the
	// same title (a repository's .gitbook/includes); nil keeps the parent's.
	ReusableContents []ReusableContentInput `json:"reusableContents"`
}

// ReusableContentInput is a reusable content of a revision to write.
type ReusableContentInput struct {
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// ContentView is the space's current revision.
type ContentView struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	Pages        []Page `json:"pages"`
	Files        []File `json:"files"`
	Git          *Git   `json:"git,omitempty"`
	// ReusableContents are the blocks pages include.
	ReusableContents []revision.ReusableContentView `json:"reusableContents"`
}

func contentOf(g access.Grant, r revision.Revision) ContentView {
	v := ContentView{Space: g.Space, Organization: g.Organization, Revision: r.ID, Pages: pagesOf(r.Pages), Files: []File{},
		ReusableContents: make([]revision.ReusableContentView, 0, len(r.ReusableContents))}
	for _, rc := range r.ReusableContents {
		v.ReusableContents = append(v.ReusableContents, revision.ReusableContentView(rc))
	}
	for _, f := range r.Files {
		v.Files = append(v.Files, File{ID: f.ID, Name: f.Name, ContentType: f.ContentType, Size: f.Size, SHA256: f.SHA256()})
	}
	if r.Git != nil {
		v.Git = &Git{OID: r.Git.OID, Message: r.Git.Message, Ref: r.Git.Ref, URL: r.Git.URL, CreatedByService: r.Git.CreatedByService}
	}
	return v
}

func pagesOf(ps []revision.Page) []Page {
	out := make([]Page, len(ps))
	for i, p := range ps {
		out[i] = Page{ID: p.ID, Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description, Emoji: p.Emoji,
			Icon: p.Icon, Hidden: p.Hidden, Markdown: p.Markdown, Pages: pagesOf(p.Pages)}
	}
	return out
}

// build stores a revision of the granted space made of in, after the
// space's current revision, and (unless standalone) points the space at it
// if it still points at in.Parent.
func (h *handlers) build(ctx context.Context, g access.Grant, in RevisionInput) (string, error) {
	if in.Parent == "" {
		return "", apierr.Invalid("parent", "is required")
	}
	if !in.Standalone && in.Parent != g.Revision {
		return "", apierr.Conflict("the space's content changed meanwhile (parent is not its revision)")
	}
	parent, err := h.revisions.Get(ctx, in.Parent)
	if err != nil || parent.Space != g.Space {
		return "", apierr.Invalid("parent", "is not a revision of this space")
	}
	if len(in.Files) > MaxFiles {
		return "", apierr.Invalid("files", "must have at most %d items", MaxFiles)
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := map[string]revision.Page{}
	for _, f := range revision.Flatten(parent.Pages) {
		old[f.Path] = *f.Page
	}
	count := 0
	pages, err := toPages(in.Pages, "", 1, old, now, &count)
	if err != nil {
		return "", err
	}
	oldFiles := map[string]revision.File{}
	for _, f := range parent.Files {
		oldFiles[f.Name] = f
	}
	files := make([]revision.File, 0, len(in.Files))
	for i, f := range in.Files {
		if f.Blob == "" || f.Name == "" {
			return "", apierr.Invalid(fmt.Sprintf("files[%d]", i), "needs a name and a blob")
		}
		id := revision.NewFileID()
		if o, ok := oldFiles[f.Name]; ok {
			id = o.ID
		}
		files = append(files, revision.File{ID: id, Name: f.Name, ContentType: f.ContentType, Size: f.Size, Blob: f.Blob})
	}
	rev := revision.Build(parent, revision.TypeEdits, pages, files, now)
	if in.ReusableContents != nil {
		if rev.ReusableContents, err = reusable(parent.ReusableContents, in.ReusableContents); err != nil {
			return "", err
		}
	}
	if in.Git != nil {
		rev.Git = &revision.Git{OID: in.Git.OID, Message: in.Git.Message, Ref: in.Git.Ref, URL: in.Git.URL,
			CreatedByService: in.Git.CreatedByService}
	}
	if err := h.revisions.Insert(ctx, rev); err != nil {
		return "", fmt.Errorf("store revision: %w", err)
	}
	if in.Standalone {
		return rev.ID, nil
	}
	if err := h.spaces.Import(ctx, g, in.Parent, rev.ID); err != nil {
		if errors.Is(err, apierr.ErrConflict) {
			return "", err
		}
		return "", fmt.Errorf("advance space %s: %w", g.Space, err)
	}
	return rev.ID, nil
}

// reusable adds in to the parent's reusable contents: one of the same
// title keeps its id and takes the new markdown.
func reusable(parent []revision.ReusableContent, in []ReusableContentInput) ([]revision.ReusableContent, error) {
	if len(in) > MaxFiles {
		return nil, apierr.Invalid("reusableContents", "must have at most %d items", MaxFiles)
	}
	out := append([]revision.ReusableContent{}, parent...)
	byTitle := map[string]int{}
	for i, rc := range out {
		byTitle[rc.Title] = i
	}
	for i, rc := range in {
		if strings.TrimSpace(rc.Title) == "" {
			return nil, apierr.Invalid(fmt.Sprintf("reusableContents[%d]", i), "needs a title")
		}
		if j, ok := byTitle[rc.Title]; ok {
			out[j].Markdown = rc.Markdown
			continue
		}
		byTitle[rc.Title] = len(out)
		out = append(out, revision.ReusableContent{ID: ids.New(), Title: rc.Title, Markdown: rc.Markdown})
	}
	return out, nil
}

func toPages(in []Page, prefix string, depth int, old map[string]revision.Page, now time.Time, count *int) ([]revision.Page, error) {
	if depth > MaxDepth {
		return nil, apierr.Invalid("pages", "must not be nested deeper than %d levels", MaxDepth)
	}
	out := make([]revision.Page, 0, len(in))
	for _, p := range in {
		if *count++; *count > MaxPages {
			return nil, apierr.Invalid("pages", "must have at most %d pages", MaxPages)
		}
		slug := p.Slug
		if slug == "" || revision.Slugify(slug) != slug {
			slug = revision.Slugify(p.Title)
		}
		if slug == "" {
			slug = "page"
		}
		path := slug
		if prefix != "" {
			path = prefix + "/" + slug
		}
		kind := revision.KindDocument
		if p.Kind == revision.KindGroup && depth == 1 {
			kind = revision.KindGroup
		}
		title := p.Title
		if title == "" {
			title = "Untitled"
		}
		rp := revision.Page{ID: revision.NewPageID(), Kind: kind, Title: title, Slug: slug, Emoji: p.Emoji,
			Description: p.Description, Icon: p.Icon, Hidden: p.Hidden, CreatedAt: now, UpdatedAt: now}
		if kind == revision.KindDocument {
			rp.Markdown = p.Markdown
		}
		if o, ok := old[path]; ok {
			rp.ID, rp.CreatedAt = o.ID, o.CreatedAt
			if o.Kind == rp.Kind && o.Title == rp.Title && o.Markdown == rp.Markdown && o.Description == rp.Description &&
				o.Emoji == rp.Emoji && o.Icon == rp.Icon && o.Hidden == rp.Hidden {
				rp.UpdatedAt = o.UpdatedAt
			}
		}
		kids, err := toPages(p.Pages, path, depth+1, old, now, count)
		if err != nil {
			return nil, err
		}
		rp.Pages = kids
		out = append(out, rp)
	}
	return out, nil
}
