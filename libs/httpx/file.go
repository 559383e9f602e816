package httpx

import (
	"io"
	"net/http"
	"time"
)

// Immutable is the Cache-Control of a file that never changes (a file of
// a revision, content-addressed), cached by anyone when public, by the
// reader's browser alone otherwise.
func Immutable(public bool) string {
	if public {
		return "public, max-age=31536000, immutable"
	}
	return "private, max-age=31536000, immutable"
}

// ServeFile answers a GET or HEAD of a file's bytes like a static file
// server: strong ETag "<sha256>" (none when sha256 is ""), 304 to a
// matching If-None-Match, 206 to a Range of at most MaxRanges ordered
// ranges that do not overlap (any other Range gets the whole file),
// streamed from content (read and seeked only as far as the answer
// needs). The caller sets Content-Type, Cache-Control and
// Content-Disposition before.
func ServeFile(w http.ResponseWriter, r *http.Request, sha256 string, content io.ReadSeeker) {
	if sha256 != "" {
		w.Header().Set("ETag", `"`+sha256+`"`)
	}
	http.ServeContent(w, boundRanges(r, content), "", time.Time{}, content)
}
