package space

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Limits of a revision a Git import builds: content's revision limits, and
// a depth.
const (
	MaxImportPages = limits.RevisionPages
	MaxImportDepth = 10
	MaxImportFiles = limits.RevisionFiles
)

// GitImport is a revision read from a repository, to build over Parent.
type GitImport struct {
	// Parent is the revision the importer read: the space must still
	// point at it (compare-and-set), unless Standalone.
	Parent string
	// Standalone stores the revision without moving the space to it.
	Standalone bool
	Pages      []ImportPage
	Files      []ImportFile
	Git        *revision.Git
	// ReusableContents are added to the parent's, replacing those of the
	// same title (a repository's .gitbook/includes); nil keeps the parent's.
	ReusableContents []ImportReusable
	// Sync, when set, is the space's Git sync state after the import.
	Sync *GitSync
	// Redirects replace the parent's (an empty list removes them); nil
	// keeps the parent's.
	Redirects []ImportRedirect
}

// ImportRedirect is a redirect of an import: readers asking for Path (a
// page's path under the space's root, segments joined by "/") that no
// page has go to the page at Page in the import's pages (its index among
// the top-level pages, then among its parent's pages, down to it).
type ImportRedirect struct {
	Path string
	Page []int
}

// ImportPage is a page of an import: its id is the page's of the same
// path in the parent revision, or a new one.
type ImportPage struct {
	Kind, Title, Slug, Description, Emoji, Icon, Markdown string
	Hidden                                                bool
	// Href is a link page's destination (Kind revision.KindLink).
	Href   string
	Layout *revision.Layout
	Cover  *revision.Cover
	Pages  []ImportPage
}

// ImportFile is a file of an import, its bytes stored already (Blob): its
// id is the parent's file of the same name, or a new one.
type ImportFile struct {
	Name, ContentType, Blob string
	Size                    int64
}

// ImportReusable is a reusable content of an import.
type ImportReusable struct {
	Title, Markdown string
}

// ImportRevisions is what a Git import needs of the revision store.
type ImportRevisions interface {
	Get(ctx context.Context, id string) (revision.Revision, error)
	Insert(ctx context.Context, r revision.Revision) error
}

// GitImports builds the revisions Git imports bring and moves spaces to them.
type GitImports struct {
	spaces    *Service
	revisions ImportRevisions
}

// NewGitImports returns the Git import operation over the space service
// and the revision store.
func NewGitImports(spaces *Service, revisions ImportRevisions) *GitImports {
	return &GitImports{spaces: spaces, revisions: revisions}
}

// Import stores a revision built from in over its parent and, unless
// standalone, moves the granted space to it if it still points at the
// parent and no merge is under way when it writes (ErrSpaceMovedOn
// otherwise), with in.Sync as its Git sync state, in one write with one
// space.updated event; then the space's search index follows. A
// standalone import with Sync records the sync state alone.
func (gi *GitImports) Import(ctx context.Context, g access.Grant, in GitImport) (string, error) {
	s := gi.spaces
	if in.Parent == "" {
		return "", apierr.Invalid("parent", "is required")
	}
	if len(in.Files) > MaxImportFiles {
		return "", apierr.Invalid("files", "must have at most %d items", MaxImportFiles)
	}
	sp, err := s.store.Space(ctx, g.Space)
	if errors.Is(err, apierr.ErrNotFound) {
		return "", ErrSpaceNotFound
	}
	if err != nil {
		return "", err
	}
	if sp.DeletedAt != nil {
		return "", ErrSpaceDeleted
	}
	if !in.Standalone && sp.Merging != "" {
		return "", ErrMergePending
	}
	if !in.Standalone && sp.Revision != in.Parent {
		return "", ErrSpaceMovedOn
	}
	parent, err := gi.revisions.Get(ctx, in.Parent)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && parent.Space != sp.ID) {
		return "", apierr.Invalid("parent", "is not a revision of this space")
	}
	if err != nil {
		return "", fmt.Errorf("load parent revision %s: %w", in.Parent, err)
	}
	now := s.clock()
	rev, err := buildImport(parent, in, now)
	if err != nil {
		return "", err
	}
	if err := gi.revisions.Insert(ctx, rev); err != nil {
		return "", fmt.Errorf("store revision: %w", err)
	}
	if in.Standalone {
		if in.Sync != nil {
			return rev.ID, s.SetGitSync(ctx, sp.ID, *in.Sync)
		}
		return rev.ID, nil
	}
	// Provided the space is still live, at the parent and merging nothing
	// (it is read again for the write).
	_, err = s.store.UpdateSpace(ctx, sp.ID, func(sp *Space) (envelope.Event, error) {
		if sp.DeletedAt != nil || sp.Merging != "" || sp.Revision != in.Parent {
			return envelope.Event{}, ErrSpaceMovedOn
		}
		sp.Revision, sp.UpdatedAt = rev.ID, now
		if in.Sync != nil {
			gs := *in.Sync
			gs.UpdatedAt = gs.UpdatedAt.UTC().Truncate(time.Millisecond)
			sp.GitSync = &gs
		}
		v, err := s.eventView(ctx, *sp)
		if err != nil {
			return envelope.Event{}, err
		}
		return contentapi.NewSpaceUpdated(v.Space), nil
	})
	if errors.Is(err, ErrSpaceMovedOn) || errors.Is(err, apierr.ErrChanged) || errors.Is(err, apierr.ErrNotFound) {
		return "", ErrSpaceMovedOn
	}
	if err != nil {
		return "", fmt.Errorf("advance space %s: %w", sp.ID, err)
	}
	return rev.ID, s.contentChanged(ctx, sp.ID)
}

