// Package httpx gives every service the same gin engine: JSON errors for every
// failure, panic recovery, request ids, access logs, tracing, health routes and
// a server with timeouts and graceful shutdown.
package httpx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/contrib/instrumentation/github.com/gin-gonic/gin/otelgin"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// RequestIDHeader carries the request id from the gateway to services and back.
const RequestIDHeader = "X-Request-Id"

// ClientKey is the gin context key of the request's client address, when
// the handler derived one (the gateway); the access log line names it.
const ClientKey = "client"

// Check is a readiness probe: nil when the dependency is usable.
type Check func(ctx context.Context) error

func init() { gin.SetMode(gin.ReleaseMode) }

// NewEngine returns a gin engine with recovery, request ids, tracing, access
// logs, ETags on JSON answers to GET (ETag), JSON 404/405 answers, and
// /healthz and /readyz (which skip tracing).
func NewEngine(log *slog.Logger, service string, ready ...Check) *gin.Engine {
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.ContextWithFallback = true
	e.Use(requestID(), recovery(log), accessLog(log))
	e.Use(otelgin.Middleware(service, otelgin.WithFilter(func(r *http.Request) bool {
		return r.URL.Path != "/healthz" && r.URL.Path != "/readyz"
	}), otelgin.WithGinMetricAttributeFn(routeAttribute)))
	e.Use(ETag())
	e.NoRoute(func(c *gin.Context) {
		Error(c, apierr.NotFound("no route for %s %s", c.Request.Method, c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) { MethodNotAllowed(c) })
	e.GET("/healthz", func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	e.GET("/readyz", func(c *gin.Context) {
		ctx, cancel := context.WithTimeout(c.Request.Context(), 2*time.Second)
		defer cancel()
		for _, check := range ready {
			if err := check(ctx); err != nil {
				log.WarnContext(ctx, "not ready", "err", err)
				Error(c, apierr.New(http.StatusServiceUnavailable, "not ready"))
				return
			}
		}
		c.JSON(http.StatusOK, gin.H{"status": "ready"})
	})
	return e
}

// StatusClientClosedRequest is the status recorded (in access logs and
// traces) for a request its client abandoned before the answer: nginx's 499.
const StatusClientClosedRequest = 499

// MethodNotAllowed answers 405 naming the request's method and path, with
// an Allow header when allow names the methods the path takes.
func MethodNotAllowed(c *gin.Context, allow ...string) {
	if len(allow) > 0 {
		c.Header("Allow", strings.Join(allow, ", "))
	}
	Error(c, apierr.New(http.StatusMethodNotAllowed, "method %s not allowed on %s", c.Request.Method, c.Request.URL.Path))
}

// OnlyReads reports whether the request is a GET or a HEAD; otherwise it
// answers 405 (Allow: GET, HEAD).
func OnlyReads(c *gin.Context) bool {
	if m := c.Request.Method; m == http.MethodGet || m == http.MethodHead {
		return true
	}
	MethodNotAllowed(c, http.MethodGet, http.MethodHead)
	return false
}

// Error writes err as the JSON error body. Errors that are not client-safe are
// logged here, once, with the request id and trace id, and answered as a 500.
func Error(c *gin.Context, err error) {
	if r := c.Request; r != nil && r.Context().Err() != nil && errors.Is(err, r.Context().Err()) {
		// The client went away (or its deadline passed): nobody reads an
		// answer, and its absence is no failure of the service.
		slogFrom(c).DebugContext(c.Request.Context(), "request abandoned by the client",
			"err", err, "method", c.Request.Method, "path", c.Request.URL.Path, "request_id", c.GetString("request_id"))
		c.AbortWithStatus(StatusClientClosedRequest)
		return
	}
	body := apierr.ToBody(err)
	if d := apierr.RetryAfterOf(err); d > 0 {
		c.Header("Retry-After", strconv.FormatInt(int64(math.Ceil(d.Seconds())), 10))
	}
	if body.Error.Code >= 500 {
		slogFrom(c).ErrorContext(c.Request.Context(), "request failed",
			"err", err, "method", c.Request.Method, "path", c.Request.URL.Path,
			"request_id", c.GetString("request_id"), "trace_id", traceID(c.Request.Context()))
	}
	c.AbortWithStatusJSON(body.Error.Code, body)
}

// NoContent answers with status (204 or 205) and no body.
func NoContent(c *gin.Context, status int) {
	c.Status(status)
	c.Writer.WriteHeaderNow()
}

func requestID() gin.HandlerFunc {
	return func(c *gin.Context) {
		id := RequestID(c.GetHeader(RequestIDHeader))
		c.Set("request_id", id)
		c.Header(RequestIDHeader, id)
		c.Next()
	}
}

// RequestID is the id of a request whose RequestIDHeader is header: its
// own when it has one of at most 128 bytes, else a new one.
func RequestID(header string) string {
	if header == "" || len(header) > 128 {
		return NewRequestID()
	}
	return header
}

// NewRequestID returns a random request id.
func NewRequestID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

type loggerKey struct{}

func slogFrom(c *gin.Context) *slog.Logger {
	if l, ok := c.Get("logger"); ok {
		if lg, ok := l.(*slog.Logger); ok {
			return lg
		}
	}
	return slog.Default()
}

func recovery(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Set("logger", log)
		defer func() {
			if r := recover(); r != nil {
				if r == http.ErrAbortHandler {
					panic(r)
				}
				log.ErrorContext(c.Request.Context(), "panic", "panic", r, "path", c.Request.URL.Path,
					"request_id", c.GetString("request_id"))
				if !c.Writer.Written() {
					body := apierr.ToBody(nil)
					body.Error.Message = "internal error"
					c.AbortWithStatusJSON(http.StatusInternalServerError, body)
				}
			}
		}()
		c.Next()
	}
}

func accessLog(log *slog.Logger) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.URL.Path == "/healthz" || c.Request.URL.Path == "/readyz" {
			c.Next()
			return
		}
		start := time.Now()
		c.Next()
		ctx := c.Request.Context()
		LogRequest(ctx, log, AccessLine{Method: c.Request.Method, Path: c.Request.URL.Path, Status: c.Writer.Status(),
			Start: start, ID: c.GetString("request_id"), Client: c.GetString(ClientKey)})
	}
}

