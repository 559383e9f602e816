package contentclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// The reads below are the published site's: sites calls them for readers
// who are not members (no user), with a token that names the sites
// service alone, on content's internal API for platform services
// (/internal/v1/spaces/{spaceId}/git/... and the reader's reads beside it).

// ErrNoSpace is content's answer about a space it does not have (or no
// longer has: purged).
var ErrNoSpace = errors.New("content has no such space")

// Current is a space's current revision as content answers it.
type Current struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	Deleted      bool   `json:"deleted"`
}

// Page is a page of a revision's tree (document or group) with its
// markdown.
type Page struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Slug        string `json:"slug"`
	Description string `json:"description"`
	Emoji       string `json:"emoji"`
	Hidden      bool   `json:"hidden"`
	Markdown    string `json:"markdown"`
	Pages       []Page `json:"pages"`
}

// File is a file of a revision.
type File struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	SHA256      string `json:"sha256"` // hex of the bytes' SHA-256: the file's ETag ("" when content has none)
}

// Revision is a space's revision with its page tree, markdown and files.
type Revision struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	Pages        []Page `json:"pages"`
	Files        []File `json:"files"`
	// ReusableContents are the blocks pages include ({% include %}).
	ReusableContents []ReusableContent `json:"reusableContents"`
}

// ReusableContent is a block of markdown pages include.
type ReusableContent struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// SearchResult is a space with its pages matching a search (content's
// search result item).
type SearchResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Pages []struct {
		ID       string `json:"id"`
		Title    string `json:"title"`
		Path     string `json:"path"`
		Sections []struct {
			Title string `json:"title"`
			Path  string `json:"path"`
			Body  string `json:"body"`
		} `json:"sections"`
	} `json:"pages"`
}

// serviceToken mints the token of a call the sites service makes on its
// own behalf (a published site's reader is no member): for content only.
func (c *Client) serviceToken() (string, error) {
	tok, err := c.signer.Mint(Service, internaltoken.Principal{Service: c.signer.Service()})
	if err != nil {
		return "", fmt.Errorf("mint internal token: %w", err)
	}
	return tok, nil
}

func unavailable(what string) error {
	return apierr.Unavailable(retryAfter, "content service unavailable: %s", what)
}

// call sends a request for the sites service itself and returns the
// response when content answered 200. A 404, 409 or 410 (no such space,
// deleted, purged) is ErrNoSpace; anything else (content down, another
// status) a 503. The caller closes the body.
func (c *Client) call(ctx context.Context, method, path string, body any, what string) (*http.Response, error) {
	base, err := c.resolver.Resolve(ctx, Service)
	if err != nil {
		return nil, unavailable(what)
	}
	tok, err := c.serviceToken()
	if err != nil {
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return nil, fmt.Errorf("encode %s: %w", what, err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", what, err)
	}
	req.Header.Set(internaltoken.Header, tok)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, unavailable(what)
	}
	switch res.StatusCode {
	case http.StatusOK:
		return res, nil
	case http.StatusNotFound, http.StatusConflict, http.StatusGone:
		res.Body.Close()
		return nil, ErrNoSpace
	}
	res.Body.Close()
	return nil, unavailable(what)
}

// decode reads a JSON answer of at most max bytes.
func decode(res *http.Response, max int64, v any, what string) error {
	defer res.Body.Close()
	if err := json.NewDecoder(io.LimitReader(res.Body, max)).Decode(v); err != nil {
		return unavailable(what)
	}
	return nil
}

func spacePath(spaceID string) string {
	return "/internal/v1/spaces/" + url.PathEscape(spaceID)
}

// Current asks content for a space's current revision
// (GET /internal/v1/spaces/{spaceId}/git/current).
func (c *Client) Current(ctx context.Context, spaceID string) (Current, error) {
	ctx, cancel := context.WithTimeout(ctx, limits.ContentTimeout)
	defer cancel()
	res, err := c.call(ctx, http.MethodGet, spacePath(spaceID)+"/git/current", nil, "current revision")
	if err != nil {
		return Current{}, err
	}
	var cur Current
	if err := decode(res, 4096, &cur, "current revision"); err != nil {
		return Current{}, err
	}
	if cur.Revision == "" || cur.Organization == "" {
		return Current{}, unavailable("current revision")
	}
	return cur, nil
}

