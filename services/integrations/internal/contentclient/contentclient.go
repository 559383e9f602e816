// Package contentclient calls content's internal Git sync API
// (/internal/v1/spaces/{spaceId}/git/..., contentapi) through
// internalclient: the caller's right to sync a space (with a token minted
// for the user), and, for the jobs (with a token of the service alone),
// the space's current revision, its content and file bytes, storing file
// bytes, a Git import and the space's gitSync state.
package contentclient

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/integrations/internal/access"
)

// Service is content's name in discovery and the audience of the tokens
// the client mints.
const Service = contentapi.Service

// MaxContentBytes bounds the answer of Content (a space's page tree with its markdown).
const MaxContentBytes = contentapi.MaxContentBytes

// timeout bounds one call (a revision's content, a batch of files).
const timeout = 2 * time.Minute

// ErrMoved is a revision refused because the space moved on meanwhile.
var ErrMoved = apierr.Conflict("the space's content changed meanwhile")

// Client calls content.
type Client struct {
	content *internalclient.Client
}

// New returns a client that finds content through resolver and signs with signer.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{content: internalclient.New(Service, resolver, signer, timeout)}
}

// Content's types.
type (
	// Access is the caller's right to sync a space.
	Access = contentapi.GitAccess
	// Page is a page of a space's tree.
	Page = contentapi.Page
	// File is a file of a revision.
	File = contentapi.File
	// Git is a revision's commit.
	Git = contentapi.Git
	// Content is a space's current revision.
	Content = contentapi.Content
	// Revision is a Git import to write.
	Revision = contentapi.Import
	// ReusableContent is a block of markdown pages include.
	ReusableContent = contentapi.ReusableContent
	// Sync is a space's gitSync state.
	Sync = contentapi.GitSync
)

func gitPath(spaceID, rest string) string { return contentapi.SpacePath(spaceID, "/git"+rest) }

// do makes a call about a space; content's 409 is ErrMoved.
func (c *Client) do(ctx context.Context, r internalclient.Request, out any) error {
	if r.What == "" {
		r.What = "space"
	}
	err := c.content.Do(ctx, r, out, MaxContentBytes)
	if internalclient.StatusOf(err) == http.StatusConflict {
		return ErrMoved
	}
	return err
}

// Access asks whether the caller sees the space (a 404 otherwise, as
// content answers) and may sync it.
func (c *Client) Access(ctx context.Context, caller access.Caller, spaceID string) (Access, error) {
	var a Access
	as := c.content.For(caller.UserID, caller.Roles)
	err := c.do(ctx, internalclient.Request{Method: http.MethodGet, Path: gitPath(spaceID, "/access"), As: &as}, &a)
	return a, err
}

// Current reads the space's current revision: what an import is built over.
func (c *Client) Current(ctx context.Context, spaceID string) (string, error) {
	var cur contentapi.Current
	err := c.do(ctx, internalclient.Request{Method: http.MethodGet, Path: gitPath(spaceID, "/current")}, &cur)
	return cur.Revision, err
}

// Content reads the space's current revision whole.
func (c *Client) Content(ctx context.Context, spaceID string) (Content, error) {
	var v Content
	err := c.do(ctx, internalclient.Request{Method: http.MethodGet, Path: gitPath(spaceID, "/content")}, &v)
	return v, err
}

// Blob is a file's bytes to store.
type Blob = contentapi.Upload

// Limits of one PutBlobs (see contentapi.MaxUploadFiles).
const (
	MaxBatchFiles = contentapi.MaxUploadFiles
	MaxBatchBytes = contentapi.MaxUploadBytes
)

// PutBlobs stores several files' bytes in one request (at most
// MaxBatchFiles of them and MaxBatchBytes in all) and returns them, in order.
func (c *Client) PutBlobs(ctx context.Context, spaceID string, blobs []Blob) ([]File, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, b := range blobs {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": b.Name}))
		h.Set("Content-Type", b.ContentType)
		w, err := mw.CreatePart(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(b.Data); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	var out contentapi.Blobs
	if err := c.do(ctx, internalclient.Request{Method: http.MethodPost, Path: gitPath(spaceID, "/blobs/batch"),
		Body: &body, ContentType: mw.FormDataContentType(), What: "files"}, &out); err != nil {
		return nil, err
	}
	if len(out.Blobs) != len(blobs) {
		return nil, fmt.Errorf("content stored %d files of %d", len(out.Blobs), len(blobs))
	}
	files := make([]File, len(blobs))
	for i, b := range blobs {
		files[i] = File{Name: b.Name, ContentType: b.ContentType, Size: out.Blobs[i].Size, Blob: out.Blobs[i].Blob}
	}
	return files, nil
}

// CreateRevision writes a Git import (with r.GitSync the space's sync
// state, in the same change); ErrMoved when the space moved on from r.Parent.
func (c *Client) CreateRevision(ctx context.Context, spaceID string, r Revision) (string, error) {
	var out contentapi.Imported
	err := c.do(ctx, internalclient.Request{Method: http.MethodPost, Path: gitPath(spaceID, "/revisions"), JSON: r}, &out)
	return out.Revision, err
}

// SetSync records the space's gitSync state.
func (c *Client) SetSync(ctx context.Context, spaceID string, s Sync) error {
	return c.do(ctx, internalclient.Request{Method: http.MethodPut, Path: gitPath(spaceID, "/sync"), JSON: s}, nil)
}

// Files reads files of a revision in one request (content's POST
// files/{revisionId}: a tar stream) and calls fn with each file's id and
// bytes, in the order of ids, one at a time: at most max bytes of one
// file are held. A file larger than max, one missing from the stream, or
// a stream cut short is an error.
func (c *Client) Files(ctx context.Context, spaceID, revisionID string, ids []string, max int64, fn func(id string, data []byte) error) error {
	if len(ids) == 0 {
		return nil
	}
	res, err := c.content.Send(ctx, internalclient.Request{Method: http.MethodPost,
		Path: gitPath(spaceID, "/files/"+url.PathEscape(revisionID)), JSON: contentapi.FilesRequest{IDs: ids}})
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return c.content.Problem(res, "files")
	}
	tr := tar.NewReader(res.Body)
	for _, id := range ids {
		h, err := tr.Next()
		if err != nil {
			return fmt.Errorf("read files of revision %s: %s missing (%w)", revisionID, id, err)
		}
		if h.Name != id {
			return fmt.Errorf("read files of revision %s: got %s, want %s", revisionID, h.Name, id)
		}
		if h.Size > max {
			return fmt.Errorf("file %s is larger than %d bytes", id, max)
		}
		data := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, data); err != nil {
			return fmt.Errorf("read file %s: %w", id, err)
		}
		if err := fn(id, data); err != nil {
			return err
		}
	}
	return nil
}
