package sitehttp

import (
	"encoding/json"
	"net/http"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/gin-gonic/gin"
)

func orgID(c *gin.Context) string       { return c.Param("organizationId") }
func siteID(c *gin.Context) string      { return c.Param("siteId") }
func siteSpaceID(c *gin.Context) string { return c.Param("siteSpaceId") }

func (h *Handlers) listSites(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	in := site.ListInput{Space: c.Query("space"), Title: c.Query("title"), Page: pg}
	if _, set := c.GetQuery("published"); set {
		b, err := httpx.QueryBool(c, "published", false)
		if err != nil {
			httpx.Error(c, err)
			return
		}
		in.Published = &b
	}
	l, err := h.svc.ListSites(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), in)
	httpx.Reply(c, http.StatusOK, l, err)
}

type createSiteRequest struct {
	Type       string   `json:"type"`
	Title      *string  `json:"title"`
	Visibility string   `json:"visibility"`
	Spaces     []string `json:"spaces"`
}

func (h *Handlers) createSite(c *gin.Context) {
	var req createSiteRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	v, err := h.svc.CreateSite(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), site.CreateInput(req))
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *Handlers) getSite(c *gin.Context) {
	v, err := h.svc.GetSite(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

type updateSiteRequest struct {
	Title           *string `json:"title"`
	Visibility      *string `json:"visibility"`
	Basename        *string `json:"basename"`
	AdaptiveContent *struct {
		Enabled *bool `json:"enabled"`
	} `json:"adaptiveContent"`
	AgentsContext      *string                `json:"agentsContext"`
	DefaultSiteSpace   *string                `json:"defaultSiteSpace"`
	DefaultSiteSection *string                `json:"defaultSiteSection"`
	Proxy              nullable.Field[string] `json:"proxy"`
	Hostname           nullable.Field[string] `json:"hostname"`
}

func (h *Handlers) updateSite(c *gin.Context) {
	var req updateSiteRequest
	if !httpx.Bind(c, &req) {
		return
	}
	in := site.UpdateInput{Title: req.Title, Visibility: req.Visibility, Basename: req.Basename,
		AgentsContext: req.AgentsContext, DefaultSiteSpace: req.DefaultSiteSpace,
		DefaultSiteSection: req.DefaultSiteSection, Proxy: req.Proxy, Hostname: req.Hostname}
	if req.AdaptiveContent != nil {
		if req.AdaptiveContent.Enabled == nil {
			httpx.Error(c, invalid("adaptiveContent.enabled", "is required"))
			return
		}
		in.AdaptiveContent = req.AdaptiveContent.Enabled
	}
	v, err := h.svc.UpdateSite(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) deleteSite(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent, h.svc.DeleteSite(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c)))
}

func (h *Handlers) publish(c *gin.Context) {
	v, err := h.svc.Publish(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) unpublish(c *gin.Context) {
	v, err := h.svc.Unpublish(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) getAdaptiveSchema(c *gin.Context) {
	v, err := h.svc.AdaptiveSchema(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

type adaptiveSchemaRequest struct {
	JSONSchema json.RawMessage `json:"jsonSchema"`
}

func (h *Handlers) putAdaptiveSchema(c *gin.Context) {
	// Bounded before it is read: a larger body is a 413 at once.
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, limits.AdaptiveSchemaBody)
	var req adaptiveSchemaRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.SetAdaptiveSchema(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), req.JSONSchema)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) published(c *gin.Context) {
	v, err := h.svc.Published(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), c.Query("shareKey"))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) listSiteSpaces(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var def *bool
	if _, set := c.GetQuery("default"); set {
		b, err := httpx.QueryBool(c, "default", false)
		if err != nil {
			httpx.Error(c, err)
			return
		}
		def = &b
	}
	l, err := h.svc.ListSiteSpaces(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), def, pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

type addSiteSpaceRequest struct {
	SpaceID   *string `json:"spaceId"`
	SectionID *string `json:"sectionId"`
}

func (h *Handlers) addSiteSpace(c *gin.Context) {
	var req addSiteSpaceRequest
	if !httpx.Bind(c, &req) {
		return
	}
	if req.SpaceID == nil {
		httpx.Error(c, invalid("spaceId", "is required (creating a new space for the site is not supported)"))
		return
	}
	v, err := h.svc.AddSpace(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), *req.SpaceID, req.SectionID)
	httpx.Reply(c, http.StatusCreated, v, err)
}

type updateSiteSpaceRequest struct {
	Path      *string                `json:"path"`
	Hidden    *bool                  `json:"hidden"`
	Default   *bool                  `json:"default"`
	Condition nullable.Field[string] `json:"condition"`
}

func (h *Handlers) updateSiteSpace(c *gin.Context) {
	var req updateSiteSpaceRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.UpdateSiteSpace(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), siteSpaceID(c),
		site.UpdateSiteSpaceInput(req))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) deleteSiteSpace(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent,
		h.svc.DeleteSiteSpace(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c), siteSpaceID(c)))
}

func (h *Handlers) getPublishingAuth(c *gin.Context) {
	v, err := h.svc.PublishingAuth(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

type publishingAuthRequest struct {
	Backend     *string                `json:"backend"`
	FallbackURL nullable.Field[string] `json:"fallbackURL"`
	LogoutURL   nullable.Field[string] `json:"logoutURL"`
}

func (h *Handlers) updatePublishingAuth(c *gin.Context) {
	var req publishingAuthRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.UpdatePublishingAuth(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c),
		site.PublishingAuthInput(req))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) regeneratePublishingAuth(c *gin.Context) {
	v, err := h.svc.RegeneratePublishingAuth(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), siteID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}
