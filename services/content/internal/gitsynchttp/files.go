package gitsynchttp

import (
	"archive/tar"
	"fmt"
	"io"
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/gin-gonic/gin"
)

// files streams files of a revision as one tar archive: an entry per
// file (its name the file's id, its size the file's), read from the blob
// store one after the other, so the memory of a request does not grow
// with the files. A failure once streaming started cuts the archive
// short, which its reader sees as a truncated entry or a missing end.
func (h *handlers) files(c *gin.Context) {
	g, ok := h.grant(c)
	if !ok {
		return
	}
	var in contentapi.FilesRequest
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, int64(MaxFiles)*64+1024)
	if err := httpx.BindOptionalJSON(c, &in); err != nil {
		httpx.Error(c, err)
		return
	}
	if len(in.IDs) > MaxFiles {
		httpx.Error(c, apierr.Invalid("ids", "must have at most %d items", MaxFiles))
		return
	}
	ctx := c.Request.Context()
	r, err := h.revisions.Tree(ctx, c.Param("revisionId"))
	if err != nil || r.Space != g.Space {
		httpx.Error(c, revision.ErrRevisionNotFound)
		return
	}
	var files []revision.File
	if in.IDs == nil {
		files = r.Files
	}
	for i, id := range in.IDs {
		f, ok := r.FindFile(id)
		if !ok {
			httpx.Error(c, apierr.Invalid(fmt.Sprintf("ids[%d]", i), "names no file of the revision"))
			return
		}
		files = append(files, f)
	}
	tw := tar.NewWriter(c.Writer)
	for i, f := range files {
		rc, err := h.revisions.OpenBlob(ctx, f.Blob, f.Size)
		if err != nil && i == 0 {
			httpx.Error(c, err) // nothing sent yet: an answer of its own
			return
		}
		if err != nil {
			c.Error(fmt.Errorf("open file %s: %w", f.ID, err)) //nolint:errcheck // recorded for the log
			return                                             // the archive ends without its trailer
		}
		if i == 0 {
			c.Header("Content-Type", "application/x-tar")
			c.Status(http.StatusOK)
		}
		err = tw.WriteHeader(&tar.Header{Name: f.ID, Size: f.Size, Mode: 0o644, Typeflag: tar.TypeReg,
			PAXRecords: map[string]string{"DOCSPUB.sha256": f.SHA256()}})
		if err == nil {
			_, err = io.CopyN(tw, rc, f.Size)
		}
		rc.Close()
		if err != nil {
			c.Error(fmt.Errorf("stream file %s: %w", f.ID, err)) //nolint:errcheck // recorded for the log
			return
		}
	}
	if len(files) == 0 {
		c.Header("Content-Type", "application/x-tar")
		c.Status(http.StatusOK)
	}
	_ = tw.Close()
}
