package memberhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/gin-gonic/gin"
)

func (h *handlers) currentUser(c *gin.Context) {
	u, err := h.svc.CurrentUser(c.Request.Context(), internaltoken.CallerOf(c).UserID)
	httpx.Reply(c, http.StatusOK, u, err)
}

func (h *handlers) ping(c *gin.Context) {
	r, err := h.svc.Ping(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c))
	httpx.Reply(c, http.StatusOK, r, err)
}

var memberRoleFilter = append(append([]string{}, roles.Names...), "guest")

func (h *handlers) listMembers(c *gin.Context) {
	var p member.Page
	pp, err := paging.Read(c, &p.AfterValue, &p.AfterID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	p.Limit = pp.Limit
	order, err := httpx.QueryEnum(c, "order", "desc", "asc", "desc")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	sort, err := httpx.QueryEnum(c, "sort", member.SortJoinedAt, member.SortJoinedAt, member.SortLastSeenAt, member.SortName)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	role, err := httpx.QueryEnum(c, "role", "", memberRoleFilter...)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f := member.Filter{Role: role, Search: c.Query("search"), Sort: sort, Desc: order == "desc"}
	l, err := h.svc.ListMembers(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), f, p)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) getMember(c *gin.Context) {
	m, err := h.svc.GetMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("userId"))
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *handlers) updateMember(c *gin.Context) {
	var p member.Patch
	if !httpx.Bind(c, &p) {
		return
	}
	m, err := h.svc.UpdateMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("userId"), p)
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *handlers) removeMember(c *gin.Context) {
	err := h.svc.RemoveMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("userId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *handlers) setSSOMember(c *gin.Context) {
	m, err := h.svc.SetSSOMember(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), c.Param("userId"))
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *handlers) inviteUsers(c *gin.Context) {
	var in member.InviteUsersInput
	if !httpx.Bind(c, &in) {
		return
	}
	r, err := h.svc.InviteUsers(c.Request.Context(), internaltoken.CallerOf(c).UserID, orgID(c), in)
	httpx.Reply(c, http.StatusOK, r, err)
}
