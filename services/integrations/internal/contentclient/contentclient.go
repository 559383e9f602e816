// Package contentclient calls content's internal Git sync API
// (/internal/v1/spaces/{spaceId}/git/..., see content's gitsynchttp): the
// caller's right to sync a space (with a token minted for the user), and,
// for the jobs (with a token of the service alone), the space's current
// revision and file bytes, storing file bytes, writing a revision and the
// space's gitSync state. Discovery finds content; trace context travels.
package contentclient

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/services/integrations/internal/access"
)

// Service is content's name in discovery and the audience of the tokens
// the client mints.
const Service = "content"

// MaxContentBytes bounds the answer of Content (a space's page tree with its markdown).
const MaxContentBytes = 64 << 20

// ErrMoved is a revision refused because the space moved on meanwhile.
var ErrMoved = apierr.Conflict("the space's content changed meanwhile")

// Client calls content.
type Client struct {
	resolver discovery.Resolver
	signer   *internaltoken.Signer
	http     *http.Client
}

// New returns a client that finds content through resolver and signs with signer.
func New(resolver discovery.Resolver, signer *internaltoken.Signer) *Client {
	return &Client{resolver: resolver, signer: signer,
		http: &http.Client{Timeout: 2 * time.Minute, Transport: otelx.HTTPTransport(nil)}}
}

// Access is the caller's right to sync a space.
type Access struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	CanSync      bool   `json:"canSync"`
	Author       Author `json:"author"`
	GitSync      *Sync  `json:"gitSync,omitempty"`
}

// Author is who the caller's commits are by.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Page is a page of a space's tree.
type Page struct {
	ID          string `json:"id,omitempty"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Slug        string `json:"slug"`
	Description string `json:"description,omitempty"`
	Emoji       string `json:"emoji,omitempty"`
	Icon        string `json:"icon,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	Markdown    string `json:"markdown"`
	Pages       []Page `json:"pages"`
}

// File is a file of a revision.
type File struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	Blob        string `json:"blob,omitempty"`
}

// Git is a revision's commit.
type Git struct {
	OID              string `json:"oid"`
	Message          string `json:"message"`
	Ref              string `json:"ref,omitempty"`
	URL              string `json:"url,omitempty"`
	CreatedByService bool   `json:"createdByService,omitempty"`
}

// Content is a space's current revision.
type Content struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	Pages        []Page `json:"pages"`
	Files        []File `json:"files"`
	Git          *Git   `json:"git,omitempty"`
}

// Revision is a revision to write.
type Revision struct {
	Parent     string `json:"parent"`
	Standalone bool   `json:"standalone"`
	Pages      []Page `json:"pages"`
	Files      []File `json:"files"`
	Git        *Git   `json:"git,omitempty"`
	// ReusableContents are added to the space's, replacing those of the
	// same title (nil: the space's stay as they are).
	ReusableContents []ReusableContent `json:"reusableContents,omitempty"`
}

