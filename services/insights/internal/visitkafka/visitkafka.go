// Package visitkafka is insights' log of accepted visits on Kafka (topic
// insights.visits, keyed by site): Writer appends an ingest batch and
// returns once every in-sync replica has it; Reader consumes the topic in
// chunks as a member of a consumer group and hands each chunk to the rollup
// applier, committing offsets only after the chunk is applied.
package visitkafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/slicepool"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitbin"
	gojson "github.com/goccy/go-json"
	"github.com/segmentio/asm/base64"
	"github.com/segmentio/kafka-go"
	"golang.org/x/sync/errgroup"
)

// Topic is the log of accepted visits.
const Topic = "insights.visits"

// Types of a log message: one batch of visits, as JSON (EventType) or in
// binary form (EventTypeBinary: visitbin's bytes, the envelope's data a
// JSON string of their base64).
const (
	EventType       = "visits.accepted"
	EventTypeBinary = "visits.accepted.bin"
)

// Format is how a writer encodes its batches.
type Format int

// Formats. A reader reads both; a reader of a release before Binary skips
// what it cannot decode, so writers take Binary once every insights replica
// runs a release that reads it (INSIGHTS_LOG_FORMAT).
const (
	JSON Format = iota
	Binary
)

// ParseFormat reads INSIGHTS_LOG_FORMAT: "json" or "binary".
func ParseFormat(s string) (Format, error) {
	switch s {
	case "json":
		return JSON, nil
	case "binary":
		return Binary, nil
	}
	return JSON, fmt.Errorf("INSIGHTS_LOG_FORMAT must be json or binary, not %q", s)
}

// maxMessageBytes is the size over which a batch is split into several
// messages (below kafkax.MaxEventBytes, base64 included).
const maxMessageBytes = 512 << 10

// Writer appends batches to the log.
type Writer struct {
	pub     *kafkax.Publisher
	timeout time.Duration
	format  Format
}

// NewWriter returns a writer in format that gives up after timeout.
func NewWriter(pub *kafkax.Publisher, timeout time.Duration, format Format) *Writer {
	return &Writer{pub: pub, timeout: timeout, format: format}
}

