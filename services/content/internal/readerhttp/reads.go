// Package readerhttp is content's internal API for the readers of
// published sites, which the sites service serves to readers who hold no
// token: a space's current revision (small enough to ask on every page
// view), its content whole, its files and search over a site's spaces,
// under /internal/v1 for the services named (see contentapi for the
// routes and their types). Every route needs an internal token of a
// named platform service alone (internaltoken.Require, RequireService);
// another service's token is a 403.
package readerhttp

import (
	"context"
	"io"
	"net/http"
	"unicode/utf8"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/docspub/platform/services/content/internal/spacehttp"
	"github.com/gin-gonic/gin"
)

// Spaces is what the routes need of the space service.
type Spaces interface {
	ServiceGrant(ctx context.Context, spaceID string) (access.Grant, error)
}

// SpaceReads is what Register needs of the space service: Spaces and the
// titles of the spaces searched.
type SpaceReads interface {
	Spaces
	// Titles returns the titles of the spaces with the ids, by id; unknown
	// ids are left out.
	Titles(ctx context.Context, ids []string) (map[string]string, error)
}

// Files is what the routes need of the revision store.
type Files interface {
	Tree(ctx context.Context, id string) (revision.Revision, error)
	OpenBlob(ctx context.Context, id string, size int64) (io.ReadSeekCloser, error)
}

// Searcher is content's search (search.Service).
type Searcher interface {
	Search(ctx context.Context, org string, spaces map[string]string, query string, limit int, after *search.Cursor) (search.Result, error)
}

// WholeFunc reads a revision with every page's markdown within the bounds
// of whole reads, and returns the function that gives them back
// (revision.Service.Whole).
type WholeFunc func(ctx context.Context, g access.Grant, revID string) (revision.Revision, func(), error)

// UsageFunc tells what an organization stores (revisionmongo.Store.Usage).
type UsageFunc func(ctx context.Context, org string) (revision.Usage, error)

// maxSearchBody bounds a search request: its spaces at their longest (as
// an access question's) and a query at its longest, in bytes.
const maxSearchBody = spacehttp.MaxAccessSpaces*(spacehttp.MaxAccessID+3) + 4*search.MaxQueryLength + 256

type reads struct {
	spaces   SpaceReads
	files    Files
	whole    WholeFunc
	searcher Searcher
	usage    UsageFunc
}

// Register adds the readers' routes to internal, the /internal/v1 group
// behind internaltoken.Require, for the sites service alone, and an
// organization's storage for the sites and integrations services.
func Register(internal gin.IRouter, spaces SpaceReads, files Files, whole WholeFunc, searcher Searcher, usage UsageFunc) {
	h := &reads{spaces: spaces, files: files, whole: whole, searcher: searcher, usage: usage}
	r := internal.Group("", internaltoken.RequireService(contentapi.Sites))
	r.GET("/spaces/:spaceId/current", Current(spaces))
	r.GET("/spaces/:spaceId/content", Content(spaces, whole))
	r.GET("/spaces/:spaceId/files/:revisionId/:fileId", h.file)
	r.POST("/orgs/:organizationId/search", h.search)
	internal.GET("/orgs/:organizationId/storage", internaltoken.RequireService(contentapi.Sites, contentapi.Integrations), h.storage)
}

// Current answers a live space's current revision (404 missing, 409
// deleted): the readers' route and Git sync's.
func Current(spaces Spaces) gin.HandlerFunc {
	return func(c *gin.Context) {
		g, err := spaces.ServiceGrant(c.Request.Context(), c.Param("spaceId"))
		httpx.Reply(c, http.StatusOK, contentapi.Current{Space: g.Space, Organization: g.Organization, Revision: g.Revision}, err)
	}
}

// Content answers a live space's current revision whole: the readers'
// route and Git sync's (an export).
func Content(spaces Spaces, whole WholeFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		ctx := c.Request.Context()
		g, err := spaces.ServiceGrant(ctx, c.Param("spaceId"))
		if err != nil {
			httpx.Error(c, err)
			return
		}
		r, release, err := whole(ctx, g, g.Revision)
		if err != nil {
			httpx.Error(c, err)
			return
		}
		defer release()
		httpx.Reply(c, http.StatusOK, contentOf(g, r), nil)
	}
}