// buildImport is the revision an import makes over parent: pages keep the
// id (and creation time, and update time when unchanged) of the parent's
// page at the same path, files the id of the parent's file of the same
// name; reusable contents are added to the parent's.
func buildImport(parent revision.Revision, in GitImport, now time.Time) (revision.Revision, error) {
	old := map[string]revision.Page{}
	for _, f := range revision.Flatten(parent.Pages) {
		old[f.Path] = *f.Page
	}
	count := 0
	pages, err := importPages(in.Pages, "", 1, old, now, &count)
	if err != nil {
		return revision.Revision{}, err
	}
	oldFiles := map[string]revision.File{}
	for _, f := range parent.Files {
		oldFiles[f.Name] = f
	}
	files := make([]revision.File, 0, len(in.Files))
	for i, f := range in.Files {
		if f.Blob == "" || f.Name == "" {
			return revision.Revision{}, apierr.Invalid(fmt.Sprintf("files[%d]", i), "needs a name and a blob")
		}
		id := revision.NewFileID()
		if o, ok := oldFiles[f.Name]; ok {
			id = o.ID
		}
		files = append(files, revision.File{ID: id, Name: f.Name, ContentType: f.ContentType, Size: f.Size, Blob: f.Blob})
	}
	rev := revision.Build(parent, revision.TypeEdits, pages, files, now)
	if in.ReusableContents != nil {
		if rev.ReusableContents, err = importReusable(parent.ReusableContents, in.ReusableContents); err != nil {
			return revision.Revision{}, err
		}
	}
	if in.Git != nil {
		g := *in.Git
		rev.Git = &g
	}
	if in.Redirects != nil {
		if rev.Redirects, err = importRedirects(in.Redirects, rev.Pages); err != nil {
			return revision.Revision{}, err
		}
	}
	return rev, nil
}

// importRedirects are an import's redirects with their pages' ids (pages:
// the revision the import built). A redirect must name a document page by
// its place in the import and have a path of its own: segments, none
// empty, "." or "..", no control character, at most limits.RedirectPath
// bytes in all.
func importRedirects(in []ImportRedirect, pages []revision.Page) ([]revision.Redirect, error) {
	if len(in) > limits.RevisionRedirects {
		return nil, apierr.Invalid("redirects", "must have at most %d items", limits.RevisionRedirects)
	}
	out := make([]revision.Redirect, 0, len(in))
	seen := make(map[string]bool, len(in))
	for i, r := range in {
		field := fmt.Sprintf("redirects[%d]", i)
		if why := redirectPath(r.Path); why != "" {
			return nil, apierr.Invalid(field+".path", "%s", why)
		}
		if seen[r.Path] {
			return nil, apierr.Invalid(field+".path", "is given twice")
		}
		seen[r.Path] = true
		p := pageAt(pages, r.Page)
		if p == nil || p.Kind != revision.KindDocument {
			return nil, apierr.Invalid(field+".page", "names no document page of the import")
		}
		out = append(out, revision.Redirect{Path: r.Path, Page: p.ID})
	}
	return out, nil
}

// redirectPath says what makes p no redirect's path ("" when it is one).
func redirectPath(p string) string {
	switch {
	case p == "":
		return "is required"
	case len(p) > limits.RedirectPath:
		return fmt.Sprintf("must have at most %d bytes", limits.RedirectPath)
	case !utf8.ValidString(p) || strings.ContainsFunc(p, unicode.IsControl):
		return "must be UTF-8 text without control characters"
	}
	for _, seg := range strings.Split(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return `must be segments joined by "/", none empty, "." or ".."`
		}
	}
	return ""
}

