// Package insightshttp serves the site insights API: ingest of visitor
// events, aggregate queries and visitor segments.
//
// Who may call: ingest accepts any authenticated caller of the site's
// organization (a user with a role there) and platform services calling
// with an internal token minted for a service (Principal.Service set, as
// the sites service does for anonymous readers' page views); queries and
// segments need a member of the organization. Anyone else gets a 404, like
// a site that does not exist.
package insightshttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/libs/slicepool"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/gin-gonic/gin"
	gojson "github.com/goccy/go-json"
)

// Ingester accepts batches of events: decoded already, or one by one.
type Ingester interface {
	IngestEvents(ctx context.Context, org, site string, events []visit.Event) error
	Ingest(ctx context.Context, org, site string, events []json.RawMessage) error
}

// Sites tells whether a site exists in an organization.
type Sites interface {
	Exists(ctx context.Context, org, site string) (bool, error)
}

// Limits of queries.
const (
	QueryTimeout = 30 * time.Second // one aggregate or segments answer
)

// QueryQuota is the per-organization bound of queries running at once.
var QueryQuota = quota.Limits{PerKey: 2, Queue: 8, Total: 4, MaxWait: 10 * time.Second}

// Handlers serve the routes.
type Handlers struct {
	ingest  Ingester
	sites   Sites
	buckets rollup.Reader
	queries *quota.Limiter
	now     func() time.Time
}

// New returns the handlers; now nil is time.Now.
func New(ingest Ingester, sites Sites, buckets rollup.Reader, now func() time.Time) *Handlers {
	if now == nil {
		now = time.Now
	}
	return &Handlers{ingest: ingest, sites: sites, buckets: buckets, queries: quota.New("insights queries", QueryQuota), now: now}
}

// Register adds the routes to g (behind internaltoken.Require).
func Register(g *gin.RouterGroup, h *Handlers) {
	site := g.Group("/orgs/:organizationId/sites/:siteId/insights")
	site.POST("/events", h.track)
	site.POST("/events/aggregate", h.aggregate)
	site.GET("/visitor-segments", h.segments)
}

var errNoSite = apierr.NotFound("site not found")

// member refuses a caller who is not a member of the path's organization.
func member(c *gin.Context) (string, bool) {
	org := c.Param("organizationId")
	p := internaltoken.From(c)
	if p.UserID == "" || p.Role(org) == "" {
		httpx.Error(c, errNoSite)
		return "", false
	}
	return org, true
}

func (h *Handlers) track(c *gin.Context) {
	org := c.Param("organizationId")
	p := internaltoken.From(c)
	if p.Service == "" && (p.UserID == "" || p.Role(org) == "") {
		httpx.Error(c, errNoSite)
		return
	}
	data, release, err := readBatch(c)
	defer release()
	if err == nil {
		if events, ok := visit.DecodeBatch(data); ok {
			httpx.Empty(c, http.StatusNoContent, h.ingest.IngestEvents(c.Request.Context(), org, c.Param("siteId"), events))
			return
		}
	}
	var body struct {
		Events *[]json.RawMessage `json:"events"`
	}
	if !bindBatch(c, data, err, &body) {
		return
	}
	if body.Events == nil {
		httpx.Error(c, apierr.Invalid("events", "is required"))
		return
	}
	httpx.Empty(c, http.StatusNoContent, h.ingest.Ingest(c.Request.Context(), org, c.Param("siteId"), *body.Events))
}

// bindBatch decodes a batch's body into v with goccy/go-json, the ingest
// path's hot decode (encoding/json costs about twice as much). A body it
// refuses, one over httpx.MaxBodyBytes or a missing one goes through
// httpx.Bind, whose 400 names the problem as on every other route.
func bindBatch(c *gin.Context, data []byte, err error, v any) bool {
	if errors.Is(err, errNoBody) {
		return httpx.Bind(c, v)
	}
	if err == nil && len(bytes.TrimSpace(data)) > 0 && gojson.Unmarshal(data, v) == nil {
		return true
	}
	c.Request.Body = io.NopCloser(io.MultiReader(bytes.NewReader(data), c.Request.Body))
	return httpx.Bind(c, v)
}