// AccessLine is a request's access log line.
type AccessLine struct {
	Method, Path string
	Status       int
	Start        time.Time
	// ID is its request id; Client its client's address ("" for a
	// service's request: only the gateway names clients).
	ID, Client string
}

// LogRequest writes r's access log line, at Info, with the trace id of
// ctx: the line of every request but health checks, whichever server
// answered it (the gateway's readers' edge writes its own).
func LogRequest(ctx context.Context, log *slog.Logger, r AccessLine) {
	// The line is only built for a logger that keeps it, and as
	// attributes (no argument boxed into a []any).
	if !log.Enabled(ctx, slog.LevelInfo) {
		return
	}
	attrs := [...]slog.Attr{
		slog.String("method", r.Method), slog.String("path", r.Path), slog.Int("status", r.Status),
		slog.Float64("duration_ms", float64(time.Since(r.Start).Microseconds())/1000),
		slog.String("request_id", r.ID), slog.String("trace_id", traceID(ctx)),
		slog.String("client", r.Client)}
	n := len(attrs)
	if r.Client == "" {
		n--
	}
	log.LogAttrs(ctx, slog.LevelInfo, "request", attrs[:n]...)
}

func traceID(ctx context.Context) string {
	sc := trace.SpanContextFromContext(ctx)
	if !sc.HasTraceID() {
		return ""
	}
	return sc.TraceID().String()
}

// routeKey holds a request's route template set by SetRoute.
const routeKey = "httpx.route"

// SetRoute names the route template a request matched ("/v1/spaces/{spaceId}")
// where gin's own is a catch-all (the gateway's "/v1/*path"): its span is
// named "METHOD template" and its request metrics
// (http.server.request.duration) are labelled http.route=template. Templates
// come from a fixed table, never from the path, so the labels stay few.
func SetRoute(c *gin.Context, template string) {
	c.Set(routeKey, template)
	span := trace.SpanFromContext(c.Request.Context())
	span.SetName(c.Request.Method + " " + template)
	span.SetAttributes(semconv.HTTPRoute(template))
}

// routeAttribute overrides the metrics' http.route with SetRoute's template
// (the last value of a key wins in an attribute set).
func routeAttribute(c *gin.Context) []attribute.KeyValue {
	if t := c.GetString(routeKey); t != "" {
		return []attribute.KeyValue{semconv.HTTPRoute(t)}
	}
	return nil
}