// Append implements visit.Log. Each message's id is a hash of its content,
// so a batch sent again after a failure (same events, same timestamps)
// counts once.
func (w *Writer) Append(ctx context.Context, org, site string, visits []visit.Visit) error {
	encode, typ := encodeJSON, EventType
	if w.format == Binary {
		encode, typ = encodeBinary, EventTypeBinary
	}
	var events []kafkax.Event
	add := func(data []byte) {
		h := sha256.New()
		_, _ = io.WriteString(h, org+"\x00"+site+"\x00")
		_, _ = h.Write(data) // not appended to the prefix: a batch is tens of KB
		events = append(events, kafkax.Event{ID: hex.EncodeToString(h.Sum(nil)[:16]), Type: typ,
			OccurredAt: time.Now().UTC(), Organization: org, Subject: site, Data: data})
	}
	if err := encode(visits, add); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	err := w.pub.Publish(ctx, Topic, events...)
	if w.format == Binary {
		for _, ev := range events {
			buffers.Put(ev.Data) // Publish copied it into its message
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", visit.ErrUnavailable, err)
	}
	return nil
}

// encodeJSON hands visits to add as JSON, in messages of at most
// maxMessageBytes: one encoding of the whole batch, which is the usual
// case; a batch over it is encoded visit by visit and split.
func encodeJSON(visits []visit.Visit, add func([]byte)) error {
	all, err := gojson.Marshal(visits) // a third of encoding/json's cost on this hot path
	if err != nil {
		return fmt.Errorf("encode visits: %w", err)
	}
	if len(all) <= maxMessageBytes {
		add(all)
		return nil
	}
	for start := 0; start < len(visits); {
		end, size := start, 0
		var parts []json.RawMessage
		for end < len(visits) {
			b, err := json.Marshal(visits[end])
			if err != nil {
				return fmt.Errorf("encode visit: %w", err)
			}
			if size+len(b) > maxMessageBytes && end > start {
				break
			}
			parts, size, end = append(parts, b), size+len(b)+1, end+1
		}
		data, _ := json.Marshal(parts)
		add(data)
		start = end
	}
	return nil
}

// encodeBinary hands visits to add in binary form (visitbin), each message
// the JSON string of the base64 of at most maxMessageBytes*3/4 bytes: the
// visits are encoded once, a message cut before the visit that would take
// it over. The messages are lent buffers (buffers.Put them once done).
func encodeBinary(visits []visit.Visit, add func([]byte)) error {
	const maxBytes = maxMessageBytes / 4 * 3
	part := buffers.Get()
	for i := range visits {
		before := len(part)
		part = visitbin.Append(part, visits[i:i+1])
		if len(part) > maxBytes && before > 0 {
			add(quotedBase64(buffers.Get(), part[:before]))
			part = append(part[:0], part[before:]...)
		}
	}
	add(quotedBase64(buffers.Get(), part))
	buffers.Put(part)
	return nil
}

// quotedBase64 appends b's base64 as a JSON string to dst: standard
// base64, the same bytes as encoding/base64's, coded with the CPU's
// vector instructions (segmentio/asm: a fifteenth of the standard
// library's time here).
func quotedBase64(dst, b []byte) []byte {
	n := base64.StdEncoding.EncodedLen(len(b)) + 2
	dst = slices.Grow(dst, n)
	out := dst[len(dst) : len(dst)+n]
	out[0], out[n-1] = '"', '"'
	base64.StdEncoding.Encode(out[1:n-1], b)
	return dst[:len(dst)+n]
}

// buffers are the writer's encoding buffers, lent from batch to batch up
// to a message's size: a batch's binary form and its messages' base64
// were 8 % of the bytes the sustained ingest benchmark allocated.
var buffers = slicepool.New[byte](maxMessageBytes + 2)

// Applier applies chunks of batches (rollup.Applier).
type Applier interface {
	Apply(ctx context.Context, batches []rollup.Batch) error
	Prepare(batches []rollup.Batch, grouped *rollup.Grouping) (*rollup.Prepared, error)
	ApplyPrepared(ctx context.Context, p *rollup.Prepared) error
	Recover(ctx context.Context, before time.Time) error
}

// Chunking of the reader.
const (
	chunkWait     = 3 * time.Second        // how long a chunk gathers messages at most
	chunkIdle     = 200 * time.Millisecond // a chunk closes once no message came for this long
	recoverEvery  = 10 * time.Second       // how often chunks left by a stopped consumer are looked for
	recoverAfter  = 30 * time.Second       // age of a chunk record deemed left behind
	minRetry      = 100 * time.Millisecond
	maxRetry      = 5 * time.Second
	maxChunkBatch = 4000    // messages of one chunk
	maxFetchBytes = 4 << 20 // of one fetch from a broker
	decoders      = 2       // messages of a chunk decoded at once
)

// Reader consumes the log into the rollups.
type Reader struct {
	r     *kafka.Reader
	apply Applier
	log   *slog.Logger
}

// NewReader returns a reader of the log in group, on cluster c.
func NewReader(c kafkax.Cluster, group string, apply Applier, log *slog.Logger) *Reader {
	log = log.With("component", "visitkafka.reader", "topic", Topic, "group", group)
	return &Reader{
		r:     kafkax.GroupReader(c, group, Topic, kafkax.Fetch{MaxBytes: maxFetchBytes, MaxWait: 200 * time.Millisecond}, log),
		apply: apply,
		log:   log,
	}
}

// Close leaves the group; Run returns.
func (r *Reader) Close() error { return r.r.Close() }

// chunk is the messages of one chunk and their batches prepared (or, when
// that failed, the batches, their visits dropped once grouped).
type chunk struct {
	msgs     []kafka.Message
	batches  []rollup.Batch
	prepared *rollup.Prepared
}

// Run consumes until ctx is done: it gathers a chunk (up to maxChunkBatch
// messages or rollup.MaxChunkBytes, for at most chunkWait after the first
// and while messages keep coming within chunkIdle), applies it (retrying until it is applied) and commits its
// offsets. The next chunk is fetched, decoded and prepared (its rows
// built) while one is applied.
// Every recoverEvery it finishes the chunks a stopped consumer left.
func (r *Reader) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	chunks := make(chan chunk) // one applied, one prepared and waiting
	read := make(chan struct{})
	go func() {
		defer close(read)
		r.read(ctx, chunks)
	}()
	defer func() {
		cancel()
		<-read
	}()
	r.recover(ctx)
	tick := time.NewTicker(recoverEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			r.recover(ctx)
		case c, ok := <-chunks:
			if !ok || !r.applyChunk(ctx, c) {
				return nil
			}
		}
	}
}