// readBatch reads a batch's body, httpx.MaxBodyBytes at most (what it read
// and the error past that, or errNoBody: bindBatch answers it), into a
// buffer of batchBuffers grown to the size its Content-Length announces
// (preallocBytes at most, so an announcement costs no more than a small
// body): io.ReadAll's growing copies were 3 % of a flood's CPU, and a new
// buffer for each batch a twentieth of its allocations. release gives the
// buffer back: call it once the body is no longer read (decoding copies
// what it keeps).
func readBatch(c *gin.Context) (data []byte, release func(), err error) {
	r := c.Request
	if r.Body == nil || r.Body == http.NoBody {
		return nil, func() {}, errNoBody
	}
	buf := bytes.NewBuffer(batchBuffers.Get())
	if n := r.ContentLength; n > 0 {
		buf.Grow(int(min(n, preallocBytes)) + bytes.MinRead) // ReadFrom wants MinRead free before its last read
	}
	_, err = buf.ReadFrom(http.MaxBytesReader(c.Writer, r.Body, httpx.MaxBodyBytes))
	data = buf.Bytes()
	return data, func() { batchBuffers.Put(data) }, err
}

// preallocBytes bounds the buffer readBatch takes before reading.
const preallocBytes = 256 << 10

// batchBuffers are readBatch's buffers, kept between requests up to 1 MiB
// each (a larger body's buffer is left to the collector).
var batchBuffers = slicepool.New[byte](1 << 20)

var errNoBody = errors.New("no body")

// site checks that the path's site exists in org.
func (h *Handlers) site(c *gin.Context, org string) (string, bool) {
	site := c.Param("siteId")
	ok, err := h.sites.Exists(c.Request.Context(), org, site)
	if err == nil && !ok {
		err = errNoSite
	}
	if err != nil {
		httpx.Error(c, err)
		return "", false
	}
	return site, true
}

func (h *Handlers) aggregate(c *gin.Context) {
	org, ok := member(c)
	if !ok {
		return
	}
	var req rollup.Request
	if !httpx.Bind(c, &req) {
		return
	}
	site, ok := h.site(c, org)
	if !ok {
		return
	}
	var res rollup.Result
	err := h.run(c, org, func(ctx context.Context) (err error) {
		res, err = rollup.Aggregate(ctx, h.buckets, site, &req, h.now())
		return err
	})
	httpx.Reply(c, http.StatusOK, res, err)
}

// SegmentList is the answer of visitor-segments (List<SiteInsightsVisitorSegment>).
type SegmentList struct {
	Count int              `json:"count"`
	Items []rollup.Segment `json:"items"`
}

func (h *Handlers) segments(c *gin.Context) {
	org, ok := member(c)
	if !ok {
		return
	}
	site, ok := h.site(c, org)
	if !ok {
		return
	}
	var items []rollup.Segment
	err := h.run(c, org, func(ctx context.Context) (err error) {
		items, err = rollup.Segments(ctx, h.buckets, site, h.now())
		return err
	})
	httpx.Reply(c, http.StatusOK, SegmentList{Count: len(items), Items: items}, err)
}

// run runs a query in a turn of org's quota, within QueryTimeout.
func (h *Handlers) run(c *gin.Context, org string, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(c.Request.Context(), QueryTimeout)
	defer cancel()
	err := h.queries.Do(ctx, org, f)
	if err != nil && ctx.Err() == context.DeadlineExceeded && c.Request.Context().Err() == nil {
		return apierr.Unavailable(time.Second, "the query took longer than %s; narrow its range or filters", QueryTimeout)
	}
	return err
}
