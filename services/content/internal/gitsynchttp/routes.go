// Package gitsynchttp is content's internal API for Git sync, under
// /internal/v1/spaces/{spaceId}/git, for the integrations service alone
// (another service's token is a 403): content stays the only writer of
// revisions, and the integrations service clones, reads and pushes
// repositories. Every route needs an internal token (see
// internaltoken.Require); "access" acts for the user who started the
// operation (a token the integrations service minted with their user id
// and roles), the others for the service alone. The types are
// contentapi's.
//
//	GET  access                       the caller's right to sync the space, the space's org and revision, the author
//	GET  current                      the space's current revision (what an import is built over)
//	GET  content                      the space's current revision: page tree with markdown, files
//	POST files/{revisionId}           {ids}: those files of the revision (all of them without ids) in one
//	                                  tar stream, an entry per file named by its id, in the order asked
//	                                  (an export reads them all in one request)
//	POST blobs?name=&contentType=     store file bytes (body, at most MaxFileBytes) → {blob, size}
//	POST blobs/batch                  store several files at once (multipart/form-data, one part "file"
//	                                  per file with its filename and Content-Type; at most MaxBatchFiles
//	                                  and MaxBatchBytes) → {blobs: [{blob, size}]}, in order
//	POST revisions                    a Git import (contentapi.Import): a revision built over parent;
//	                                  moves the space to it with its gitSync state in one change
//	                                  (compare-and-set on parent: 409 when it moved) unless standalone
//	PUT  sync                         the space's gitSync state
package gitsynchttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/people"
	"github.com/docspub/platform/services/content/internal/readerhttp"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/gin-gonic/gin"
)

// Limits of the internal API (content's own, from internal/limits).
const (
	MaxFileBytes = limits.FileBytes // one file's bytes (413)
	// MaxRevisionBytes bounds a revision request's body: the page tree and
	// every page's markdown (page bodies are stored apart from the revision).
	MaxRevisionBytes = limits.RevisionMarkdown + limits.RevisionDocument
	// MaxBatchFiles and MaxBatchBytes bound one POST blobs/batch (400, 413).
	MaxBatchFiles = 100
	MaxBatchBytes = 16 << 20
)

// Spaces is what the routes need of the space service.
type Spaces interface {
	Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error)
	ServiceGrant(ctx context.Context, spaceID string) (access.Grant, error)
	SetGitSync(ctx context.Context, spaceID string, gs space.GitSync) error
}

// Importer is the Git import operation (space.GitImports).
type Importer interface {
	Import(ctx context.Context, g access.Grant, in space.GitImport) (string, error)
}

// Revisions is what the routes need of the revision store: revision.Store,
// and storing several files at once.
type Revisions interface {
	revision.Store
	// PutBlobs stores several files' bytes written by owner at once and
	// returns their blob ids, in order.
	PutBlobs(ctx context.Context, owner revision.Owner, blobs []revision.Blob) (ids []string, err error)
}

type handlers struct {
	spaces    Spaces
	imports   Importer
	revisions Revisions
	people    people.Directory
}

// Register adds the routes to internal, the /internal/v1 group behind
// internaltoken.Require, for the integrations service alone.
func Register(internal gin.IRouter, spaces Spaces, imports Importer, revisions Revisions, whole readerhttp.WholeFunc, dir people.Directory) {
	h := &handlers{spaces: spaces, imports: imports, revisions: revisions, people: dir}
	g := internal.Group("/spaces/:spaceId/git")
	g.GET("/access", internaltoken.RequireUserOf(contentapi.Integrations), h.access)
	svc := g.Group("", internaltoken.RequireService(contentapi.Integrations))
	svc.GET("/current", readerhttp.Current(spaces))
	svc.GET("/content", readerhttp.Content(spaces, whole))
	svc.POST("/files/:revisionId", h.files)
	svc.POST("/blobs", h.blob)
	svc.POST("/blobs/batch", h.blobs)
	svc.POST("/revisions", h.revision)
	svc.PUT("/sync", h.sync)
}

func (h *handlers) access(c *gin.Context) {
	ctx := c.Request.Context()
	p := internaltoken.CallerOf(c)
	g, err := h.spaces.Enter(ctx, p, c.Param("spaceId"), access.View)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v := contentapi.GitAccess{Space: g.Space, Organization: g.Organization, Revision: g.Revision,
		CanSync: access.ForSpace(g.Level, g.Locked).TriggerGitSync,
		Author:  contentapi.Author{Name: p.UserID, Email: p.UserID + "@users.noreply.docspub"}}

	if users, err := h.people.Users(ctx, []string{p.UserID}); err == nil {
		if u, ok := users[p.UserID]; ok {
			v.Author.Name = u.DisplayName
			if u.Email != "" {
				v.Author.Email = u.Email
			}
		}
	}
	httpx.Reply(c, http.StatusOK, v, nil)
}

