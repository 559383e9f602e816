package reader

import (
	"bytes"
	"cmp"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// inlineTypes are the file types shown in place; any other downloads.
var inlineTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// file serves a file of a revision of a site space the reader sees
// (<site>/~files/<siteSpaceId>/<revisionId>/<fileId>): content checks that
// the revision is the space's. Its type comes from the revision when it is
// cached (application/octet-stream, downloaded, otherwise); files up to
// limits.ReaderCachedFileBytes are cached, keyed by organization, space,
// revision and file: bytes content gave for one space are never answered
// through another's site space. A file never changes: with its
// SHA-256 known (from the cached revision, or content's answer) it is
// answered like a static file: a matching If-None-Match is a 304 without
// asking content, a Range a 206 (readerhttp cuts a cached file in at most
// httpx.MaxRanges ranges; content cuts the others in one).
func (r *Reader) file(ctx context.Context, rd *read, siteSpaceID, revID, fileID string) *Response {
	_, v := rd.st.siteSpace(siteSpaceID)
	if v == nil {
		return r.notFound(rd, "This file does not exist.")
	}
	resp := rd.resp
	resp.Status, resp.Type, resp.Immutable, resp.NoIndex = http.StatusOK, "application/octet-stream", true, true
	resp.Name = fileID
	size := int64(-1)
	org := rd.site.Organization
	if t, ok := r.cache.Get(revKey(org, v.ss.Space, revID)); ok {
		tr := t.(*tree)
		if tr.space != v.ss.Space {
			return r.notFound(rd, "This file does not exist.")
		}
		f, ok := tr.files[fileID]
		if !ok {
			return r.notFound(rd, "This file does not exist.")
		}
		if ct, _, err := mime.ParseMediaType(f.ContentType); err == nil && strings.Contains(ct, "/") {
			resp.Type, resp.Inline = ct, inlineTypes[ct]
		}
		size, resp.Name, resp.ETag = f.Size, f.Name, f.SHA256
	}
	if resp.ETag != "" && etagMatch(rd.req.IfNoneMatch, resp.ETag) {
		resp.Status = http.StatusNotModified
		return resp
	}
	key := cacheKey("file", org, v.ss.Space, revID, fileID)
	if b, ok := r.cache.Get(key); ok {
		c := b.(cachedFile)
		resp.Body = c.data
		resp.ETag = cmp.Or(resp.ETag, c.etag)
		return resp
	}
	cacheable := size >= 0 && size <= limits.ReaderCachedFileBytes
	ask := contentapi.FileAsk{IfNoneMatch: rd.req.IfNoneMatch}
	if !cacheable && !strings.Contains(rd.req.Range, ",") {
		// A cached file is cut by readerhttp; content cuts the others in
		// one range (its multipart answer's type would not reach the
		// reader): several get the whole file.
		ask.Range = rd.req.Range
	}
	a, err := r.deps.Content.File(ctx, v.ss.Space, revID, fileID, ask)
	if err != nil {
		return r.failed(rd, err)
	}
	if etag := strings.Trim(a.ETag, `"`); etag != "" {
		resp.ETag = etag
	}
	if a.Status == http.StatusNotModified {
		resp.Status = http.StatusNotModified
		return resp
	}
	body := a.Body
	var stream io.Reader = body
	if cacheable && a.Status == http.StatusOK {
		b, err := io.ReadAll(io.LimitReader(body, limits.ReaderCachedFileBytes+1))
		if err != nil {
			body.Close()
			return r.failed(rd, err)
		}
		if int64(len(b)) <= limits.ReaderCachedFileBytes {
			body.Close()
			r.cache.Add(key, cachedFile{data: b, etag: resp.ETag}, int64(len(b))+128)
			resp.Body = b
			return resp
		}
		// Larger than the revision said: streamed whole all the same.
		stream, size = io.MultiReader(bytes.NewReader(b), body), -1
	} else {
		size = a.Size
	}
	resp.Status, resp.ContentRange = a.Status, a.ContentRange
	resp.File = limitedCloser{Reader: io.LimitReader(stream, limits.ReaderFileBytes), Closer: body}
	resp.Size = size
	return resp
}

// cachedFile is a file's bytes kept in the reader's cache, with its ETag.
type cachedFile struct {
	data []byte
	etag string
}

// etagMatch tells whether an If-None-Match header names etag (unquoted),
// or is "*".
func etagMatch(header, etag string) bool {
	for _, v := range strings.Split(header, ",") {
		v = strings.TrimPrefix(strings.TrimSpace(v), "W/")
		if v == "*" || v == `"`+etag+`"` {
			return true
		}
	}
	return false
}

type limitedCloser struct {
	io.Reader
	io.Closer
}
