// Package views records what readers read of published sites as insights
// events (POST /v1/orgs/{org}/sites/{siteId}/insights/events on the
// insights service, with an internal token minted for insights that names
// the gateway): each answer sites marks as a view (readerapi.ViewHeader),
// and each answer of it from the gateway's page cache. Recording never
// slows a reader: Record puts
// the event in a bounded queue and returns; a worker posts the queue in
// batches per site. An event that finds the queue full, or whose batch
// insights refuses or does not take in time (insights down), is dropped
// and counted (Dropped, and the OpenTelemetry counter
// gateway.insights.dropped).
package views

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	gojson "github.com/goccy/go-json"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
)

// Service is the insights service's name in discovery and token audience.
const Service = "insights"

// Bounds of recording.
const (
	// Queue is how many events wait to be sent; a view recorded while it
	// is full is dropped and counted.
	Queue = 10000
	// Batch is the most events of one POST (insights takes 1000).
	Batch = 1000
	// Flush is how long an event waits for its batch to fill.
	Flush = time.Second
	// Drain is how often the worker takes the queued events, all at once:
	// a read never wakes it (a goroutine switch per read was most of
	// recording's cost in the read's path). A queue half full wakes it
	// at once.
	Drain = 50 * time.Millisecond
	// Timeout bounds one POST; a batch that fails is dropped and counted.
	Timeout = 5 * time.Second
)

// Event is one insights event (SiteInsightsEvent) of a site.
type Event struct {
	Organization, Site string
	Body               any // encoded as the event's JSON
}

// Recorder queues events and posts them.
type Recorder struct {
	insights *internalclient.Client
	log      *slog.Logger
	queue    chan Event
	wake     chan struct{} // a queue half full
	dropped  atomic.Int64
	counter  metric.Int64Counter
	warned   atomic.Int64 // when a failure was last logged (Unix nanoseconds)
}

// New returns a recorder that finds insights through resolver and signs
// with signer (the gateway's).
func New(resolver discovery.Resolver, signer *internaltoken.Signer, log *slog.Logger) *Recorder {
	counter, _ := otel.Meter("gateway").Int64Counter("gateway.insights.dropped",
		metric.WithDescription("reader events dropped: queue full or insights not taking them"))
	return &Recorder{insights: internalclient.New(Service, resolver, signer, Timeout), log: log,
		queue: make(chan Event, Queue), wake: make(chan struct{}, 1), counter: counter}
}

// Record queues an event; when the queue is full it is dropped.
func (r *Recorder) Record(ev Event) {
	select {
	case r.queue <- ev:
		if len(r.queue) >= Queue/2 {
			select {
			case r.wake <- struct{}{}:
			default:
			}
		}
	default:
		r.drop(1, "queue full")
	}
}

// Dropped is how many events were dropped since the recorder started.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

func (r *Recorder) drop(n int, why string) {
	r.dropped.Add(int64(n))
	r.counter.Add(context.Background(), int64(n))
	// One line per ten seconds at most: a down insights must not flood the log.
	now := time.Now().UnixNano()
	if last := r.warned.Load(); now-last > int64(10*time.Second) && r.warned.CompareAndSwap(last, now) {
		r.log.Warn("insights events dropped", "events", n, "reason", why, "dropped_total", r.dropped.Load())
	}
}

type batchKey struct{ org, site string }

// MaxBatchBytes bounds one POST's body, under insights' 1 MiB: a batch
// of Batch events with long URLs and claims would be refused whole.
const MaxBatchBytes = 768 << 10

// batch is a site's events waiting, encoded: the body of one POST in the
// making.
type batch struct {
	body bytes.Buffer // `{"events":[` and the events so far, comma-separated
	n    int
}

// batches are the events waiting, by site, and how many in all.
type batches struct {
	r       *Recorder
	by      map[batchKey]*batch
	pending int
}

// add encodes ev into its site's batch, posting the batch first when ev
// would take it over MaxBatchBytes, and after when it holds Batch events;
// past Queue events waiting in all, every batch is posted.
func (bs *batches) add(ctx context.Context, ev Event) {
	raw, err := gojson.Marshal(ev.Body) // 30 % less than encoding/json per read
	if err != nil || len(raw) > MaxBatchBytes-64 {
		bs.r.drop(1, "event not encodable or too large")
		return
	}
	k := batchKey{ev.Organization, ev.Site}
	b := bs.by[k]
	if b != nil && b.body.Len()+len(raw)+2 > MaxBatchBytes {
		bs.post(ctx, k, b)
		b = nil
	}
	if b == nil {
		b = &batch{}
		b.body.WriteString(`{"events":[`)
		bs.by[k] = b
	} else {
		b.body.WriteByte(',')
	}
	b.body.Write(raw)
	b.n++
	bs.pending++
	switch {
	case b.n >= Batch:
		bs.post(ctx, k, b)
	case bs.pending >= Queue:
		bs.flush(ctx)
	}
}

func (bs *batches) post(ctx context.Context, k batchKey, b *batch) {
	b.body.WriteString("]}")
	bs.r.post(ctx, k, b)
	bs.pending -= b.n
	delete(bs.by, k)
}

func (bs *batches) flush(ctx context.Context) {
	for k, b := range bs.by {
		bs.post(ctx, k, b)
	}
}

// Run posts the queued events until ctx is done, taking them every Drain
// (or when the queue is half full): a site's events go in one batch once
// Batch of them wait, MaxBatchBytes would be passed or Flush passed. What
// waits when ctx ends is posted once more, briefly.
func (r *Recorder) Run(ctx context.Context) error {
	drain, tick := time.NewTicker(Drain), time.NewTicker(Flush)
	defer drain.Stop()
	defer tick.Stop()
	bs := &batches{r: r, by: map[batchKey]*batch{}}
	take := func() {
		for n := len(r.queue); n > 0; n-- {
			bs.add(ctx, <-r.queue)
		}
	}
	for {
		select {
		case <-drain.C:
			take()
		case <-r.wake:
			take()
		case <-tick.C:
			take()
			bs.flush(ctx)
		case <-ctx.Done():
			last, cancel := context.WithTimeout(context.WithoutCancel(ctx), Timeout)
			defer cancel()
			for len(r.queue) > 0 {
				bs.add(last, <-r.queue)
			}
			bs.flush(last)
			return nil
		}
	}
}

// post sends one batch; a failure drops it.
func (r *Recorder) post(ctx context.Context, k batchKey, b *batch) {
	err := r.insights.Do(ctx, internalclient.Request{Method: http.MethodPost,
		Path: "/v1/orgs/" + url.PathEscape(k.org) + "/sites/" + url.PathEscape(k.site) + "/insights/events",
		Body: bytes.NewReader(b.body.Bytes()), ContentType: "application/json", What: "insights events"}, nil, 4096)
	if err != nil {
		r.drop(b.n, err.Error())
	}
}
