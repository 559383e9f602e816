package directoryhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/directory"
	"github.com/gin-gonic/gin"
)

func (h *Handlers) currentUser(c *gin.Context) {
	u, err := h.svc.CurrentUser(c.Request.Context(), user(c))
	httpx.Reply(c, http.StatusOK, u, err)
}

func (h *Handlers) listOrganizations(c *gin.Context) {
	p, ok := paging.ReadKeyset(c, paging.ByID)
	if !ok {
		return
	}
	l, err := h.svc.ListOrganizations(c.Request.Context(), user(c), p)
	paging.ReplyKeyset(c, l, err, paging.ByID)
}

func (h *Handlers) organizationsForEmailDomain(c *gin.Context) {
	orgs, err := h.svc.OrganizationsForEmailDomain(c.Request.Context(), user(c), c.Param("emailDomain"))
	httpx.Reply(c, http.StatusOK, gin.H{"organizations": orgs}, err)
}

func (h *Handlers) getOrganization(c *gin.Context) {
	o, err := h.svc.GetOrganization(c.Request.Context(), user(c), orgID(c))
	httpx.Reply(c, http.StatusOK, o, err)
}

func (h *Handlers) updateOrganization(c *gin.Context) {
	var p directory.OrganizationPatch
	if !httpx.Bind(c, &p) {
		return
	}
	o, err := h.svc.UpdateOrganization(c.Request.Context(), user(c), orgID(c), p)
	httpx.Reply(c, http.StatusOK, o, err)
}

func (h *Handlers) ping(c *gin.Context) {
	r, err := h.svc.Ping(c.Request.Context(), user(c), orgID(c))
	httpx.Reply(c, http.StatusOK, r, err)
}

var memberRoleFilter = append(append([]string{}, roles.Names...), "guest")

func (h *Handlers) listMembers(c *gin.Context) {
	var p directory.MemberPage
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
	sort, err := httpx.QueryEnum(c, "sort", directory.SortJoinedAt, directory.SortJoinedAt, directory.SortLastSeenAt, directory.SortName)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	role, err := httpx.QueryEnum(c, "role", "", memberRoleFilter...)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	f := directory.MemberFilter{Role: role, Search: c.Query("search"), Sort: sort, Desc: order == "desc"}
	l, err := h.svc.ListMembers(c.Request.Context(), user(c), orgID(c), f, p)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var next string
	if l.HasMore {
		next = paging.Cursor(l.LastValue, l.LastID)
	}
	paging.Reply(c, l.Items, l.Count, next)
}

func (h *Handlers) getMember(c *gin.Context) {
	m, err := h.svc.GetMember(c.Request.Context(), user(c), orgID(c), c.Param("userId"))
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *Handlers) updateMember(c *gin.Context) {
	var p directory.MemberPatch
	if !httpx.Bind(c, &p) {
		return
	}
	m, err := h.svc.UpdateMember(c.Request.Context(), user(c), orgID(c), c.Param("userId"), p)
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *Handlers) removeMember(c *gin.Context) {
	err := h.svc.RemoveMember(c.Request.Context(), user(c), orgID(c), c.Param("userId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *Handlers) setSSOMember(c *gin.Context) {
	m, err := h.svc.SetSSOMember(c.Request.Context(), user(c), orgID(c), c.Param("userId"))
	httpx.Reply(c, http.StatusOK, m, err)
}

func (h *Handlers) memberTeams(c *gin.Context) {
	p, ok := paging.ReadKeyset(c, paging.ByID)
	if !ok {
		return
	}
	l, err := h.svc.MemberTeams(c.Request.Context(), user(c), orgID(c), c.Param("userId"), c.Query("title"), p)
	paging.ReplyKeyset(c, l, err, paging.ByID)
}

func (h *Handlers) listTeams(c *gin.Context) {
	p, ok := paging.ReadKeyset(c, paging.ByID)
	if !ok {
		return
	}
	f := directory.TeamFilter{Owner: c.Query("owner"), Title: c.Query("title")}
	l, err := h.svc.ListTeams(c.Request.Context(), user(c), orgID(c), f, p)
	paging.ReplyKeyset(c, l, err, paging.ByID)
}

func (h *Handlers) createTeam(c *gin.Context) {
	var in directory.TeamInput
	if !httpx.Bind(c, &in) {
		return
	}
	t, err := h.svc.CreateTeam(c.Request.Context(), user(c), orgID(c), in)
	httpx.Reply(c, http.StatusCreated, t, err)
}

func (h *Handlers) getTeam(c *gin.Context) {
	t, err := h.svc.GetTeam(c.Request.Context(), user(c), orgID(c), c.Param("teamId"))
	httpx.Reply(c, http.StatusOK, t, err)
}

func (h *Handlers) updateTeam(c *gin.Context) {
	var in directory.TeamInput
	if !httpx.Bind(c, &in) {
		return
	}
	t, err := h.svc.UpdateTeam(c.Request.Context(), user(c), orgID(c), c.Param("teamId"), in)
	httpx.Reply(c, http.StatusOK, t, err)
}

func (h *Handlers) deleteTeam(c *gin.Context) {
	err := h.svc.DeleteTeam(c.Request.Context(), user(c), orgID(c), c.Param("teamId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *Handlers) listTeamMembers(c *gin.Context) {
	p, ok := paging.ReadKeyset(c, paging.ByID)
	if !ok {
		return
	}
	l, err := h.svc.ListTeamMembers(c.Request.Context(), user(c), orgID(c), c.Param("teamId"), p)
	paging.ReplyKeyset(c, l, err, paging.ByID)
}

func (h *Handlers) updateTeamMembers(c *gin.Context) {
	var in directory.TeamMembersUpdate
	if !httpx.Bind(c, &in) {
		return
	}
	err := h.svc.UpdateTeamMembers(c.Request.Context(), user(c), orgID(c), c.Param("teamId"), in)
	httpx.Empty(c, http.StatusNoContent, err)
}

type teamMemberInput struct {
	Role *string `json:"role"`
}

func (h *Handlers) putTeamMember(c *gin.Context) {
	var in teamMemberInput
	if !httpx.BindOptional(c, &in) {
		return
	}
	err := h.svc.PutTeamMember(c.Request.Context(), user(c), orgID(c), c.Param("teamId"), c.Param("userId"), in.Role)
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *Handlers) removeTeamMember(c *gin.Context) {
	err := h.svc.RemoveTeamMember(c.Request.Context(), user(c), orgID(c), c.Param("teamId"), c.Param("userId"))
	httpx.Empty(c, http.StatusNoContent, err)
}

func (h *Handlers) inviteUsers(c *gin.Context) {
	var in directory.InviteUsersInput
	if !httpx.Bind(c, &in) {
		return
	}
	r, err := h.svc.InviteUsers(c.Request.Context(), user(c), orgID(c), in)
	httpx.Reply(c, http.StatusOK, r, err)
}
