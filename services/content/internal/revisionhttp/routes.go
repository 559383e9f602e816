// Package revisionhttp serves revision content over HTTP: a revision, its
// page tree, one page (by id or path, as markdown or as a JSON document),
// its files, their backlinks and the links of its pages.
//
// Every request first passes the Gate, which lets the caller into the
// space for access.View and hands back the access.Grant; a Resolver then
// names the revision the routes read. RegisterSpace serves the space's
// current revision under SPACE/content, the space's links, any revision of
// the space by id, and file downloads. Change request content (CRC) is the
// same routes with another Resolver, one that finds the change request in
// the granted space and answers with its revision:
//
//	revisionhttp.Routes(v1.Group("/spaces/:spaceId/change-requests/:changeRequestId"), svc, gate,
//		func(c *gin.Context, g access.Grant) (string, error) {
//			cr, err := changeRequests.Find(c.Request.Context(), g, c.Param("changeRequestId"))
//			return cr.Revision, err
//		})
package revisionhttp

import (
	"context"
	"mime"
	"net/http"
	"strings"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/gin-gonic/gin"
)

// Gate lets a caller into a space for an action: 404 when the space does
// not exist or the caller may not see it, 403 when the caller's level does
// not allow the action. The space service implements it.
type Gate interface {
	Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error)
}

// Resolver names the revision a request reads once the gate let the
// caller into the space; its errors answer the request.
type Resolver func(c *gin.Context, g access.Grant) (revisionID string, err error)

// SpaceRevision resolves the space's current revision.
func SpaceRevision(_ *gin.Context, g access.Grant) (string, error) { return g.Revision, nil }

// RegisterSpace adds to v1 (the /v1 group behind internaltoken.Require)
// the content routes of a space's current revision (SPACE/content...),
// SPACE/content/path/{pagePath...}, SPACE/links, SPACE/revisions/{revisionId} and
// SPACE/revisions/{revisionId}/files/{fileId}/download.
//
// With a Redirect (nil: none), downloads answer with a redirect to its URL.
func RegisterSpace(v1 gin.IRouter, svc *revision.Service, gate Gate, redirect Redirect) {
	Routes(v1.Group("/spaces/:spaceId"), svc, gate, SpaceRevision)
	h := &handlers{svc: svc, gate: gate, resolve: SpaceRevision}
	// A page by its path is an operation of the space alone: the API
	// document has none on a change request.
	v1.GET("/spaces/:spaceId/content/path/*pagePath", h.pageByPath)
	v1.GET("/spaces/:spaceId/links", h.links)
	byID := &handlers{svc: svc, gate: gate, redirect: redirect, resolve: func(c *gin.Context, _ access.Grant) (string, error) {
		return c.Param("revisionId"), nil
	}}
	v1.GET("/spaces/:spaceId/revisions/:revisionId", byID.revision)
	v1.GET("/spaces/:spaceId/revisions/:revisionId/files/:fileId/download", byID.download)
}

// Routes adds the content routes to r, a group whose path holds the
// :spaceId parameter: /content, /content/pages, /content/page/:pageId,
// /content/page/:pageId/links, /content/files,
// /content/files/:fileId and /content/files/:fileId/backlinks.
func Routes(r gin.IRouter, svc *revision.Service, gate Gate, resolve Resolver) {
	h := &handlers{svc: svc, gate: gate, resolve: resolve}
	r.GET("/content", h.revision)
	r.GET("/content/pages", h.pages)
	r.GET("/content/page/:pageId", h.page)
	r.GET("/content/page/:pageId/links", h.pageLinks)
	r.GET("/content/files", h.files)
	r.GET("/content/files/:fileId", h.file)
	r.GET("/content/files/:fileId/backlinks", h.backlinks)
}

type handlers struct {
	svc      *revision.Service
	gate     Gate
	resolve  Resolver
	redirect Redirect
}

// A check reads and validates part of a request before the handler's work.
type check func(*gin.Context) error

// answer lets the caller into the space for viewing, resolves the revision,
// runs the checks in order and answers 200 with what do returns; the first
// failure answers instead.
func (h *handlers) answer(c *gin.Context, do func(ctx context.Context, g access.Grant, rev string) (any, error), checks ...check) {
	g, rev, ok := h.enter(c)
	if !ok {
		return
	}
	for _, ch := range append([]check{contentFlags}, checks...) {
		if err := ch(c); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	v, err := do(c.Request.Context(), g, rev)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(http.StatusOK, v)
}

func (h *handlers) enter(c *gin.Context) (access.Grant, string, bool) {
	g, err := h.gate.Enter(c.Request.Context(), internaltoken.CallerOf(c), c.Param("spaceId"), access.View)
	if err != nil {
		httpx.Error(c, err)
		return access.Grant{}, "", false
	}
	rev, err := h.resolve(c, g)
	if err != nil {
		httpx.Error(c, err)
		return access.Grant{}, "", false
	}
	return g, rev, true
}

// contentFlags validates the metadata and computed booleans, which change
// nothing here: no revision holds Git metadata or computed content.
func contentFlags(c *gin.Context) error {
	for _, name := range []string{"metadata", "computed"} {
		if _, err := httpx.QueryBool(c, name, true); err != nil {
			return err
		}
	}
	return nil
}

// format returns a check that reads the format query into dst.
func format(dst *string) check {
	return func(c *gin.Context) (err error) {
		*dst, err = httpx.QueryEnum(c, "format", revision.FormatMarkdown, revision.FormatDocument, revision.FormatMarkdown)
		return err
	}
}

// window returns a check that reads the paging parameters into p and the
// cursor's key into w (fetch sets w's limit).
func window(p *paging.Request, w *revision.Window) check {
	return func(c *gin.Context) (err error) {
		*p, err = paging.Read(c, &w.After)
		return err
	}
}

// fetch reads the page p asks for through paging.Fetch: read lists the
// window w, sized by Fetch.
func fetch[V any](p paging.Request, w revision.Window, read func(revision.Window) ([]V, int, error), cursor func(V) string) (paging.List[V], error) {
	return paging.Fetch(p, func(limit int) ([]V, int, error) {
		w.Limit = limit
		return read(w)
	}, cursor)
}

func (h *handlers) revision(c *gin.Context) {
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return h.svc.Revision(ctx, g, rev)
	})
}