func contentOf(g access.Grant, r revision.Revision) contentapi.Content {
	v := contentapi.Content{Space: g.Space, Organization: g.Organization, Revision: r.ID, Pages: pagesOf(r.Pages),
		Files: make([]contentapi.File, 0, len(r.Files)), ReusableContents: make([]contentapi.ReusableContent, 0, len(r.ReusableContents))}
	for _, rc := range r.ReusableContents {
		v.ReusableContents = append(v.ReusableContents, contentapi.ReusableContent{ID: rc.ID, Title: rc.Title, Markdown: rc.Markdown})
	}
	for _, f := range r.Files {
		v.Files = append(v.Files, contentapi.File{ID: f.ID, Name: f.Name, ContentType: f.ContentType, Size: f.Size, SHA256: f.SHA256()})
	}
	if r.Git != nil {
		v.Git = &contentapi.Git{OID: r.Git.OID, Message: r.Git.Message, Ref: r.Git.Ref, URL: r.Git.URL, CreatedByService: r.Git.CreatedByService}
	}
	for _, rd := range r.Redirects {
		v.Redirects = append(v.Redirects, contentapi.Redirect{Path: rd.Path, Page: rd.Page})
	}
	return v
}

func pagesOf(ps []revision.Page) []contentapi.Page {
	out := make([]contentapi.Page, len(ps))
	for i, p := range ps {
		out[i] = contentapi.Page{ID: p.ID, Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description, Emoji: p.Emoji,
			Icon: p.Icon, Hidden: p.Hidden, Markdown: p.Markdown, Href: p.Href, Pages: pagesOf(p.Pages)}
		if l := p.Layout; l != nil {
			out[i].Layout = &contentapi.Layout{Width: l.Width, Cover: l.Cover, CoverSize: l.CoverSize, Title: l.Title,
				Description: l.Description, TableOfContents: l.TableOfContents, Outline: l.Outline, Pagination: l.Pagination}
		}
		if c := p.Cover; c != nil {
			out[i].Cover = &contentapi.Cover{Src: c.Src, SrcDark: c.SrcDark, YPos: c.YPos, Height: c.Height}
		}
	}
	return out
}

// file streams a file of a revision of the space (ETag its SHA-256,
// If-None-Match, Range).
func (h *reads) file(c *gin.Context) {
	ctx := c.Request.Context()
	g, err := h.spaces.ServiceGrant(ctx, c.Param("spaceId"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	r, err := h.files.Tree(ctx, c.Param("revisionId")) // the files, not the markdown
	if err != nil || r.Space != g.Space {
		httpx.Error(c, revision.ErrRevisionNotFound)
		return
	}
	f, ok := r.FindFile(c.Param("fileId"))
	if !ok {
		httpx.Error(c, revision.ErrFileNotFound)
		return
	}
	rc, err := h.files.OpenBlob(ctx, f.Blob, f.Size)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer rc.Close()
	c.Header("Content-Type", "application/octet-stream")
	c.Header("Cache-Control", httpx.Immutable(false))
	httpx.ServeFile(c.Writer, c.Request, f.SHA256(), rc)
}

func (h *reads) storage(c *gin.Context) {
	u, err := h.usage(c.Request.Context(), c.Param("organizationId"))
	httpx.Reply(c, http.StatusOK, u, err)
}

// search runs content's search over the listed spaces of the organization:
// the index holds each organization's postings apart, so a space of
// another organization matches nothing.
func (h *reads) search(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxSearchBody)
	var req contentapi.SearchRequest
	if !httpx.Bind(c, &req) {
		return
	}
	var p apierr.Problems
	spacehttp.CheckSpaceIDs(&p, req.Spaces)
	if n := utf8.RuneCountInString(req.Query); n > search.MaxQueryLength {
		p.Add("query", "must be at most %d characters", search.MaxQueryLength)
	}
	if err := p.Err(); err != nil {
		httpx.Error(c, err)
		return
	}
	spaces, err := h.spaces.Titles(c.Request.Context(), req.Spaces)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	res, err := h.searcher.Search(c.Request.Context(), c.Param("organizationId"), spaces, req.Query, req.Limit, nil)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Reply(c, http.StatusOK, map[string]any{"items": res.Items, "count": res.Count}, nil)
}
