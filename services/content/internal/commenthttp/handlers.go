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
	caller := internaltoken.CallerOf(c)
	if caller.UserID == "" {
		httpx.Error(c, comment.ErrNoUser)
		return access.Grant{}, comment.Thread{}, false
	}
	g, err := h.gate.Enter(c.Request.Context(), caller, c.Param("spaceId"), a)
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

// A check reads and validates part of a request before the handler's work.
type check func(*gin.Context) error

// answer lets the caller into the thread for an action, runs the checks in
// order and answers 200 with what do returns; the first failure is answered
// instead. Checks run before do, so do sees what they read.
func (h *handlers) answer(c *gin.Context, a access.Action, do func(access.Grant, comment.Thread) (any, error), checks ...check) {
	g, t, ok := h.enter(c, a)
	if !ok {
		return
	}
	for _, check := range checks {
		if err := check(c); err != nil {
			httpx.Error(c, err)
			return
		}
	}
	v, err := do(g, t)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	c.JSON(http.StatusOK, v)
}

// format checks the format query; every body renders as markdown, which
// both formats accept.
func format(c *gin.Context) error {
	_, err := httpx.QueryEnum(c, "format", "", "document", "markdown")
	return err
}

// body returns a check that decodes the required JSON body into v.
func body(v any) check {
	return func(c *gin.Context) error { return httpx.BindJSON(c, v) }
}

// enum returns a check that reads the query name into dst: def when absent,
// else one of allowed.
func enum(dst *string, name, def string, allowed ...string) check {
	return func(c *gin.Context) (err error) {
		*dst, err = httpx.QueryEnum(c, name, def, allowed...)
		return err
	}
}

// page returns a check that reads the paging query into p and its cursor's
// keys into kp (fetch sets kp's limit).
func page(p *paging.Request, kp *comment.Page) check {
	return func(c *gin.Context) (err error) {
		if *p, err = paging.FromQuery(c); err != nil {
			return err
		}
		*kp = comment.Page{}
		if p.Page == "" {
			return nil
		}
		if err := p.Keys(&kp.AfterPostedAt, &kp.AfterID); err != nil {
			return err
		}
		if kp.AfterID == "" {
			return apierr.Invalid("page", "is not a valid page cursor")
		}
		return nil
	}
}

// fetch reads the page p asks for through paging.Fetch; read lists up to
// limit items.
func fetch[V any](p paging.Request, read func(limit int) (comment.List[V], error), cursor func(V) string) (any, error) {
	l, err := paging.Fetch(p, func(limit int) ([]V, int, error) {
		l, err := read(limit)
		return l.Items, l.Count, err
	}, cursor)
	if err != nil {
		return nil, err
	}
	return l, nil
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
	var p paging.Request
	var kp comment.Page
	var order, status string
	h.answer(c, access.View, func(g access.Grant, t comment.Thread) (any, error) {
		f := comment.Filter{TargetPage: c.Query("targetPage"), Authors: authors(c), Desc: order == "desc"}
		if status != "all" {
			f.Status = comment.Status(status)
		}
		return fetch(p, func(limit int) (comment.List[comment.View], error) {
			kp.Limit = limit
			return h.svc.List(c.Request.Context(), g, t, f, kp)
		}, func(v comment.View) string { return paging.Cursor(v.PostedAt, v.ID) })
	}, page(&p, &kp), enum(&order, "order", "desc", "asc", "desc"), enum(&status, "status", "all", "all", "open", "resolved"), format)
}

func (h *handlers) post(c *gin.Context) {
	var in comment.PostInput
	h.answer(c, access.Comment, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.Post(c.Request.Context(), g, t, in)
	}, body(&in))
}

func (h *handlers) get(c *gin.Context) {
	h.answer(c, access.View, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.Get(c.Request.Context(), g, t, c.Param("commentId"))
	}, format)
}

func (h *handlers) update(c *gin.Context) {
	var in comment.Update
	h.answer(c, access.Comment, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.Update(c.Request.Context(), g, t, c.Param("commentId"), in)
	}, body(&in))
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
	var p paging.Request
	var kp comment.Page
	h.answer(c, access.View, func(g access.Grant, t comment.Thread) (any, error) {
		return fetch(p, func(limit int) (comment.List[comment.ReplyView], error) {
			kp.Limit = limit
			return h.svc.ListReplies(c.Request.Context(), g, t, c.Param("commentId"), kp)
		}, func(v comment.ReplyView) string { return paging.Cursor(v.PostedAt, v.ID) })
	}, page(&p, &kp), format)
}

func (h *handlers) postReply(c *gin.Context) {
	var in comment.ReplyInput
	h.answer(c, access.Comment, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.PostReply(c.Request.Context(), g, t, c.Param("commentId"), in)
	}, format, body(&in))
}

func (h *handlers) getReply(c *gin.Context) {
	h.answer(c, access.View, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.GetReply(c.Request.Context(), g, t, c.Param("commentId"), c.Param("commentReplyId"))
	}, format)
}

func (h *handlers) updateReply(c *gin.Context) {
	var in comment.ReplyUpdate
	h.answer(c, access.Comment, func(g access.Grant, t comment.Thread) (any, error) {
		return h.svc.UpdateReply(c.Request.Context(), g, t, c.Param("commentId"), c.Param("commentReplyId"), in)
	}, body(&in))
}
