// Package gitsynchttp is content's internal API for Git sync, under
// /internal/v1/spaces/{spaceId}/git: content stays the only writer of
// revisions, and the integrations service clones, reads and pushes
// repositories. Every route needs an internal token (see
// internaltoken.Require); "access" acts for the user who started the
// operation (a token with their user id and roles), the others for the
// platform service alone (a token with a service name and no user).
//
//	GET  access                       the caller's right to sync the space, the space's org and revision, the author
//	GET  content                      the space's current revision: page tree with markdown, files
//	GET  files/{revisionId}/{fileId}  a file's bytes (ETag the SHA-256, If-None-Match, Range)
//	POST files/{revisionId}           {ids}: those files of the revision (all of them without ids) in one
//	                                  tar stream, an entry per file named by its id, in the order asked
//	                                  (an export reads them all in one request)
//	POST blobs?name=&contentType=     store file bytes (body, at most MaxFileBytes) → {blob, size}
//	POST blobs/batch                  store several files at once (multipart/form-data, one part "file"
//	                                  per file with its filename and Content-Type; at most MaxBatchFiles
//	                                  and MaxBatchBytes) → {blobs: [{blob, size}]}, in order
//	POST revisions                    a revision built from a page tree and files; advances the space
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
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/people"
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
	Import(ctx context.Context, g access.Grant, from, to string) error
	SetGitSync(ctx context.Context, spaceID string, gs space.GitSync) error
}

// Revisions is what the routes need of the revision store: revision.Store,
// and storing several files at once.
type Revisions interface {
	revision.Store
	// PutBlobs stores several files' bytes written by owner at once and
	// returns their blob ids, in order.
	PutBlobs(ctx context.Context, owner revision.Owner, blobs []revision.Blob) (ids []string, err error)
}

// WholeFunc reads a revision with every page's markdown within the bounds
// of whole reads, and returns the function that gives them back
// (revision.Service.Whole).
type WholeFunc func(ctx context.Context, g access.Grant, revID string) (revision.Revision, func(), error)

type handlers struct {
	spaces    Spaces
	revisions Revisions
	whole     WholeFunc
	people    people.Directory
}

// Register adds the routes to internal, the /internal/v1 group behind
// internaltoken.Require.
func Register(internal gin.IRouter, spaces Spaces, revisions Revisions, whole WholeFunc, dir people.Directory) {
	h := &handlers{spaces: spaces, revisions: revisions, whole: whole, people: dir}
	g := internal.Group("/spaces/:spaceId/git")
	g.GET("/access", h.access)
	svc := g.Group("", requireService)
	svc.GET("/content", h.content)
	svc.GET("/files/:revisionId/:fileId", h.file)
	svc.POST("/files/:revisionId", h.files)
	svc.POST("/blobs", h.blob)
	svc.POST("/blobs/batch", h.blobs)
	svc.POST("/revisions", h.revision)
	svc.PUT("/sync", h.sync)
}

// requireService refuses calls that do not come from a platform service alone.
func requireService(c *gin.Context) {
	if p := internaltoken.From(c); p.Service == "" || p.UserID != "" {
		httpx.Error(c, apierr.Forbidden("this operation is for platform services"))
		return
	}
	c.Next()
}

// AccessView answers whether the caller may sync the space.
type AccessView struct {
	Space        string         `json:"space"`
	Organization string         `json:"organization"`
	Revision     string         `json:"revision"`
	CanSync      bool           `json:"canSync"`
	Author       Author         `json:"author"`
	GitSync      *space.GitSync `json:"gitSync,omitempty"`
}

// Author is who a commit of the caller's is by.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

func (h *handlers) access(c *gin.Context) {
	p := internaltoken.From(c)
	if p.UserID == "" {
		httpx.Error(c, apierr.Unauthorized("this operation needs a user"))
		return
	}
	ctx := c.Request.Context()
	g, err := h.spaces.Enter(ctx, access.Caller{UserID: p.UserID, Roles: p.Roles}, c.Param("spaceId"), access.View)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v := AccessView{Space: g.Space, Organization: g.Organization, Revision: g.Revision,
		CanSync: access.ForSpace(g.Level, g.Locked).TriggerGitSync,
		Author:  Author{Name: p.UserID, Email: p.UserID + "@users.noreply.docspub"}}
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

func (h *handlers) content(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	r, release, err := h.whole(c.Request.Context(), g, g.Revision)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer release()
	httpx.Reply(c, http.StatusOK, contentOf(g, r), nil)
}

func (h *handlers) file(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	ctx := c.Request.Context()
	r, err := h.revisions.Tree(ctx, c.Param("revisionId")) // the files, not the markdown
	if err != nil || r.Space != g.Space {
		httpx.Error(c, revision.ErrRevisionNotFound)
		return
	}
	f, ok := r.FindFile(c.Param("fileId"))
	if !ok {
		httpx.Error(c, revision.ErrFileNotFound)
		return
	}
	rc, err := h.revisions.OpenBlob(ctx, f.Blob, f.Size)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	defer rc.Close()
	c.Header("Content-Type", "application/octet-stream")
	c.Header("Cache-Control", httpx.Immutable(false))
	httpx.ServeFile(c.Writer, c.Request, f.SHA256(), rc)
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
	httpx.Reply(c, http.StatusCreated, BlobView{Blob: id, Size: size}, nil)
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
	out := BlobsView{Blobs: make([]BlobView, len(ids))}
	for i, id := range ids {
		out.Blobs[i] = BlobView{Blob: id, Size: int64(len(blobs[i].Data))}
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

// BlobsView is the blobs of POST blobs/batch, in the order of the parts.
type BlobsView struct {
	Blobs []BlobView `json:"blobs"`
}

// BlobView is a stored blob.
type BlobView struct {
	Blob string `json:"blob"`
	Size int64  `json:"size"`
}

func (h *handlers) revision(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	// Larger than the 1 MiB of httpx.BindJSON: a page tree with its markdown.
	var in RevisionInput
	if err := json.NewDecoder(http.MaxBytesReader(c.Writer, c.Request.Body, MaxRevisionBytes)).Decode(&in); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			httpx.Error(c, apierr.TooLarge("a revision may have at most %d bytes", MaxRevisionBytes))
			return
		}
		httpx.Error(c, apierr.BadRequest("malformed revision: %s", err.Error()))
		return
	}
	id, err := h.build(c.Request.Context(), g, in)
	httpx.Reply(c, http.StatusCreated, map[string]string{"revision": id}, err)
}

func (h *handlers) sync(c *gin.Context) {
	var gs space.GitSync
	if !httpx.Bind(c, &gs) {
		return
	}
	httpx.Empty(c, http.StatusNoContent, h.spaces.SetGitSync(c.Request.Context(), c.Param("spaceId"), gs))
}
