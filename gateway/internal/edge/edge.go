// Package edge serves published sites' readers on a listener of their own
// (READER_ADDR) with fasthttp, a server that costs about half of what Go's
// net/http costs a request: the reads that dominate a docs platform's
// traffic (pages answered from the gateway's page cache) are answered at
// close to a static server's rate, while the API stays on net/http.
//
// The edge is only a server: every request it takes is served by the
// gateway's own handler (the gin engine, through fasthttpadaptor), so a
// reader's answer on the edge is the answer the gateway's main listener
// gives, with the same client address, rate limit, page cache, insights
// and headers. What the edge adds is what a reader's listener refuses:
//   - methods other than GET and HEAD (405, Allow: GET, HEAD) and the
//     API's paths (/v1 and below: 404; the API is served on ADDR);
//   - request bodies over MaxBodyBytes (413) and headers over
//     MaxHeaderBytes (431): readers send neither;
//   - malformed requests (400), answered as the API answers errors.
//
// Answers are buffered up to StreamAbove bytes (with their
// Content-Length); a larger one, or one of unknown length, is streamed
// (chunked) as it comes, so a reader's download never sits whole in the
// gateway's memory.
package edge

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttpadaptor"
)

// Bounds of a reader's request and of an answer held in memory.
const (
	// MaxHeaderBytes bounds a request's line and headers (fasthttp's
	// read buffer): four times nginx's default large header buffer.
	MaxHeaderBytes = 32 << 10
	// MaxBodyBytes bounds a request's body: readers send none.
	MaxBodyBytes = 4 << 10
	// StreamAbove is the largest answer buffered whole (a page kept by
	// the page cache is at most 1 MiB).
	StreamAbove = 1 << 20
)

// apiPrefix is the API's: not served on the edge.
const apiPrefix = "/v1"

// Edge is the readers' server.
type Edge struct {
	// Handler is the gateway's handler, which answers what Hits does not.
	Handler http.Handler
	// Hits answers page-cache hits (nil: Handler answers every request).
	Hits *Hits
	Log  *slog.Logger
	// closing is set while the edge lingers before it drains: every
	// answer then closes its connection.
	closing atomic.Bool
}

// handler serves readers' requests.
func (e *Edge) handler() fasthttp.RequestHandler {
	next := fasthttpadaptor.NewFastHTTPHandler(streamLarge{e.Handler})
	return func(ctx *fasthttp.RequestCtx) {
		if e.closing.Load() {
			ctx.SetConnectionClose()
		}
		if !ctx.IsGet() && !ctx.IsHead() {
			ctx.Response.Header.Set("Allow", "GET, HEAD")
			writeError(ctx, apierr.New(http.StatusMethodNotAllowed,
				"method %s not allowed on %s", ctx.Method(), ctx.Path()))
			return
		}
		if len(ctx.Request.Header.Host()) == 0 {
			writeError(ctx, apierr.BadRequest("missing required Host header"))
			return
		}
		if e.Hits != nil && e.Hits.serve(ctx) {
			return
		}
		next(ctx)
	}
}

// Server returns the edge's server: the timeouts of the gateway's main
// listener (httpx.NewServer) and the edge's bounds.
func (e *Edge) Server() *fasthttp.Server {
	return &fasthttp.Server{
		Handler:      e.handler(),
		ErrorHandler: refuse,
		Logger:       logger{e.Log},
		// No Server header and no default Content-Type: an answer's
		// headers are the handler's own (fasthttp adds Date, as net/http).
		NoDefaultServerHeader: true,
		NoDefaultContentType:  true,
		ReadBufferSize:        MaxHeaderBytes,
		MaxRequestBodySize:    MaxBodyBytes,
		// A reader's request is its headers (as the main listener's
		// ReadHeaderTimeout).
		ReadTimeout:           10 * time.Second,
		WriteTimeout:          httpx.WriteTimeout,
		IdleTimeout:           120 * time.Second,
		CloseOnShutdown:       true,
		SecureErrorLogMessage: true,
	}
}

