package contentclient

import (
	"context"
	"errors"
	"net/http"
	"net/url"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// The reads below are the published site's: sites calls them for readers
// who are not members (no user), with a token that names the sites
// service alone, on content's readers' API (contentapi).

// ErrNoSpace is content's answer about a space it does not have (or no
// longer has: purged).
var ErrNoSpace = contentapi.ErrNoSpace

// Content's types, as the reads answer them.
type (
	// Current is a space's current revision.
	Current = contentapi.Current
	// Page is a page of a revision's tree (document or group) with its markdown.
	Page = contentapi.Page
	// File is a file of a revision.
	File = contentapi.File
	// Revision is a space's revision with its page tree, markdown and files.
	Revision = contentapi.Content
	// ReusableContent is a block of markdown pages include.
	ReusableContent = contentapi.ReusableContent
	// Redirect sends readers of a path no page has to a page.
	Redirect = contentapi.Redirect
	// SearchResult is a space with its pages matching a search.
	SearchResult = contentapi.SearchResult
)

func unavailable(what string) error {
	return apierr.Unavailable(retryAfter, "content service unavailable: %s", what)
}

// read is a read for the sites service itself: content's 404, 409 or 410
// (no such space, deleted, purged) is ErrNoSpace, anything else than a
// well-formed answer a 503.
func (c *Client) read(ctx context.Context, r internalclient.Request, out any, max int64) error {
	err := c.content.Do(ctx, r, out, max)
	switch internalclient.StatusOf(err) {
	case http.StatusNotFound, http.StatusConflict, http.StatusGone:
		return ErrNoSpace
	}
	if err != nil && ctx.Err() == nil && !errors.Is(err, internalclient.ErrTooLarge) {
		return unavailable(r.What)
	}
	return err
}

// Current asks content for a space's current revision
// (GET /internal/v1/spaces/{spaceId}/current).
func (c *Client) Current(ctx context.Context, spaceID string) (Current, error) {
	var cur Current
	err := c.read(ctx, internalclient.Request{Method: http.MethodGet, Path: contentapi.SpacePath(spaceID, "/current"),
		What: "current revision"}, &cur, 4096)
	if err != nil {
		return Current{}, err
	}
	if cur.Revision == "" || cur.Organization == "" {
		return Current{}, unavailable("current revision")
	}
	return cur, nil
}

// Content reads a space's current revision with its pages' markdown and
// its files (GET /internal/v1/spaces/{spaceId}/content), at most
// limits.ReaderRevisionBytes of it.
func (c *Client) Content(ctx context.Context, spaceID string) (Revision, error) {
	const what = "space content"
	var rev Revision
	err := c.read(ctx, internalclient.Request{Method: http.MethodGet, Path: contentapi.SpacePath(spaceID, "/content"),
		Timeout: limits.ReaderRevisionTimeout, What: what}, &rev, limits.ReaderRevisionBytes)
	if errors.Is(err, internalclient.ErrTooLarge) {
		return Revision{}, apierr.TooLarge("the content of space %s is larger than %d bytes", spaceID, limits.ReaderRevisionBytes)
	}
	if err != nil {
		return Revision{}, err
	}
	if rev.Revision == "" {
		return Revision{}, unavailable(what)
	}
	return rev, nil
}

// FileAsk is what a file read asks beyond the file (contentapi.FileAsk).
type FileAsk = contentapi.FileAsk

// FileAnswer is content's answer to a file read (contentapi.FileAnswer).
type FileAnswer = contentapi.FileAnswer

// File streams a file of a space's revision
// (GET /internal/v1/spaces/{spaceId}/files/{revisionId}/{fileId}),
// with the reader's Range and If-None-Match. The caller closes the body.
func (c *Client) File(ctx context.Context, spaceID, revisionID, fileID string, ask FileAsk) (FileAnswer, error) {
	const what = "file"
	h := http.Header{}
	if ask.Range != "" {
		h.Set("Range", ask.Range)
	}
	if ask.IfNoneMatch != "" {
		h.Set("If-None-Match", ask.IfNoneMatch)
	}
	res, err := c.content.Send(ctx, internalclient.Request{Method: http.MethodGet, Header: h, What: what,
		Path: contentapi.SpacePath(spaceID, "/files/"+url.PathEscape(revisionID)+"/"+url.PathEscape(fileID))})
	if err != nil {
		if ctx.Err() != nil {
			return FileAnswer{}, err
		}
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
	}
	defer res.Body.Close()
	err = c.content.Problem(res, what)
	switch internalclient.StatusOf(err) {
	case http.StatusRequestedRangeNotSatisfiable:
		return FileAnswer{}, err
	case http.StatusNotFound, http.StatusConflict, http.StatusGone:
		return FileAnswer{}, ErrNoSpace
	}
	return FileAnswer{}, unavailable(what)
}

// Search runs content's search over the given spaces of org
// (POST /internal/v1/orgs/{organizationId}/search): at most limit spaces
// with their best pages.
func (c *Client) Search(ctx context.Context, org string, spaceIDs []string, query string, limit int) ([]SearchResult, error) {
	var out contentapi.SearchAnswer
	err := c.read(ctx, internalclient.Request{Method: http.MethodPost, Path: contentapi.OrgPath(org, "/search"),
		JSON: contentapi.SearchRequest{Spaces: spaceIDs, Query: query, Limit: limit}, What: "search"}, &out, 4<<20)
	if errors.Is(err, ErrNoSpace) {
		return nil, nil
	}
	return out.Items, err
}