// ReusableContent is a block of markdown pages include.
type ReusableContent struct {
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// Sync is a space's gitSync state (GitSyncState, without operation).
type Sync struct {
	RepoName             string    `json:"repoName,omitempty"`
	InstallationID       string    `json:"installationId"`
	InstallationProvider string    `json:"installationProvider"`
	InstallationStatus   string    `json:"installationStatus"`
	Integration          string    `json:"integration,omitempty"`
	URL                  string    `json:"url,omitempty"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

// Access asks whether the caller sees the space (a 404 otherwise, as
// content answers) and may sync it.
func (c *Client) Access(ctx context.Context, caller access.Caller, spaceID string) (Access, error) {
	var a Access
	err := c.do(ctx, internaltoken.Principal{UserID: caller.UserID, Roles: caller.Roles, Service: c.signer.Service()},
		http.MethodGet, spaceID, "/access", nil, "", &a)
	return a, err
}

// Content reads the space's current revision.
func (c *Client) Content(ctx context.Context, spaceID string) (Content, error) {
	var v Content
	err := c.do(ctx, c.service(), http.MethodGet, spaceID, "/content", nil, "", &v)
	return v, err
}

// File opens a file's bytes; the caller closes them.
func (c *Client) File(ctx context.Context, spaceID, revisionID, fileID string) (io.ReadCloser, error) {
	res, err := c.send(ctx, c.service(), http.MethodGet, spaceID,
		"/files/"+url.PathEscape(revisionID)+"/"+url.PathEscape(fileID), nil, "")
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		return nil, answer(res, "file")
	}
	return res.Body, nil
}

// Blob is a file's bytes to store.
type Blob struct {
	Name        string
	ContentType string
	Data        []byte
}

// Limits of one PutBlobs: content's (MaxBatchFiles, MaxBatchBytes of its
// POST blobs/batch), the bytes with room for the multipart framing.
const (
	MaxBatchFiles = 100
	MaxBatchBytes = 15 << 20
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
	var out struct {
		Blobs []struct {
			Blob string `json:"blob"`
			Size int64  `json:"size"`
		} `json:"blobs"`
	}
	if err := c.do(ctx, c.service(), http.MethodPost, spaceID, "/blobs/batch", &body, mw.FormDataContentType(), &out); err != nil {
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

// CreateRevision writes a revision; ErrMoved when the space moved on from r.Parent.
func (c *Client) CreateRevision(ctx context.Context, spaceID string, r Revision) (string, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	var out struct {
		Revision string `json:"revision"`
	}
	err = c.do(ctx, c.service(), http.MethodPost, spaceID, "/revisions", bytes.NewReader(body), "application/json", &out)
	return out.Revision, err // content's 409 is ErrMoved (see answer)
}

// SetSync records the space's gitSync state.
func (c *Client) SetSync(ctx context.Context, spaceID string, s Sync) error {
	body, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return c.do(ctx, c.service(), http.MethodPut, spaceID, "/sync", bytes.NewReader(body), "application/json", nil)
}

// service is the principal of the service itself (no user).
func (c *Client) service() internaltoken.Principal {
	return internaltoken.Principal{Service: c.signer.Service()}
}

func (c *Client) send(ctx context.Context, p internaltoken.Principal, method, spaceID, path string, body io.Reader, ct string) (*http.Response, error) {
	base, err := c.resolver.Resolve(ctx, Service)
	if err != nil {
		return nil, apierr.Unavailable(5*time.Second, "content service unavailable")
	}
	tok, err := c.signer.Mint(Service, p)
	if err != nil {
		return nil, fmt.Errorf("mint internal token: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+"/internal/v1/spaces/"+url.PathEscape(spaceID)+"/git"+path, body)
	if err != nil {
		return nil, apierr.NotFound("space not found")
	}
	req.Header.Set(internaltoken.Header, tok)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, apierr.Unavailable(5*time.Second, "content service unavailable")
	}
	return res, nil
}

func (c *Client) do(ctx context.Context, p internaltoken.Principal, method, spaceID, path string, body io.Reader, ct string, out any) error {
	res, err := c.send(ctx, p, method, spaceID, path, body, ct)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode >= 300 {
		return answer(res, "space")
	}
	if out == nil {
		return nil
	}
	if err := json.NewDecoder(io.LimitReader(res.Body, MaxContentBytes)).Decode(out); err != nil {
		return fmt.Errorf("decode content's answer: %w", err)
	}
	return nil
}

// answer turns content's error answer into one of ours. Content's message
// speaks for content, so it is not shown to our clients: a 4xx keeps its
// status with our own message about what (the space, a file), a refused
// internal token or anything else is a 503.
func answer(res *http.Response, what string) error {
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	switch res.StatusCode {
	case http.StatusBadRequest:
		return apierr.BadRequest("the content service refused the %s as invalid", what)
	case http.StatusForbidden:
		return apierr.Forbidden("no access to the %s", what)
	case http.StatusNotFound:
		return apierr.NotFound("%s not found", what)
	case http.StatusConflict:
		return ErrMoved
	case http.StatusRequestEntityTooLarge:
		return apierr.TooLarge("the %s is larger than the content service accepts", what)
	case http.StatusUnauthorized:
	default:
		if res.StatusCode >= 400 && res.StatusCode < 500 {
			return apierr.New(res.StatusCode, "the content service refused the request for the %s (it answered %d)", what, res.StatusCode)
		}
	}
	return apierr.Unavailable(5*time.Second, "content service unavailable (it answered %d)", res.StatusCode)
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
	body, err := json.Marshal(map[string]any{"ids": ids})
	if err != nil {
		return err
	}
	res, err := c.send(ctx, c.service(), http.MethodPost, spaceID, "/files/"+url.PathEscape(revisionID), bytes.NewReader(body), "application/json")
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return answer(res, "files")
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
