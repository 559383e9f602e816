// Package changerequesthttp serves change requests: their rows under
// /v1/spaces/:spaceId/change-requests, their comments (commenthttp with a
// change-request thread) and their content (revisionhttp with the change
// request's revision).
package changerequesthttp

import (
	"context"
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/changerequest"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commenthttp"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionhttp"
	"github.com/gin-gonic/gin"
)

// Gate lets a caller into a space (the space service).
type Gate interface {
	Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error)
}

// Quotas bound the expensive operations per organization (libs/quota):
// imports and PDF renders take a turn of their organization before any
// work, so that one organization's burst queues only itself (429 with
// Retry-After beyond its queue). A nil limiter bounds nothing.
type Quotas struct {
	Imports *quota.Limiter
	PDFs    *quota.Limiter
}

type handlers struct {
	svc    *changerequest.Service
	gate   Gate
	quotas Quotas
}

// Register adds the change-request routes, with their comments and content, to v1.
func Register(v1 gin.IRouter, svc *changerequest.Service, gate Gate, comments *comment.Service, revisions *revision.Service, q Quotas) {
	h := &handlers{svc: svc, gate: gate, quotas: q}
	crs := v1.Group("/spaces/:spaceId/change-requests")
	crs.GET("", h.list)
	crs.POST("", h.create)
	cr := crs.Group("/:changeRequestId")
	cr.GET("", h.get)
	cr.PATCH("", h.update)
	cr.POST("/merge", h.merge)
	cr.POST("/update", h.updateFromSpace)
	cr.GET("/pdf", h.pdfURL)
	cr.GET("/pdf/download", h.pdf)
	cr.POST("/content/import", h.importContent)

	commenthttp.Routes(cr.Group("/comments"), comments, gate, func(c *gin.Context, g access.Grant) (access.Grant, comment.Thread, error) {
		found, err := svc.Find(c.Request.Context(), g, c.Param("changeRequestId"))
		if err != nil {
			return g, comment.Thread{}, err
		}
		g.Revision = found.Revision // comments target the change request's revision
		return g, comment.Thread{Space: g.Space, ChangeRequest: found.ID}, nil
	})
	revisionhttp.Routes(cr, revisions, gate, func(c *gin.Context, g access.Grant) (string, error) {
		found, err := svc.Find(c.Request.Context(), g, c.Param("changeRequestId"))
		return found.Revision, err
	})
}

// enter lets the caller into the route's space for viewing; the service
// checks the operation's own action on the grant.
func (h *handlers) enter(c *gin.Context) (access.Grant, bool) {
	g, err := h.gate.Enter(c.Request.Context(), internaltoken.CallerOf(c), c.Param("spaceId"), access.View)
	if err != nil {
		httpx.Error(c, err)
		return g, false
	}
	return g, true
}

func (h *handlers) list(c *gin.Context) {
	q := changerequest.Query{Contributor: c.Query("contributor"), Creator: c.Query("creator")}
	p, err := paging.Read(c, &q.AfterID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	q.Limit = p.Limit
	if q.Status, err = httpx.QueryEnum(c, "status", changerequest.StatusOpen, changerequest.StatusDraft,
		changerequest.StatusOpen, changerequest.StatusArchived, changerequest.StatusMerged); err != nil {
		httpx.Error(c, err)
		return
	}
	g, ok := h.enter(c)
	if !ok {
		return
	}
	l, err := h.svc.List(c.Request.Context(), g, q)
	httpx.Reply(c, http.StatusOK, l, err)
}

type createRequest struct {
	Subject string `json:"subject"`
}

func (h *handlers) create(c *gin.Context) {
	var req createRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	g, ok := h.enter(c)
	if !ok {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), g, req.Subject)
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *handlers) get(c *gin.Context) {
	g, ok := h.enter(c)
	if !ok {
		return
	}
	v, err := h.svc.Get(c.Request.Context(), g, c.Param("changeRequestId"))
	httpx.Reply(c, http.StatusOK, v, err)
}

type patchRequest struct {
	Subject *string `json:"subject"`
	Status  *string `json:"status"`
}

func (h *handlers) update(c *gin.Context) {
	var req patchRequest
	if !httpx.Bind(c, &req) {
		return
	}
	g, ok := h.enter(c)
	if !ok {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), g, c.Param("changeRequestId"), changerequest.Patch(req))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) merge(c *gin.Context) {
	g, ok := h.enter(c)
	if !ok {
		return
	}
	reenter := func(ctx context.Context) (access.Grant, error) {
		return h.gate.Enter(ctx, internaltoken.CallerOf(c), c.Param("spaceId"), access.View)
	}
	out, err := h.svc.Merge(c.Request.Context(), g, c.Param("changeRequestId"), reenter)
	httpx.Reply(c, http.StatusOK, out, err)
}

func (h *handlers) updateFromSpace(c *gin.Context) {
	g, ok := h.enter(c)
	if !ok {
		return
	}
	out, err := h.svc.UpdateFromSpace(c.Request.Context(), g, c.Param("changeRequestId"))
	httpx.Reply(c, http.StatusOK, out, err)
}

// pdfQuery reads only and page.
func pdfQuery(c *gin.Context) (bool, string, bool) {
	only, err := httpx.QueryBool(c, "only", false)
	if err != nil {
		httpx.Error(c, err)
		return false, "", false
	}
	return only, c.Query("page"), true
}

func (h *handlers) pdfURL(c *gin.Context) {
	g, only, page, ok := h.pdfRequest(c)
	if !ok {
		return
	}
	u, err := h.svc.PDFURL(c.Request.Context(), g, c.Param("changeRequestId"), only, page)
	httpx.Reply(c, http.StatusOK, gin.H{"url": u}, err)
}

// pdfRequest reads only and page, then lets the caller in.
func (h *handlers) pdfRequest(c *gin.Context) (access.Grant, bool, string, bool) {
	only, page, ok := pdfQuery(c)
	if !ok {
		return access.Grant{}, false, "", false
	}
	g, ok := h.enter(c)
	return g, only, page, ok
}

// turn waits for a turn of the grant's organization in l; on failure it
// has answered the request.
func turn(c *gin.Context, l *quota.Limiter, g access.Grant) (release func(), ok bool) {
	if l == nil {
		return func() {}, true
	}
	release, err := l.Acquire(c.Request.Context(), g.Organization)
	if err != nil {
		httpx.Error(c, err)
		return nil, false
	}
	return release, true
}

func (h *handlers) pdf(c *gin.Context) {
	g, only, page, ok := h.pdfRequest(c)
	if !ok {
		return
	}
	release, ok := turn(c, h.quotas.PDFs, g)
	if !ok {
		return
	}
	defer release()
	b, err := h.svc.PDF(c.Request.Context(), g, c.Param("changeRequestId"), only, page)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.Data(http.StatusOK, "application/pdf", b)
}

type importRequest struct {
	URL    string `json:"url"`
	Source string `json:"source"`
}

func (h *handlers) importContent(c *gin.Context) {
	var req importRequest
	if !httpx.Bind(c, &req) {
		return
	}
	if req.Source == "" {
		httpx.Error(c, apierr.Invalid("source", "is required"))
		return
	}
	g, ok := h.enter(c)
	if !ok {
		return
	}
	release, ok := turn(c, h.quotas.Imports, g)
	if !ok {
		return
	}
	defer release()
	out, err := h.svc.Import(c.Request.Context(), g, c.Param("changeRequestId"), req.Source, req.URL)
	httpx.Reply(c, http.StatusCreated, out, err)
}