// read fetches and decodes chunks into out until ctx is done or the
// reader is closed; it closes out.
func (r *Reader) read(ctx context.Context, out chan<- chunk) {
	defer close(out)
	for ctx.Err() == nil {
		got, grouped, err := r.fetch(ctx)
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return
			}
			r.log.WarnContext(ctx, "fetch visits", "err", err)
			if !sleep(ctx, minRetry) {
				return
			}
			continue
		}
		c := chunk{msgs: make([]kafka.Message, len(got)), batches: make([]rollup.Batch, 0, len(got))}
		for i, f := range got {
			c.msgs[i] = f.msg
			if f.err != nil {
				r.log.ErrorContext(ctx, "skip message that is not a batch of visits", "err", f.err, "partition", f.msg.Partition, "offset", f.msg.Offset)
				continue
			}
			c.batches = append(c.batches, f.batch)
		}
		if p, err := r.apply.Prepare(c.batches, grouped); err == nil {
			c.prepared, c.batches = p, nil // the visits are in p's records
		} else {
			r.log.WarnContext(ctx, "prepare visits", "err", err)
		}
		select {
		case out <- c:
		case <-ctx.Done():
			return
		}
	}
}

// applyChunk applies c, retrying until it is applied, and commits its
// offsets; false when ctx is done first.
func (r *Reader) applyChunk(ctx context.Context, c chunk) bool {
	for attempt := 1; ; attempt++ {
		var err error
		switch {
		case attempt == 1 && c.prepared != nil:
			err = r.apply.ApplyPrepared(ctx, c.prepared)
		case c.batches == nil:
			if c.batches, err = c.prepared.Batches(); err == nil {
				err = r.apply.Apply(ctx, c.batches) // prepared again: new chunk records
			}
		default:
			err = r.apply.Apply(ctx, c.batches)
		}
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return false
		}
		wait := min(maxRetry, minRetry<<min(attempt, 6))
		r.log.ErrorContext(ctx, "apply visits", "err", err, "attempt", attempt, "retry_in", wait.String())
		if !sleep(ctx, wait) {
			return false
		}
	}
	if err := r.r.CommitMessages(ctx, c.msgs...); err != nil && ctx.Err() == nil {
		// Applied batches are recorded: a redelivery is skipped.
		r.log.WarnContext(ctx, "commit visits", "err", err)
	}
	return true
}

// fetched is a message of a chunk and what decode made of it.
type fetched struct {
	msg   kafka.Message // its value dropped once decoded: the commit needs only the offset
	batch rollup.Batch
	err   error
}

// fetch gathers one chunk: it waits for a first message, then takes what
// comes within chunkWait, unless none came for chunkIdle. Under a steady
// flow a chunk gathers up to 3 s of it (each chunk rewrites its rows'
// shards and distinct sets, so fewer chunks cost less per event); when the
// flow stops or is sparse, it is applied at once. Each message is decoded
// as it comes (decoders at once) and its visits grouped, in the messages'
// order, then dropped (the grouping is what the chunk keeps of them), so
// that once the chunk is closed only its last messages are left to decode.
func (r *Reader) fetch(ctx context.Context) ([]*fetched, *rollup.Grouping, error) {
	m, err := r.r.FetchMessage(ctx)
	if err != nil {
		return nil, nil, err
	}
	var g errgroup.Group
	g.SetLimit(decoders)
	var got []*fetched
	size := 0
	grouped := rollup.NewGrouping()
	var before chan struct{} // closed once the message before is grouped
	take := func(m kafka.Message) {
		f := &fetched{msg: m}
		got, size = append(got, f), size+len(m.Value)
		prev, done := before, make(chan struct{})
		before = done
		g.Go(func() error {
			defer close(done)
			f.batch, f.err = decode(f.msg, visitSlices.Get())
			f.msg.Value = nil
			if prev != nil {
				<-prev // a decoder waits only for one started before it
			}
			if f.err == nil {
				grouped.Add(&f.batch)
				visitSlices.Put(f.batch.Visits)
				f.batch.Visits = nil
			}
			return nil
		})
	}
	take(m)
	deadline := time.Now().Add(chunkWait)
	for len(got) < maxChunkBatch && size < rollup.MaxChunkBytes {
		wait := min(chunkIdle, time.Until(deadline))
		if wait <= 0 {
			break
		}
		more, cancel := context.WithTimeout(ctx, wait)
		m, err := r.r.FetchMessage(more)
		cancel()
		if err != nil {
			break
		}
		take(m)
	}
	_ = g.Wait()
	return got, grouped, nil
}