// Serve serves readers on ln until ctx is done, then lingers as the main
// listener does (httpx.Linger at most, until no connection is open; every
// answer meanwhile closes its connection, so that a proxy's keep-alive
// connection leaves after its request rather than being cut under its
// next one) and drains in-flight requests (at most httpx.ShutdownTimeout).
func (e *Edge) Serve(ctx context.Context, ln net.Listener) error {
	srv := e.Server()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	e.Log.InfoContext(ctx, "listening for readers", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve readers: %w", err)
	case <-ctx.Done():
	}
	e.closing.Store(true)
	linger := time.NewTimer(httpx.Linger)
	tick := time.NewTicker(lingerPoll)
lingering:
	for srv.GetOpenConnectionsCount() > 0 {
		select {
		case <-tick.C:
		case <-linger.C:
			break lingering
		}
	}
	linger.Stop()
	tick.Stop()
	sctx, cancel := context.WithTimeout(context.Background(), httpx.ShutdownTimeout)
	defer cancel()
	if err := srv.ShutdownWithContext(sctx); err != nil {
		return fmt.Errorf("shutdown readers' listener: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, net.ErrClosed) {
		return fmt.Errorf("serve readers: %w", err)
	}
	return nil
}

// lingerPoll is how often a lingering edge looks for open connections.
const lingerPoll = 50 * time.Millisecond

// isAPI tells whether path is the API's.
func isAPI(path string) bool { return path == apiPrefix || strings.HasPrefix(path, apiPrefix+"/") }

// notAPI is the 404 of the API's paths on the edge.
func notAPI(method, path string) error {
	return apierr.NotFound("no route for %s %s on the readers' listener: the API is on the gateway's", method, path)
}

// refuse answers a request fasthttp could not read: too large (413,
// 431), timed out (408) or malformed (400).
func refuse(ctx *fasthttp.RequestCtx, err error) {
	var small *fasthttp.ErrSmallBuffer
	switch {
	case errors.As(err, &small) || errors.Is(err, fasthttp.ErrSmallReadBuffer):
		writeError(ctx, apierr.New(http.StatusRequestHeaderFieldsTooLarge,
			"request headers over %d bytes", MaxHeaderBytes))
	case errors.Is(err, fasthttp.ErrBodyTooLarge):
		writeError(ctx, apierr.TooLarge("request body over %d bytes: readers' requests carry none", MaxBodyBytes))
	case isTimeout(err):
		writeError(ctx, apierr.New(http.StatusRequestTimeout, "request not read in time"))
	default:
		writeError(ctx, apierr.BadRequest("malformed request"))
	}
	ctx.SetConnectionClose()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// writeError answers err on fasthttp as the gateway answers errors.
func writeError(ctx *fasthttp.RequestCtx, err error) {
	status, body := errorJSON(err)
	ctx.SetStatusCode(status)
	ctx.SetContentType(jsonType)
	ctx.SetBody(body)
}

// errorJSON is err's status and body as the gateway answers errors:
// {"error":{"code","message"}}.
func errorJSON(err error) (int, []byte) {
	body := apierr.ToBody(err)
	raw, _ := json.Marshal(body)
	return body.Error.Code, raw
}

const jsonType = "application/json; charset=utf-8"

// streamLarge makes the adaptor stream an answer over StreamAbove bytes
// or of unknown length (a flush before its body switches it to
// streaming), and keep the others whole with their Content-Length.
type streamLarge struct{ h http.Handler }

func (s streamLarge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The path as the gateway's router reads it (fasthttp's is cleaned
	// of dot segments: "/v1/../x" is not the API's there).
	if isAPI(r.URL.Path) {
		status, body := errorJSON(notAPI(r.Method, r.URL.Path))
		w.Header().Set("Content-Type", jsonType)
		w.WriteHeader(status)
		_, _ = w.Write(body)
		return
	}
	s.h.ServeHTTP(&streamWriter{ResponseWriter: w, head: r.Method == http.MethodHead}, r)
}

// streamWriter is the adaptor's writer seen by the handler.
type streamWriter struct {
	http.ResponseWriter
	// head: the answer has no body, whatever its length.
	head, wrote bool
}

func (w *streamWriter) WriteHeader(code int) {
	if w.wrote || code < http.StatusOK {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	w.wrote = true
	n, err := strconv.ParseInt(w.Header().Get("Content-Length"), 10, 64)
	w.ResponseWriter.WriteHeader(code)
	if w.head || code == http.StatusNoContent || code == http.StatusNotModified {
		return
	}
	if err != nil || n > StreamAbove {
		w.Flush()
	}
}

func (w *streamWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *streamWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the adaptor's writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// logger is fasthttp's logger on slog (its own failures: a connection's
// error, a handler's panic).
type logger struct{ log *slog.Logger }

func (l logger) Printf(format string, args ...any) {
	l.log.Warn("readers' listener: " + fmt.Sprintf(format, args...))
}
