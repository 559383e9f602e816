package httpx

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// maxETagBody bounds the JSON answer ETag buffers to hash; a larger one is
// sent as it comes, without an ETag.
const maxETagBody = 1 << 20

// ETag gives JSON answers of GET and HEAD a strong ETag (a digest of the
// body) and answers 304 Not Modified, with no body, when If-None-Match
// names it: clients and SDKs revalidate what they hold without reading it
// again. Answers that are not JSON, that set their own ETag, that are not
// 200, or that are larger than maxETagBody pass through untouched.
func ETag() gin.HandlerFunc {
	return func(c *gin.Context) {
		r := c.Request
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			c.Next()
			return
		}
		w := &etagWriter{ResponseWriter: c.Writer, status: http.StatusOK}
		c.Writer = w
		c.Next()
		c.Writer = w.ResponseWriter
		w.finish(r)
	}
}

// etagWriter holds a JSON 200 answer until the handler is done; anything
// else it passes on at once.
type etagWriter struct {
	gin.ResponseWriter
	status  int
	decided bool // whether to hold the answer has been decided
	holding bool
	buf     bytes.Buffer
}

func (w *etagWriter) WriteHeader(code int) {
	if !w.decided {
		w.status = code
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *etagWriter) WriteHeaderNow() {
	w.decide()
	if !w.holding {
		w.ResponseWriter.WriteHeaderNow()
	}
}

// decide holds a 200 JSON answer without an ETag of its own.
func (w *etagWriter) decide() {
	if w.decided {
		return
	}
	w.decided = true
	h := w.Header()
	w.holding = w.status == http.StatusOK && h.Get("ETag") == "" &&
		strings.HasPrefix(h.Get("Content-Type"), "application/json")
	if !w.holding {
		w.ResponseWriter.WriteHeader(w.status)
	}
}

func (w *etagWriter) Write(b []byte) (int, error) {
	w.decide()
	if !w.holding {
		return w.ResponseWriter.Write(b)
	}
	if w.buf.Len()+len(b) > maxETagBody {
		w.release()
		return w.ResponseWriter.Write(b)
	}
	return w.buf.Write(b)
}

func (w *etagWriter) WriteString(s string) (int, error) { return w.Write([]byte(s)) }

// ReadFrom copies r through Write with a pooled buffer: without it
// io.Copy (http.ServeContent's, for a file) allocates a buffer of up to
// 32 KiB for every answer.
func (w *etagWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(buf)
	return io.CopyBuffer(writerOnly{w}, r, *buf)
}

// writerOnly hides every method of a writer but Write (io.CopyBuffer
// would call ReadFrom again).
type writerOnly struct{ io.Writer }

var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func (w *etagWriter) Status() int {
	if w.holding || !w.decided {
		return w.status
	}
	return w.ResponseWriter.Status()
}

func (w *etagWriter) Written() bool { return w.decided || w.ResponseWriter.Written() }

func (w *etagWriter) Size() int {
	if w.holding {
		return w.buf.Len()
	}
	return w.ResponseWriter.Size()
}

func (w *etagWriter) Flush() {
	w.decide()
	w.release()
	w.ResponseWriter.Flush()
}

// release sends what is held, as it is, and stops holding.
func (w *etagWriter) release() {
	if !w.holding {
		return
	}
	w.holding = false
	w.ResponseWriter.WriteHeader(w.status)
	_, _ = w.ResponseWriter.Write(w.buf.Bytes())
	w.buf.Reset()
}

// finish sends the held answer with its ETag, or a 304 when the client
// holds it already.
func (w *etagWriter) finish(r *http.Request) {
	w.decide() // (a status set without a body passes on now)
	if !w.holding {
		return
	}
	w.holding = false
	etag := ETagOf(sha256.Sum256(w.buf.Bytes()))
	h := w.Header()
	h.Set("ETag", etag)
	if ETagMatches(r.Header.Get("If-None-Match"), etag) {
		h.Del("Content-Type")
		h.Del("Content-Length")
		w.ResponseWriter.WriteHeader(http.StatusNotModified)
		w.ResponseWriter.WriteHeaderNow()
		return
	}
	// Its length is known: a proxy in front (the gateway) relays it
	// whole, not as chunks flushed one by one.
	h.Set("Content-Length", strconv.Itoa(w.buf.Len()))
	w.ResponseWriter.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		w.ResponseWriter.WriteHeaderNow()
		return
	}
	_, _ = w.ResponseWriter.Write(w.buf.Bytes())
}

// ETagOf is the strong ETag ETag() gives a body whose SHA-256 is sum:
// the first half of sum in hex, quoted.
func ETagOf(sum [sha256.Size]byte) string {
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// KeptJSON answers 200 with body, a JSON answer encoded before, and its
// ETag (ETagOf its SHA-256, reckoned once with the body), or 304 when the
// client holds it: what ETag() answers for such a body, without encoding
// or hashing it again.
func KeptJSON(c *gin.Context, body []byte, sum [sha256.Size]byte) {
	etag := ETagOf(sum)
	h := c.Writer.Header()
	h.Set("ETag", etag)
	if ETagMatches(c.Request.Header.Get("If-None-Match"), etag) {
		c.Status(http.StatusNotModified)
		c.Writer.WriteHeaderNow()
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Data(http.StatusOK, "application/json; charset=utf-8", body)
}

// ETagMatches tells whether an If-None-Match header names etag (quoted;
// weak comparison, as RFC 9110 asks for If-None-Match) or is "*".
func ETagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, tag := range strings.Split(header, ",") {
		tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
		if tag == "*" || tag == etag {
			return true
		}
	}
	return false
}

// AcceptsGzip tells whether an Accept-Encoding header takes gzip.
func AcceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(name), "gzip") {
			return strings.TrimSpace(strings.ReplaceAll(q, " ", "")) != "q=0"
		}
	}
	return false
}