func (h *handlers) pages(c *gin.Context) {
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		ps, err := h.svc.Pages(ctx, g, rev)
		return gin.H{"pages": ps}, err
	})
}

func (h *handlers) page(c *gin.Context) {
	var f string
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return h.svc.Page(ctx, g, rev, c.Param("pageId"), f)
	}, format(&f))
}

func (h *handlers) pageByPath(c *gin.Context) {
	var f string
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return h.svc.PageByPath(ctx, g, rev, c.Param("pagePath"), f)
	}, format(&f))
}

func (h *handlers) files(c *gin.Context) {
	var p paging.Request
	var w revision.Window
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return fetch(p, w, func(w revision.Window) ([]revision.FileView, int, error) {
			l, err := h.svc.Files(ctx, g, rev, w)
			return l.Items, l.Count, err
		}, func(f revision.FileView) string { return paging.Cursor(f.ID) })
	}, window(&p, &w))
}

func (h *handlers) file(c *gin.Context) {
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return h.svc.File(ctx, g, rev, c.Param("fileId"))
	})
}

func (h *handlers) backlinks(c *gin.Context) {
	var p paging.Request
	var w revision.Window
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return fetch(p, w, func(w revision.Window) ([]revision.BacklinkView, int, error) {
			l, err := h.svc.FileBacklinks(ctx, g, rev, c.Param("fileId"), w)
			return l.Items, l.Count, err
		}, func(b revision.BacklinkView) string { return paging.Cursor(b.Page) })
	}, window(&p, &w))
}

// linkListing is the wire shape of a link listing.
type linkListing struct {
	Next  *paging.Next        `json:"next,omitempty"`
	Count int                 `json:"count"`
	Stats revision.LinkStats  `json:"stats"`
	Items []revision.LinkView `json:"items"`
}

// listing reads the page p asks for of the links read lists, with their stats.
func listing(p paging.Request, w revision.Window, read func(revision.Window) (revision.LinkList, error)) (linkListing, error) {
	var stats revision.LinkStats
	b, err := fetch(p, w, func(w revision.Window) ([]revision.LinkView, int, error) {
		l, err := read(w)
		stats = l.Stats
		return l.Items, l.Count, err
	}, func(v revision.LinkView) string { return paging.Cursor(v.Key()) })
	return linkListing{Next: b.Next, Count: b.Count, Stats: stats, Items: b.Items}, err
}

func (h *handlers) links(c *gin.Context) {
	var p paging.Request
	var w revision.Window
	var status string
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return listing(p, w, func(w revision.Window) (revision.LinkList, error) {
			return h.svc.Links(ctx, g, rev, status, w)
		})
	}, window(&p, &w), func(c *gin.Context) (err error) {
		status, err = httpx.QueryEnum(c, "status", "", revision.Statuses...)
		return err
	})
}

func (h *handlers) pageLinks(c *gin.Context) {
	var p paging.Request
	var w revision.Window
	h.answer(c, func(ctx context.Context, g access.Grant, rev string) (any, error) {
		return listing(p, w, func(w revision.Window) (revision.LinkList, error) {
			return h.svc.PageLinks(ctx, g, rev, c.Param("pageId"), w)
		})
	}, window(&p, &w))
}

// Redirect returns a short-lived URL that serves a blob's bytes itself
// (a presigned URL of the bucket), with the content type and disposition
// given; blob.ErrUnsupported-like errors fall back to streaming.
type Redirect func(ctx context.Context, blob, contentType, disposition string) (string, error)

// download serves a file's bytes like a static file server: strong ETag
// (the bytes' SHA-256), 304 on a matching If-None-Match, 206 on a Range,
// immutable caching (private: the API needs a token), streamed from the
// blob store. Images that browsers render safely show inline; everything
// else downloads. With a Redirect, the answer is a 302 to its URL.
func (h *handlers) download(c *gin.Context) {
	g, rev, ok := h.enter(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	if h.redirect != nil {
		f, err := h.svc.Locate(ctx, g, rev, c.Param("fileId"))
		if err != nil {
			httpx.Error(c, err)
			return
		}
		ct, disposition := fileHeaders(f)
		if u, err := h.redirect(ctx, f.Blob, ct, disposition); err == nil {
			c.Header("Cache-Control", "private, no-store")
			c.Redirect(http.StatusFound, u)
			return
		}
	}
	f, rc, err := h.svc.Download(ctx, g, rev, c.Param("fileId"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer rc.Close()
	ct, disposition := fileHeaders(f)
	hd := c.Writer.Header()
	hd.Set("Content-Type", ct)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Disposition", disposition)
	hd.Set("Cache-Control", httpx.Immutable(false))
	httpx.ServeFile(c.Writer, c.Request, f.SHA256(), rc)
}

// fileHeaders are a file's Content-Type and Content-Disposition.
func fileHeaders(f revision.File) (string, string) {
	ct := f.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	disposition := "attachment"
	switch strings.ToLower(strings.TrimSpace(strings.Split(ct, ";")[0])) {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		disposition = "inline"
	}
	return ct, mime.FormatMediaType(disposition, map[string]string{"filename": f.Name})
}