// Content reads a space's current revision with its pages' markdown and
// its files (GET /internal/v1/spaces/{spaceId}/git/content), at most
// limits.ReaderRevisionBytes of it.
func (c *Client) Content(ctx context.Context, spaceID string) (Revision, error) {
	ctx, cancel := context.WithTimeout(ctx, limits.ReaderRevisionTimeout)
	defer cancel()
	res, err := c.call(ctx, http.MethodGet, spacePath(spaceID)+"/git/content", nil, "space content")
	if err != nil {
		return Revision{}, err
	}
	if res.ContentLength > limits.ReaderRevisionBytes {
		res.Body.Close()
		return Revision{}, apierr.TooLarge("the content of space %s is larger than %d bytes", spaceID, limits.ReaderRevisionBytes)
	}
	var rev Revision
	if err := decode(res, limits.ReaderRevisionBytes, &rev, "space content"); err != nil {
		return Revision{}, err
	}
	if rev.Revision == "" {
		return Revision{}, unavailable("space content")
	}
	return rev, nil
}

// FileAsk is what a file read asks beyond the file: the reader's Range
// and If-None-Match, passed on to content ("" for none).
type FileAsk struct {
	Range, IfNoneMatch string
}

// FileAnswer is content's answer to a file read: 200 (whole), 206 (the
// range ContentRange names) or 304 (no Body).
type FileAnswer struct {
	Status       int
	Body         io.ReadCloser // nil for a 304
	Size         int64         // bytes of Body, -1 when unknown
	ETag         string
	ContentRange string
}

// File streams a file of a space's revision
// (GET /internal/v1/spaces/{spaceId}/git/files/{revisionId}/{fileId}),
// with the reader's Range and If-None-Match. The caller closes the body.
func (c *Client) File(ctx context.Context, spaceID, revisionID, fileID string, ask FileAsk) (FileAnswer, error) {
	const what = "file"
	base, err := c.resolver.Resolve(ctx, Service)
	if err != nil {
		return FileAnswer{}, unavailable(what)
	}
	tok, err := c.serviceToken()
	if err != nil {
		return FileAnswer{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet,
		base+spacePath(spaceID)+"/git/files/"+url.PathEscape(revisionID)+"/"+url.PathEscape(fileID), nil)
	if err != nil {
		return FileAnswer{}, fmt.Errorf("build %s: %w", what, err)
	}
	req.Header.Set(internaltoken.Header, tok)
	if ask.Range != "" {
		req.Header.Set("Range", ask.Range)
	}
	if ask.IfNoneMatch != "" {
		req.Header.Set("If-None-Match", ask.IfNoneMatch)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return FileAnswer{}, unavailable(what)
	}
	a := FileAnswer{Status: res.StatusCode, Size: res.ContentLength, ETag: res.Header.Get("ETag"),
		ContentRange: res.Header.Get("Content-Range")}
	switch res.StatusCode {
	case http.StatusOK, http.StatusPartialContent:
		a.Body = res.Body
		return a, nil
	case http.StatusNotModified:
		res.Body.Close()
		return a, nil
	case http.StatusRequestedRangeNotSatisfiable:
		res.Body.Close()
		return FileAnswer{}, apierr.New(http.StatusRequestedRangeNotSatisfiable, "the range is not satisfiable")
	case http.StatusNotFound, http.StatusConflict, http.StatusGone:
		res.Body.Close()
		return FileAnswer{}, ErrNoSpace
	}
	res.Body.Close()
	return FileAnswer{}, unavailable(what)
}

// Search runs content's search over the given spaces of org
// (POST /internal/v1/orgs/{organizationId}/search): at most limit spaces
// with their best pages.
func (c *Client) Search(ctx context.Context, org string, spaceIDs []string, query string, limit int) ([]SearchResult, error) {
	ctx, cancel := context.WithTimeout(ctx, limits.ContentTimeout)
	defer cancel()
	res, err := c.call(ctx, http.MethodPost, "/internal/v1/orgs/"+url.PathEscape(org)+"/search",
		map[string]any{"spaces": spaceIDs, "query": query, "limit": limit}, "search")
	if errors.Is(err, ErrNoSpace) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out struct {
		Items []SearchResult `json:"items"`
	}
	if err := decode(res, 4<<20, &out, "search"); err != nil {
		return nil, err
	}
	return out.Items, nil
}