// pageAt is the page at a place of the tree (nil when there is none).
func pageAt(pages []revision.Page, at []int) *revision.Page {
	if len(at) == 0 || len(at) > MaxImportDepth {
		return nil
	}
	var p *revision.Page
	for _, i := range at {
		if i < 0 || i >= len(pages) {
			return nil
		}
		p = &pages[i]
		pages = p.Pages
	}
	return p
}

// importReusable adds in to the parent's reusable contents: one of the
// same title keeps its id and takes the new markdown.
func importReusable(parent []revision.ReusableContent, in []ImportReusable) ([]revision.ReusableContent, error) {
	if len(in) > MaxImportFiles {
		return nil, apierr.Invalid("reusableContents", "must have at most %d items", MaxImportFiles)
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

func importPages(in []ImportPage, prefix string, depth int, old map[string]revision.Page, now time.Time, count *int) ([]revision.Page, error) {
	if depth > MaxImportDepth {
		return nil, apierr.Invalid("pages", "must not be nested deeper than %d levels", MaxImportDepth)
	}
	out := make([]revision.Page, 0, len(in))
	for _, p := range in {
		if *count++; *count > MaxImportPages {
			return nil, apierr.Invalid("pages", "must have at most %d pages", MaxImportPages)
		}
		s := p.Slug
		if s == "" || revision.Slugify(s) != s {
			s = revision.Slugify(p.Title)
		}
		if s == "" {
			s = "page"
		}
		path := s
		if prefix != "" {
			path = prefix + "/" + s
		}
		kind := revision.KindDocument
		if p.Kind == revision.KindGroup && depth == 1 {
			kind = revision.KindGroup
		}
		title := p.Title
		if title == "" {
			title = "Untitled"
		}
		if p.Kind == revision.KindLink {
			if why := linkHref(p.Href); why != "" {
				return nil, apierr.Invalid("pages.href", "%s", why)
			}
			kind = revision.KindLink
		}
		rp := revision.Page{ID: revision.NewPageID(), Kind: kind, Title: title, Slug: s, Emoji: p.Emoji,
			Description: p.Description, Icon: p.Icon, Hidden: p.Hidden, CreatedAt: now, UpdatedAt: now}
		switch kind {
		case revision.KindDocument:
			rp.Markdown, rp.Layout, rp.Cover = p.Markdown, p.Layout, p.Cover
			if why := coverSrc(p.Cover); why != "" {
				return nil, apierr.Invalid("pages.cover", "%s", why)
			}
			if l := p.Layout; l != nil && (l.Width != "default" && l.Width != "wide" || !slices.Contains([]string{"hero", "full", "background"}, l.CoverSize)) {
				return nil, apierr.Invalid("pages.layout", `width must be "default" or "wide", coverSize "hero", "full" or "background"`)
			}
		case revision.KindLink:
			rp.Href = p.Href
		}
		if o, ok := old[path]; ok {
			rp.ID, rp.CreatedAt = o.ID, o.CreatedAt
			if samePage(o, rp) {
				rp.UpdatedAt = o.UpdatedAt
			}
		}
		kids, err := importPages(p.Pages, path, depth+1, old, now, count)
		if err != nil {
			return nil, err
		}
		rp.Pages = kids
		out = append(out, rp)
	}
	return out, nil
}

// samePage reports whether an imported page has what the parent's page of
// its path had.
func samePage(o, p revision.Page) bool {
	return o.Kind == p.Kind && o.Title == p.Title && o.Markdown == p.Markdown && o.Description == p.Description &&
		o.Emoji == p.Emoji && o.Icon == p.Icon && o.Hidden == p.Hidden && o.Href == p.Href &&
		reflect.DeepEqual(o.Layout, p.Layout) && reflect.DeepEqual(o.Cover, p.Cover)
}

// MaxHref bounds a link page's destination and a cover's sources.
const MaxHref = 2048

// linkHref says what makes h no link page's destination ("" when it is one).
func linkHref(h string) string {
	switch {
	case strings.TrimSpace(h) == "":
		return "is required for a link page"
	case len(h) > MaxHref:
		return fmt.Sprintf("must have at most %d bytes", MaxHref)
	case !utf8.ValidString(h) || strings.ContainsFunc(h, unicode.IsControl):
		return "must be UTF-8 text without control characters"
	}
	return ""
}

// coverSrc says what makes c no cover ("" when it is one, or none).
func coverSrc(c *revision.Cover) string {
	if c == nil {
		return ""
	}
	if why := linkHref(c.Src); why != "" {
		return "src " + why
	}
	if c.SrcDark != "" {
		if why := linkHref(c.SrcDark); why != "" {
			return "srcDark " + why
		}
	}
	if c.Height != 0 && (c.Height < 10 || c.Height > 700) {
		return "height must be from 10 to 700"
	}
	return ""
}
