package sectionhttp

import (
	"net/http"

	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/gin-gonic/gin"
)

func (h *handlers) listSections(c *gin.Context) {
	// shareKey is accepted: the published view (the site context) checks keys;
	// this list is for members.
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListSections(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

type createSectionRequest struct {
	SpaceID            nullable.Field[string] `json:"spaceId"`
	Title              nullable.Field[string] `json:"title"`
	Icon               nullable.Field[string] `json:"icon"`
	SiteSectionGroupID string                 `json:"siteSectionGroupId"`
}

func (h *handlers) createSection(c *gin.Context) {
	var req createSectionRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.CreateSection(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), section.CreateSectionInput{
		SpaceID: req.SpaceID.Value, Title: req.Title, Icon: req.Icon, GroupID: req.SiteSectionGroupID})
	httpx.Reply(c, http.StatusCreated, v, err)
}

type updateSectionRequest struct {
	Title              *string                `json:"title"`
	Path               *string                `json:"path"`
	DefaultSiteSpace   *string                `json:"defaultSiteSpace"`
	Condition          nullable.Field[string] `json:"condition"`
	Icon               nullable.Field[string] `json:"icon"`
	Description        nullable.Field[string] `json:"description"`
	SiteSectionGroupID nullable.Field[string] `json:"siteSectionGroupId"`
}

func (h *handlers) updateSection(c *gin.Context) {
	var req updateSectionRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.UpdateSection(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), sectionID(c), section.UpdateSectionInput{
		Title: req.Title, Path: req.Path, DefaultSiteSpace: req.DefaultSiteSpace, Condition: req.Condition,
		Icon: req.Icon, Description: req.Description, GroupID: req.SiteSectionGroupID})
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) deleteSection(c *gin.Context) {
	err := h.svc.DeleteSection(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), sectionID(c))
	httpx.Empty(c, http.StatusResetContent, err)
}

// pointer is a move position's item: a section pointer ({type, siteSection})
// or a group pointer ({type, id}).
type pointer struct {
	Type        string `json:"type"`
	SiteSection string `json:"siteSection"`
	ID          string `json:"id"`
}

type moveRequest struct {
	Position *struct {
		Before *pointer `json:"before"`
		After  *pointer `json:"after"`
	} `json:"position"`
}

// position reads a move body's position. Section moves point with
// {type: "site-section", siteSection}; group moves with {type, id} where
// type is "site-section" or "site-section-group".
func (r moveRequest) position(group bool) (section.Position, error) {
	var pos section.Position
	if r.Position == nil {
		return pos, nil
	}
	ref := func(field string, p *pointer) (*section.Ref, error) {
		if p == nil {
			return nil, nil
		}
		id := p.SiteSection
		if group {
			id = p.ID
		}
		switch {
		case p.Type != section.KindSection && (!group || p.Type != section.KindGroup):
			if group {
				return nil, apierr.Invalid(field+".type", "must be %s or %s", section.KindSection, section.KindGroup)
			}
			return nil, apierr.Invalid(field+".type", "must be %s", section.KindSection)
		case id == "" && group:
			return nil, apierr.Invalid(field+".id", "is required")
		case id == "":
			return nil, apierr.Invalid(field+".siteSection", "is required")
		}
		return &section.Ref{Kind: p.Type, ID: id}, nil
	}
	var err error
	if pos.Before, err = ref("position.before", r.Position.Before); err != nil {
		return pos, err
	}
	pos.After, err = ref("position.after", r.Position.After)
	return pos, err
}

func (h *handlers) moveSection(c *gin.Context) {
	var req moveRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	pos, err := req.position(false)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.MoveSection(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), sectionID(c), pos)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) listGroups(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListGroups(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

type createGroupRequest struct {
	Title    *string                `json:"title"`
	Icon     nullable.Field[string] `json:"icon"`
	Sections []string               `json:"sections"`
}

func (h *handlers) createGroup(c *gin.Context) {
	var req createGroupRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.CreateGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), section.CreateGroupInput(req))
	httpx.Reply(c, http.StatusCreated, v, err)
}

type updateGroupRequest struct {
	Title *string                `json:"title"`
	Icon  nullable.Field[string] `json:"icon"`
}

func (h *handlers) updateGroup(c *gin.Context) {
	var req updateGroupRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.UpdateGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), groupID(c), section.UpdateGroupInput(req))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) deleteGroup(c *gin.Context) {
	err := h.svc.DeleteGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), groupID(c))
	httpx.Empty(c, http.StatusResetContent, err)
}

func (h *handlers) moveGroup(c *gin.Context) {
	var req moveRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	pos, err := req.position(true)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.MoveGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), groupID(c), pos)
	httpx.Reply(c, http.StatusOK, v, err)
}

type addToGroupRequest struct {
	SectionID string `json:"sectionId"`
}

func (h *handlers) addToGroup(c *gin.Context) {
	var req addToGroupRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.AddToGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), groupID(c), req.SectionID)
	httpx.Reply(c, http.StatusCreated, v, err)
}

func (h *handlers) removeFromGroup(c *gin.Context) {
	err := h.svc.RemoveFromGroup(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), groupID(c), sectionID(c))
	httpx.Empty(c, http.StatusResetContent, err)
}
