package reader

import (
	"bytes"
	"context"
	"io"
	"mime"
	"net/http"
	"strings"

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
// through another's site space.
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
		size, resp.Name = f.Size, f.Name
	}
	key := cacheKey("file", org, v.ss.Space, revID, fileID)
	if b, ok := r.cache.Get(key); ok {
		resp.Body = b.([]byte)
		return resp
	}
	body, err := r.deps.Content.File(ctx, v.ss.Space, revID, fileID)
	if err != nil {
		return r.failed(rd, err)
	}
	var stream io.Reader = body
	if size >= 0 && size <= limits.ReaderCachedFileBytes {
		b, err := io.ReadAll(io.LimitReader(body, limits.ReaderCachedFileBytes+1))
		if err != nil {
			body.Close()
			return r.failed(rd, err)
		}
		if int64(len(b)) <= limits.ReaderCachedFileBytes {
			body.Close()
			r.cache.Add(key, b, int64(len(b))+64)
			resp.Body = b
			return resp
		}
		// Larger than the revision said: streamed whole all the same.
		stream, size = io.MultiReader(bytes.NewReader(b), body), -1
	}
	resp.File = limitedCloser{Reader: io.LimitReader(stream, limits.ReaderFileBytes), Closer: body}
	resp.Size = size
	return resp
}

type limitedCloser struct {
	io.Reader
	io.Closer
}
