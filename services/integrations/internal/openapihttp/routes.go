// Package openapihttp is the HTTP API of OpenAPI specs, under
// /orgs/{organizationId}/openapi, with their versions and content. The
// caller comes from the internal token.
package openapihttp

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/integrations/internal/openapi"
	"github.com/gin-gonic/gin"
)

type handlers struct{ svc *openapi.Service }

// Register adds the routes to v1, the /v1 group behind internaltoken.Require.
// "latest" as a version id names the spec's last version.
func Register(v1 gin.IRouter, svc *openapi.Service) {
	h := &handlers{svc: svc}
	const base = "/orgs/:organizationId/openapi"
	v1.GET(base, h.list)
	v1.POST(base, h.create)
	v1.GET(base+"/:specSlug", h.get)
	v1.PUT(base+"/:specSlug", h.replace)
	v1.PATCH(base+"/:specSlug", h.update)
	v1.DELETE(base+"/:specSlug", h.delete)
	v1.GET(base+"/:specSlug/versions", h.versions)
	v1.GET(base+"/:specSlug/versions/:versionId", h.version)
	v1.GET(base+"/:specSlug/versions/:versionId/content", h.content)
	v1.GET(base+"/:specSlug/versions/:versionId/content/raw", h.raw)
}

// RegisterInternal adds the sites service's read of published specs
// (integrationsapi.PublishedSpecPath) to internal, the /internal/v1 group
// behind internaltoken.Require and RequireService(integrationsapi.Sites).
func RegisterInternal(internal gin.IRouter, svc *openapi.Service) {
	h := &handlers{svc: svc}
	internal.GET("/orgs/:organizationId/openapi/:specSlug/published", h.published)
	internal.GET("/orgs/:organizationId/openapi-published", h.publishedByURL)
}

func org(c *gin.Context) string  { return c.Param("organizationId") }
func slug(c *gin.Context) string { return c.Param("specSlug") }

func (h *handlers) list(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.List(c.Request.Context(), internaltoken.CallerOf(c), org(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) create(c *gin.Context) {
	var in openapi.CreateInput
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Create(c.Request.Context(), internaltoken.CallerOf(c), org(c), in)
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *handlers) get(c *gin.Context) {
	v, err := h.svc.Get(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) replace(c *gin.Context) {
	var in struct {
		Source *openapi.Source `json:"source"`
	}
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Replace(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), in.Source)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) update(c *gin.Context) {
	var in openapi.UpdateInput
	if !httpx.Bind(c, &in) {
		return
	}
	v, err := h.svc.Update(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *handlers) delete(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent, h.svc.Delete(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c)))
}

func (h *handlers) versions(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.Versions(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *handlers) version(c *gin.Context) {
	v, err := h.svc.Version(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), c.Param("versionId"))
	httpx.Reply(c, http.StatusOK, v, err)
}

// content streams the version's stored JSON rendering inside the
// OpenAPISpecContent body, without decoding it.
func (h *handlers) content(c *gin.Context) {
	v, err := h.svc.Content(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), c.Param("versionId"))
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer v.Filesystem.Close()
	urls, err := json.Marshal(v.URLs)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	const head, mid, tail = `{"filesystem":`, `,"urls":`, `}`
	w := c.Writer
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(int64(len(head)+len(mid)+len(urls)+len(tail))+v.Size, 10))
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, head)
	if _, err := io.Copy(w, v.Filesystem); err != nil {
		// The status is sent: the short body tells the client (Content-Length).
		_ = c.Error(err)
		return
	}
	_, _ = io.WriteString(w, mid)
	_, _ = w.Write(urls)
	_, _ = io.WriteString(w, tail)
}

func (h *handlers) raw(c *gin.Context) {
	v, err := h.svc.Raw(c.Request.Context(), internaltoken.CallerOf(c), org(c), slug(c), c.Param("versionId"))
	httpx.Reply(c, http.StatusOK, v, err)
}

// published streams a spec's last version inside an
// integrationsapi.PublishedSpec, without decoding it.
func (h *handlers) published(c *gin.Context) {
	cs, v, err := h.svc.Published(c.Request.Context(), org(c), slug(c))
	h.writePublished(c, cs, v, err)
}

// publishedByURL is published of the spec whose source is the url query
// parameter.
func (h *handlers) publishedByURL(c *gin.Context) {
	u := c.Query("url")
	if u == "" || len(u) > openapi.MaxSourceURL {
		httpx.Error(c, apierr.Invalid("url", "must be a URL of at most %d characters", openapi.MaxSourceURL))
		return
	}
	cs, v, err := h.svc.PublishedByURL(c.Request.Context(), org(c), u)
	h.writePublished(c, cs, v, err)
}

// writePublished writes a spec's last version inside an
// integrationsapi.PublishedSpec.
func (h *handlers) writePublished(c *gin.Context, cs openapi.ContentStream, v openapi.Version, err error) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer cs.Filesystem.Close()
	head, err := json.Marshal(integrationsapi.PublishedSpec{Slug: cs.Slug, Version: v.ID, Digest: v.Digest})
	if err != nil {
		httpx.Error(c, err)
		return
	}
	// {"slug":…,"version":…,"digest":…,"document":null} → …,"document":<stream>}
	head = bytes.TrimSuffix(head, []byte("null}"))
	const tail = "}"
	w := c.Writer
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.FormatInt(int64(len(head)+len(tail))+cs.Size, 10))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(head)
	if _, err := io.Copy(w, cs.Filesystem); err != nil {
		_ = c.Error(err) // the short body tells the client (Content-Length)
		return
	}
	_, _ = io.WriteString(w, tail)
}