// visitSlices are the decoded visits of a message, lent back once grouped.
var visitSlices = slicepool.New[visit.Visit](visit.MaxEvents)

func (r *Reader) recover(ctx context.Context) {
	if err := r.apply.Recover(ctx, time.Now().Add(-recoverAfter)); err != nil && ctx.Err() == nil {
		r.log.WarnContext(ctx, "recover chunks", "err", err)
	}
}

// decode reads a log message: its envelope (kafkax.Event) and visits, both
// with goccy/go-json as Writer (encoding/json spent more scanning the
// envelope's data than decoding the visits), or in binary form (into
// visits' array when it has room; a JSON batch gives visits back).
func decode(m kafka.Message, visits []visit.Visit) (rollup.Batch, error) {
	ev, err := envelopeOf(m.Value)
	if err != nil {
		return rollup.Batch{}, fmt.Errorf("decode event: %w", err)
	}
	if ev.ID == "" {
		return rollup.Batch{}, errors.New("decode event: no id")
	}
	b := rollup.Batch{ID: ev.ID, Org: ev.Organization, Site: ev.Subject}
	switch ev.Type {
	case EventTypeBinary:
		if b.Binary, err = unquoteBase64(ev.Data); err != nil {
			return rollup.Batch{}, fmt.Errorf("decode visits: %w", err)
		}
		if b.Visits, err = visitbin.DecodeInto(visits, b.Binary); err != nil {
			return rollup.Batch{}, fmt.Errorf("decode visits: %w", err)
		}
	default:
		visitSlices.Put(visits) // goccy decodes into its own array
		if err := gojson.Unmarshal(ev.Data, &b.Visits); err != nil {
			return rollup.Batch{}, fmt.Errorf("decode visits: %w", err)
		}
		b.Encoded = ev.Data
	}
	return b, nil
}

// dataField starts the envelope's data, its last field as envelope.Encode
// writes it (and encoding/json did before, in the struct's order).
var dataField = []byte(`,"data":`)

// envelopeOf reads a message's envelope. A binary batch's is read without
// scanning its data: the fields before the data are decoded, and the data
// is what follows them but the closing brace, when that is one JSON
// string, as envelope.Encode writes it (finding the end of 30 KB of base64
// was a quarter of a message's decoding). Any other message is decoded
// whole. The first `,"data":` is the envelope's own: the fields before it
// are strings and numbers, in which a quote is escaped.
func envelopeOf(value []byte) (kafkax.Event, error) {
	var ev kafkax.Event
	if i := bytes.Index(value, dataField); i > 0 && value[len(value)-1] == '}' {
		head := append(value[:i:i], '}')
		data := value[i+len(dataField) : len(value)-1]
		if gojson.Unmarshal(head, &ev) == nil && ev.Type == EventTypeBinary && ev.Data == nil &&
			len(data) >= 2 && data[0] == '"' && bytes.IndexByte(data[1:], '"') == len(data)-2 {
			ev.Data = data
			return ev, nil
		}
		ev = kafkax.Event{}
	}
	err := gojson.Unmarshal(value, &ev)
	return ev, err
}

// unquoteBase64 reads what quotedBase64 wrote.
func unquoteBase64(data []byte) ([]byte, error) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return nil, errors.New("not a base64 string")
	}
	data = data[1 : len(data)-1]
	out := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	n, err := base64.StdEncoding.Decode(out, data)
	if err != nil {
		return nil, err
	}
	return out[:n], nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
