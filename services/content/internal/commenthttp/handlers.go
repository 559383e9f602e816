package commenthttp

import (
	"net/http"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/gin-gonic/gin"
)

type handlers struct {
	svc    *comment.Service
	gate   Gate
	thread Resolver
}

// enter lets the caller into the thread for an action; on failure it has
// answered the request.
func (h *handlers) enter(c *gin.Context, a access.Action) (access.Grant, comment.Thread, bool) {
	p := internaltoken.From(c)
	if p.UserID == "" {
		httpx.Error(c, comment.ErrNoUser)
		return access.Grant{}, comment.Thread{}, false
	}
	g, err := h.gate.Enter(c.Request.Context(), access.Caller{UserID: p.UserID, Roles: p.Roles}, c.Param("spaceId"), a)
	if err != nil {
		httpx.Error(c, err)
		return access.Grant{}, comment.Thread{}, false
	}
	g, t, err := h.thread(c, g)
	if err != nil {
		httpx.Error(c, err)
		return access.Grant{}, comment.Thread{}, false
	}
	return g, t, true
}

// format checks the format query; every body renders as markdown, which
// both formats accept.
func format(c *gin.Context) error {
	_, err := httpx.QueryEnum(c, "format", "", "document", "markdown")
	return err
}

// page reads the paging query into a keyset page that fetches one item
// more than it shows, so that paging.Build knows whether a next page exists.
func page(c *gin.Context) (paging.Params, comment.Page, error) {
	p, err := paging.FromQuery(c)
	if err != nil {
		return p, comment.Page{}, err
	}
	kp := comment.Page{Limit: p.Limit + 1}
	if p.Page != "" {
		if err := p.Keys(&kp.AfterPostedAt, &kp.AfterID); err != nil {
			return p, kp, err
		}
		if kp.AfterID == "" {
			return p, kp, apierr.Invalid("page", "is not a valid page cursor")
		}
	}
	return p, kp, nil
}

// authors reads the authors filter: repeated (authors=a&authors=b) and
// comma-separated (authors=a,b) forms alike.
func authors(c *gin.Context) []string {
	var out []string
	for _, v := range c.QueryArray("authors") {
		for _, a := range strings.Split(v, ",") {
			if a = strings.TrimSpace(a); a != "" {
				out = append(out, a)
			}
		}
	}
	return out
}

func (h *handlers) list(c *gin.Context) {
	g, t, ok := h.enter(c, access.View)
	if !ok {
		return
	}
	p, kp, err := page(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	order, err := httpx.QueryEnum(c, "order", "desc", "asc", "desc")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	status, err := httpx.QueryEnum(c, "status", "all", "all", "open", "resolved")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if err := format(c); err != nil {
		httpx.Error(c, err)
		return
	}
	f := comment.Filter{TargetPage: c.Query("targetPage"), Authors: authors(c), Desc: order == "desc"}
	if status != "all" {
		f.Status = comment.Status(status)
	}
	l, err := h.svc.List(c.Request.Context(), g, t, f, kp)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(http.StatusOK, paging.Build(l.Items, p, l.Count, func(v comment.View) string { return paging.Cursor(v.PostedAt, v.ID) }))
}

func (h *handlers) post(c *gin.Context) {
	g, t, ok := h.enter(c, access.Comment)
	if !ok {
		return
	}
	var in comment.PostInput
	if !bind(c, &in) {
		return
	}
	v, err := h.svc.Post(c.Request.Context(), g, t, in)
	reply(c, v, err)
}

func (h *handlers) get(c *gin.Context) {
	g, t, ok := h.enter(c, access.View)
	if !ok {
		return
	}
	if err := format(c); err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.Get(c.Request.Context(), g, t, c.Param("commentId"))
	reply(c, v, err)
}

func (h *handlers) update(c *gin.Context) {
	g, t, ok := h.enter(c, access.Comment)
	if !ok {
		return
	}
	var in comment.Update
	if !bind(c, &in) {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), g, t, c.Param("commentId"), in)
	reply(c, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	g, t, ok := h.enter(c, access.Comment)
	if !ok {
		return
	}
	if err := h.svc.Delete(c.Request.Context(), g, t, c.Param("commentId")); err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.NoContent(c, http.StatusResetContent)
}

func (h *handlers) listReplies(c *gin.Context) {
	g, t, ok := h.enter(c, access.View)
	if !ok {
		return
	}
	p, kp, err := page(c)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	if err := format(c); err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListReplies(c.Request.Context(), g, t, c.Param("commentId"), kp)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(http.StatusOK, paging.Build(l.Items, p, l.Count, func(v comment.ReplyView) string { return paging.Cursor(v.PostedAt, v.ID) }))
}

func (h *handlers) postReply(c *gin.Context) {
	g, t, ok := h.enter(c, access.Comment)
	if !ok {
		return
	}
	if err := format(c); err != nil {
		httpx.Error(c, err)
		return
	}
	var in comment.ReplyInput
	if !bind(c, &in) {
		return
	}
	v, err := h.svc.PostReply(c.Request.Context(), g, t, c.Param("commentId"), in)
	reply(c, v, err)
}

func (h *handlers) getReply(c *gin.Context) {
	g, t, ok := h.enter(c, access.View)
	if !ok {
		return
	}
	if err := format(c); err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.GetReply(c.Request.Context(), g, t, c.Param("commentId"), c.Param("commentReplyId"))
	reply(c, v, err)
}

func (h *handlers) updateReply(c *gin.Context) {
	g, t, ok := h.enter(c, access.Comment)
	if !ok {
		return
	}
	var in comment.ReplyUpdate
	if !bind(c, &in) {
		return
	}
	v, err := h.svc.UpdateReply(c.Request.Context(), g, t, c.Param("commentId"), c.Param("commentReplyId"), in)
	reply(c, v, err)
}

// bind decodes the required JSON body.
func bind(c *gin.Context, v any) bool {
	if err := httpx.BindJSON(c, v); err != nil {
		httpx.Error(c, err)
		return false
	}
	return true
}

// reply answers 200 with v, or the error.
func reply(c *gin.Context, v any, err error) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(http.StatusOK, v)
}