func (h *handlers) grant(c *gin.Context) (access.Grant, bool) {
	g, err := h.spaces.ServiceGrant(c.Request.Context(), c.Param("spaceId"))
	if err != nil {
		httpx.Error(c, err)
		return g, false
	}
	return g, true
}

func (h *handlers) blob(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	name := c.Query("name")
	var p apierr.Problems
	p.Text("name", name, 1, 255)
	if err := p.Err(); err != nil {
		httpx.Error(c, err)
		return
	}
	ct := contentType(c.Query("contentType"))
	body := http.MaxBytesReader(c.Writer, c.Request.Body, MaxFileBytes)
	id, size, err := h.revisions.PutBlob(c.Request.Context(), revision.Owner{Space: g.Space, Organization: g.Organization}, name, ct, body)
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		httpx.Error(c, apierr.TooLarge("a file may have at most %d bytes", MaxFileBytes))
		return
	}
	if err != nil {
		httpx.Error(c, err)
		return
	}
	httpx.Reply(c, http.StatusCreated, contentapi.Blob{Blob: id, Size: size}, nil)
}

// blobs stores the files of a multipart body at once (one grant, a few
// writes for all of them).
func (h *handlers) blobs(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, MaxBatchBytes)
	mr, err := c.Request.MultipartReader()
	if err != nil {
		httpx.Error(c, apierr.BadRequest("the body must be multipart/form-data"))
		return
	}
	var blobs []revision.Blob
	for i := 0; ; i++ {
		part, err := mr.NextRawPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			httpx.Error(c, batchErr(err))
			return
		}
		if i >= MaxBatchFiles {
			httpx.Error(c, apierr.Invalid("file", "at most %d files at once", MaxBatchFiles))
			return
		}
		field := fmt.Sprintf("file[%d]", i)
		_, params, _ := mime.ParseMediaType(part.Header.Get("Content-Disposition"))
		var p apierr.Problems
		p.Text(field+".filename", params["filename"], 1, 255)
		if err := p.Err(); err != nil {
			httpx.Error(c, err)
			return
		}
		data, err := io.ReadAll(io.LimitReader(part, MaxFileBytes+1))
		if err != nil {
			httpx.Error(c, batchErr(err))
			return
		}
		if len(data) > MaxFileBytes {
			httpx.Error(c, apierr.TooLarge("a file may have at most %d bytes", MaxFileBytes))
			return
		}
		blobs = append(blobs, revision.Blob{Name: params["filename"], ContentType: contentType(part.Header.Get("Content-Type")), Data: data})
	}
	ids, err := h.revisions.PutBlobs(c.Request.Context(), revision.Owner{Space: g.Space, Organization: g.Organization}, blobs)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	out := contentapi.Blobs{Blobs: make([]contentapi.Blob, len(ids))}
	for i, id := range ids {
		out.Blobs[i] = contentapi.Blob{Blob: id, Size: int64(len(blobs[i].Data))}
	}
	httpx.Reply(c, http.StatusCreated, out, nil)
}

// batchErr is the answer to a multipart body that could not be read.
func batchErr(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return apierr.TooLarge("a batch of files may have at most %d bytes", MaxBatchBytes)
	}
	return apierr.BadRequest("malformed multipart body: %s", err.Error())
}

// contentType is a file's stored content type (application/octet-stream
// for none or a malformed one).
func contentType(ct string) string {
	if ct == "" || len(ct) > 255 || strings.ContainsAny(ct, "\r\n") {
		return "application/octet-stream"
	}
	return ct
}

func (h *handlers) revision(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	// Larger than the 1 MiB of httpx.BindJSON: a page tree with its markdown.
	var in contentapi.Import
	if err := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, MaxRevisionBytes)).Decode(&in); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpx.Error(c, apierr.TooLarge("a revision may have at most %d bytes", MaxRevisionBytes))
			return
		}
		httpx.Error(c, apierr.BadRequest("malformed revision: %s", err.Error()))
		return
	}
	id, err := h.imports.Import(c.Request.Context(), g, importOf(in))
	httpx.Reply(c, http.StatusCreated, contentapi.Imported{Revision: id}, err)
}

func (h *handlers) sync(c *gin.Context) {
	var gs contentapi.GitSync
	if !httpx.Bind(c, &gs) {
		return
	}
	httpx.Empty(c, http.StatusNoContent, h.spaces.SetGitSync(c.Request.Context(), c.Param("spaceId"), syncIn(gs)))
}
