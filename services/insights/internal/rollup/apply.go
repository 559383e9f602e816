package rollup

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitbin"
	"github.com/klauspost/compress/gzip"
	"golang.org/x/sync/errgroup"
	"google.golang.org/protobuf/encoding/protowire"
)

// Batch is one batch of the visit log: the visits one ingest request
// appended, under the id the log gave it.
type Batch struct {
	ID     string
	Org    string
	Site   string
	Visits []visit.Visit
	// Encoded is Visits as the log holds them (JSON), when known: a chunk
	// record keeps it as it is instead of encoding Visits again.
	Encoded json.RawMessage `json:"-"`
	// Binary is Visits in binary form (visitbin), when the log held them
	// so: a chunk record keeps that instead when every batch has it.
	Binary []byte `json:"-"`
}

// Chunk is a set of batches applied together: its record holds the batch
// ids and the batches themselves (compressed), written before any batch is
// claimed or any bucket touched, so that a crash half-way is finished later
// with the same rows (claims are kept, BuildChunk is deterministic).
type Chunk struct {
	ID      string    `bson:"_id"`
	At      time.Time `bson:"at"`
	Batches []string  `bson:"batches"`
	Data    []byte    `bson:"data"` // the batches, JSON, gzip
	// Claimed says the chunk applies only the batches it claimed (see
	// Store.Claim); a record without it (written before claims) applies
	// all its batches, which were checked before it was written.
	Claimed bool    `bson:"claimed,omitempty"`
	Deltas  []Delta `bson:"-"`
}

// Delta is what a chunk adds to one bucket (all its shards).
type Delta struct {
	Org   string    `bson:"org"`
	Site  string    `bson:"site"`
	Gran  Gran      `bson:"gran"`
	Start time.Time `bson:"start"`
	Rows  []Row     `bson:"rows"`
}

// Store keeps buckets, chunk records and the ids of applied batches.
type Store interface {
	// SaveChunk records a chunk.
	SaveChunk(ctx context.Context, c Chunk) error
	// Claim records batch ids as applied by chunk, in one write, and
	// returns those another chunk claimed before (claiming again for the
	// same chunk is no error and takes nothing).
	Claim(ctx context.Context, chunk string, ids []string) (taken map[string]bool, err error)
	// DropChunk removes a chunk record.
	DropChunk(ctx context.Context, id string) error
	// Unfinished returns chunk records written before t.
	Unfinished(ctx context.Context, before time.Time) ([]Chunk, error)
	// Reader reads the shards of buckets by their ids.
	Reader
	// PutShards writes each shard of bs when the stored shard's version is
	// its Version-1 (or, for version 1, when there is none): a
	// compare-and-set per shard, while what they have in common is written
	// at once. won[i] is false when another writer won bs[i].
	PutShards(ctx context.Context, bs []Bucket) (won []bool, err error)
}

// Applier applies chunks of batches to the buckets, exactly once each.
type Applier struct {
	store Store
	now   func() time.Time
	// written keeps the shards of the buckets the applier wrote last, as
	// written: the next chunk starts from them instead of reading them
	// again. Another writer's change since makes a write lose its
	// compare-and-set, and the bucket is then read.
	written *sizedcache.Cache[bucketKey, []Bucket]
}

// bucketKey names a bucket (all its shards).
type bucketKey struct {
	site  string
	gran  Gran
	start int64
}

// Bounds of the shards an applier keeps: buckets, and the estimated size
// of one bucket's shards (a bigger bucket is read each time).
const (
	keptBuckets     = 256
	keptBucketBytes = 256 << 10
)

// NewApplier returns an applier on store; now nil is time.Now.
func NewApplier(store Store, now func() time.Time) *Applier {
	if now == nil {
		now = time.Now
	}
	written := sizedcache.New[bucketKey, []Bucket](keptBuckets, 0)
	return &Applier{store: store, now: now, written: written}
}

// kept returns a copy of the shards of bucket k as last written, which
// plan may change; false when they are not kept.
func (a *Applier) kept(k bucketKey) ([]Bucket, bool) {
	shards, ok := a.written.Get(k)
	if !ok {
		return nil, false
	}
	out := make([]Bucket, len(shards))
	for i, b := range shards {
		b.Rows = slices.Clone(b.Rows)
		for j := range b.Rows {
			r := &b.Rows[j]
			r.Visitors.IDs, r.Sessions.IDs = slices.Clone(r.Visitors.IDs), slices.Clone(r.Sessions.IDs)
			r.Visitors.Sketch, r.Sessions.Sketch = slices.Clone(r.Visitors.Sketch), slices.Clone(r.Sessions.Sketch)
		}
		out[i] = b
	}
	return out, true
}

// keep remembers the shards of bucket k as written, when they are small.
func (a *Applier) keep(k bucketKey, shards []Bucket) {
	size := 0
	for i := range shards {
		for j := range shards[i].Rows {
			size += shards[i].Rows[j].size()
		}
	}
	if size > keptBucketBytes {
		a.written.Remove(k)
		return
	}
	a.written.Set(k, shards, 0)
}

// Apply applies the batches not applied before. It records the chunk
// (every batch, once), claims its batches, and applies those it claimed:
// a batch already applied, or claimed by a chunk still being applied,
// costs no lookup but a duplicate claim. It returns once every bucket
// holds them; a failure leaves either nothing recorded or a chunk record
// that Recover finishes later.
func (a *Applier) Apply(ctx context.Context, batches []Batch) error {
	p, err := a.Prepare(batches, nil)
	if err != nil {
		return err
	}
	return a.ApplyPrepared(ctx, p)
}

// Prepared is batches made ready to apply without the store: their chunk
// records and rows, which a reader builds while the previous chunk is
// written.
type Prepared struct {
	parts []preparedChunk
}

// preparedChunk is a chunk record and its rows (BuildChunk of all its
// batches, used when none was taken): the visits themselves are dropped,
// the record holds them.
type preparedChunk struct {
	rec  Chunk
	rows Chunk
}

// Prepare drops repeated batch ids, packs the batches into chunk records
// (two halves when their record would be over MaxRecordBytes, and so on)
// and builds their rows: from grouped when it holds these batches (a
// reader's Grouping, the batches' visits then dropped), else from the
// batches' visits (decoded again from their log form when dropped).
// ApplyPrepared applies the result once: a retry prepares again (the
// records' ids are new).
func (a *Applier) Prepare(batches []Batch, grouped *Grouping) (*Prepared, error) {
	seen := make(map[string]bool, len(batches))
	fresh := make([]Batch, 0, len(batches))
	for _, b := range batches {
		if !seen[b.ID] {
			seen[b.ID] = true
			fresh = append(fresh, b)
		}
	}
	p := &Prepared{}
	if len(fresh) == 0 {
		return p, nil
	}
	if !grouped.holds(fresh) {
		grouped = nil
	}
	return p, a.prepare(p, fresh, grouped)
}

func (a *Applier) prepare(p *Prepared, fresh []Batch, grouped *Grouping) error {
	rec := Chunk{ID: newChunkID(), At: a.now().UTC(), Claimed: true}
	// The record is packed while the rows are built (both read fresh
	// only); rows built for a record too big are dropped.
	packed := make(chan error, 1)
	go func() {
		var err error
		rec.Data, err = pack(fresh)
		packed <- err
	}()
	var rows Chunk
	var err error
	if grouped != nil {
		rows = buildChunk(rec.ID, rec.At, fresh, grouped.sorted())
	} else {
		var full []Batch // fresh is the packer's
		if full, err = withVisits(fresh); err == nil {
			rows = BuildChunk(rec.ID, rec.At, full)
		}
	}
	if err := errors.Join(<-packed, err); err != nil {
		return err
	}
	if len(rec.Data) > MaxRecordBytes && len(fresh) > 1 {
		half := len(fresh) / 2
		if err := a.prepare(p, fresh[:half], nil); err != nil {
			return err
		}
		return a.prepare(p, fresh[half:], nil)
	}
	for _, b := range fresh {
		rec.Batches = append(rec.Batches, b.ID)
	}
	p.parts = append(p.parts, preparedChunk{rec: rec, rows: rows})
	return nil
}

// Batches returns the batches p holds (from its records).
func (p *Prepared) Batches() ([]Batch, error) {
	var out []Batch
	for _, c := range p.parts {
		bs, err := unpack(c.rec.Data)
		if err != nil {
			return nil, err
		}
		out = append(out, bs...)
	}
	return out, nil
}

// ApplyPrepared records, claims and applies what Prepare made, as Apply.
func (a *Applier) ApplyPrepared(ctx context.Context, p *Prepared) error {
	for _, c := range p.parts {
		if err := a.store.SaveChunk(ctx, c.rec); err != nil {
			return err
		}
		if err := a.finish(ctx, c.rec, nil, &c.rows); err != nil {
			return err
		}
	}
	return nil
}

// gzipWriters are reused: a writer holds its compression state (about
// 300 KiB at BestSpeed), and an applier packs every chunk it applies.
var gzipWriters = sync.Pool{New: func() any { zw, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed); return zw }}

// pack encodes batches for a chunk record, compressed: in binary form
// (packBinary) when every batch came in that form, else JSON, as []Batch
// encodes, with each batch's Encoded visits when it has them (what every
// release reads).
func pack(batches []Batch) ([]byte, error) {
	var buf bytes.Buffer
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(&buf)
	w := bufio.NewWriter(zw)
	binary := len(batches) > 0
	for i := range batches {
		binary = binary && batches[i].Binary != nil
	}
	if binary {
		packBinary(w, batches)
	} else if err := packJSON(w, batches); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("encode chunk: %w", err)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("encode chunk: %w", err)
	}
	return buf.Bytes(), nil
}

func packJSON(w *bufio.Writer, batches []Batch) error {
	_ = w.WriteByte('[')
	for i := range batches {
		b := &batches[i]
		if i > 0 {
			_ = w.WriteByte(',')
		}
		head, _ := json.Marshal(struct{ ID, Org, Site string }{b.ID, b.Org, b.Site})
		_, _ = w.Write(head[:len(head)-1])
		_, _ = w.WriteString(`,"Visits":`)
		visits := b.Encoded
		if visits == nil {
			vs, err := b.Decoded()
			if err == nil {
				visits, err = json.Marshal(vs)
			}
			if err != nil {
				return fmt.Errorf("encode chunk: %w", err)
			}
		}
		_, _ = w.Write(visits)
		_ = w.WriteByte('}')
	}
	_ = w.WriteByte(']')
	return nil
}

// Fields of a chunk record's binary form (Protocol Buffers' wire format):
// one field recordBatch per batch, of message { string id = 1; string org
// = 2; string site = 3; bytes visits = 4 (visitbin) }. Its first byte is
// never '[', where the JSON form starts.
const (
	recordBatch  protowire.Number = 1
	recordID     protowire.Number = 1
	recordOrg    protowire.Number = 2
	recordSite   protowire.Number = 3
	recordVisits protowire.Number = 4
)

// packBinary writes batches to w in the record's binary form, each
// batch's visits as they are (no copy of them in between).
func packBinary(w *bufio.Writer, batches []Batch) {
	var fields, head []byte
	for i := range batches {
		b := &batches[i]
		fields = protowire.AppendTag(fields[:0], recordID, protowire.BytesType)
		fields = protowire.AppendString(fields, b.ID)
		fields = protowire.AppendTag(fields, recordOrg, protowire.BytesType)
		fields = protowire.AppendString(fields, b.Org)
		fields = protowire.AppendTag(fields, recordSite, protowire.BytesType)
		fields = protowire.AppendString(fields, b.Site)
		fields = protowire.AppendTag(fields, recordVisits, protowire.BytesType)
		fields = protowire.AppendVarint(fields, uint64(len(b.Binary)))
		head = protowire.AppendTag(head[:0], recordBatch, protowire.BytesType)
		head = protowire.AppendVarint(head, uint64(len(fields)+len(b.Binary)))
		_, _ = w.Write(head)
		_, _ = w.Write(fields)
		_, _ = w.Write(b.Binary)
	}
}

// Decoded returns b's visits: b.Visits, or, when a reader dropped them
// once grouped (Grouping), decoded again from the log's form of them.
func (b *Batch) Decoded() ([]visit.Visit, error) {
	switch {
	case b.Visits != nil:
		return b.Visits, nil
	case b.Binary != nil:
		return visitbin.Decode(b.Binary)
	case b.Encoded != nil:
		var vs []visit.Visit
		err := json.Unmarshal(b.Encoded, &vs)
		return vs, err
	}
	return nil, nil
}

// withVisits returns batches, each with its visits (Decoded); the
// batches given are not changed.
func withVisits(batches []Batch) ([]Batch, error) {
	var out []Batch // a copy, once a batch's visits are decoded
	for i := range batches {
		if batches[i].Visits != nil {
			continue
		}
		vs, err := batches[i].Decoded()
		if err != nil {
			return nil, fmt.Errorf("decode visits of batch %s: %w", batches[i].ID, err)
		}
		if out == nil {
			out = slices.Clone(batches)
		}
		out[i].Visits = vs
	}
	if out == nil {
		return batches, nil
	}
	return out, nil
}

// maxUnpackedBytes bounds a chunk record's batches once inflated.
const maxUnpackedBytes = 4 * MaxChunkBytes

// unpack decodes the batches of a chunk record, in either form.
func unpack(data []byte) ([]Batch, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode chunk: %w", err)
	}
	r := bufio.NewReader(io.LimitReader(zr, maxUnpackedBytes))
	if first, err := r.Peek(1); err == nil && first[0] != '[' {
		all, err := io.ReadAll(r)
		if err != nil {
			return nil, fmt.Errorf("decode chunk: %w", err)
		}
		return unpackBinary(all)
	}
	var batches []Batch
	if err := json.NewDecoder(r).Decode(&batches); err != nil {
		return nil, fmt.Errorf("decode chunk: %w", err)
	}
	return batches, nil
}

func unpackBinary(data []byte) ([]Batch, error) {
	var batches []Batch
	for len(data) > 0 {
		num, typ, l := protowire.ConsumeTag(data)
		if l < 0 {
			return nil, fmt.Errorf("decode chunk: %w", protowire.ParseError(l))
		}
		data = data[l:]
		if num != recordBatch || typ != protowire.BytesType {
			return nil, fmt.Errorf("decode chunk: field %d of type %d", num, typ)
		}
		body, l := protowire.ConsumeBytes(data)
		if l < 0 {
			return nil, fmt.Errorf("decode chunk: %w", protowire.ParseError(l))
		}
		data = data[l:]
		var b Batch
		for len(body) > 0 {
			num, typ, l := protowire.ConsumeTag(body)
			if l < 0 || typ != protowire.BytesType {
				return nil, fmt.Errorf("decode chunk: a batch's field %d", num)
			}
			v, m := protowire.ConsumeBytes(body[l:])
			if m < 0 {
				return nil, fmt.Errorf("decode chunk: %w", protowire.ParseError(m))
			}
			body = body[l+m:]
			switch num {
			case recordID:
				b.ID = string(v)
			case recordOrg:
				b.Org = string(v)
			case recordSite:
				b.Site = string(v)
			case recordVisits:
				b.Binary = v
			}
		}
		var err error
		if b.Visits, err = visitbin.Decode(b.Binary); err != nil {
			return nil, fmt.Errorf("decode chunk: %w", err)
		}
		batches = append(batches, b)
	}
	return batches, nil
}

// Recover finishes the chunks recorded before t (those of a consumer that
// stopped half-way).
func (a *Applier) Recover(ctx context.Context, before time.Time) error {
	cs, err := a.store.Unfinished(ctx, before)
	if err != nil {
		return err
	}
	for _, rec := range cs {
		batches, err := unpack(rec.Data)
		if err != nil {
			return err
		}
		if err := a.finish(ctx, rec, batches, nil); err != nil {
			return err
		}
	}
	return nil
}

// finish claims the batches of the chunk recorded as rec, applies those
// it claimed (all of them for a record from before claims) and drops the
// record. batches are the record's (nil: unpacked from it when needed);
// rows, when known, is BuildChunk of all of them.
func (a *Applier) finish(ctx context.Context, rec Chunk, batches []Batch, rows *Chunk) error {
	ids := rec.Batches
	if batches != nil {
		ids = make([]string, len(batches))
		for i, b := range batches {
			ids[i] = b.ID
		}
	}
	taken, err := a.store.Claim(ctx, rec.ID, ids)
	if err != nil {
		return err
	}
	if rows == nil || rec.Claimed && len(taken) > 0 {
		if batches == nil {
			if batches, err = unpack(rec.Data); err != nil {
				return err
			}
		}
		if rec.Claimed {
			batches = slices.DeleteFunc(slices.Clone(batches), func(b Batch) bool { return taken[b.ID] })
		}
		rows = nil // built with batches now left out
		if len(batches) > 0 {
			built := BuildChunk(rec.ID, rec.At, batches)
			rows = &built
		}
	}
	if rows != nil {
		if err := a.apply(ctx, *rows); err != nil {
			return err
		}
	}
	return a.store.DropChunk(ctx, rec.ID)
}

// apply applies the deltas of c to their buckets.
func (a *Applier) apply(ctx context.Context, c Chunk) error {
	// The buckets written last are kept; one read for the shards of every
	// other bucket of the chunk, by site.
	keys := map[string][]Key{}
	loaded := map[bucketKey][]Bucket{}
	for _, d := range c.Deltas {
		k := bucketKey{d.Site, d.Gran, d.Start.Unix()}
		if shards, ok := a.kept(k); ok {
			loaded[k] = shards
			continue
		}
		keys[d.Site] = append(keys[d.Site], Key{d.Gran, d.Start})
	}
	for site, ks := range keys {
		shards, err := a.store.Buckets(ctx, site, ks, true)
		if err != nil {
			return err
		}
		for _, b := range shards {
			k := bucketKey{site, b.Gran, b.Start.Unix()}
			loaded[k] = append(loaded[k], b)
		}
	}
	// Every bucket's shards are written in one PutShards; the buckets of
	// the shards that lost their compare-and-set are read and written
	// again, each on its own.
	var writes []Bucket
	alls := make([][]Bucket, len(c.Deltas))
	outs := make([]int, len(c.Deltas)) // shards of each delta in writes
	for i := range c.Deltas {
		d := &c.Deltas[i]
		k := bucketKey{d.Site, d.Gran, d.Start.Unix()}
		a.written.Remove(k) // until written again
		shards := loaded[k]
		sort.Slice(shards, func(i, j int) bool { return shards[i].Shard < shards[j].Shard })
		all, out := plan(c.ID, d, shards)
		alls[i], outs[i] = all, len(out)
		writes = append(writes, out...)
	}
	won, err := a.store.PutShards(ctx, writes)
	if err != nil {
		return err
	}
	var g errgroup.Group // one bucket failing does not stop the others
	g.SetLimit(applyers)
	next := 0
	for i := range c.Deltas {
		d := &c.Deltas[i]
		ok := !slices.Contains(won[next:next+outs[i]], false)
		next += outs[i]
		if ok {
			a.keep(bucketKey{d.Site, d.Gran, d.Start.Unix()}, alls[i])
			continue
		}
		g.Go(func() error { return a.applyDelta(ctx, c.ID, d) })
	}
	return g.Wait()
}

// applyers is how many buckets of a chunk are written again at once
// (each delta is a different bucket).
const applyers = 4

// maxRaces bounds the retries of a bucket whose shards other writers change.
const maxRaces = 50

// applyDelta adds d's rows to the shards of its bucket, read again (a
// write of them lost its compare-and-set). A shard that already lists the
// chunk got its part before; a row not yet in the bucket goes to a shard
// without the chunk that has room, or to a new shard.
func (a *Applier) applyDelta(ctx context.Context, chunk string, d *Delta) error {
	k := bucketKey{d.Site, d.Gran, d.Start.Unix()}
	for range maxRaces {
		shards, err := a.store.Buckets(ctx, d.Site, []Key{{d.Gran, d.Start}}, true)
		if err != nil {
			return err
		}
		sort.Slice(shards, func(i, j int) bool { return shards[i].Shard < shards[j].Shard })
		all, out := plan(chunk, d, shards)
		won, err := a.store.PutShards(ctx, out)
		if err != nil {
			return err
		}
		if !slices.Contains(won, false) {
			a.keep(k, all)
			return nil
		}
	}
	return fmt.Errorf("apply chunk %s to %s/%s/%s: too many concurrent writers", chunk, d.Site, d.Gran, d.Start)
}

// plan merges d into shards (adding new shards at the end) and returns
// every shard of the bucket and the shards to write, each with its version
// raised and the chunk listed.
func plan(chunk string, d *Delta, shards []Bucket) (all, out []Bucket) {
	where := map[string]int{} // row key → shard index
	rowAt := map[string]int{} // row key → row index in its shard
	size := make([]int, len(shards))
	for i := range shards {
		for j := range shards[i].Rows {
			r := &shards[i].Rows[j]
			where[r.Key], rowAt[r.Key] = i, j
			size[i] += r.size()
		}
	}
	done := func(i int) bool { return slices.Contains(shards[i].Chunks, chunk) }
	touched := map[int]bool{}
	for _, r := range d.Rows {
		if i, ok := where[r.Key]; ok {
			if done(i) {
				continue
			}
			dst := &shards[i].Rows[rowAt[r.Key]]
			dst.Events += r.Events
			before := dst.Visitors.size() + dst.Sessions.size()
			dst.Visitors.Merge(r.Visitors)
			dst.Sessions.Merge(r.Sessions)
			size[i] += dst.Visitors.size() + dst.Sessions.size() - before
			touched[i] = true
			continue
		}
		n := r.size()
		target := -1
		for i := len(shards) - 1; i >= 0; i-- {
			if !done(i) && size[i]+n <= MaxShardBytes && len(shards[i].Rows) < MaxShardRows {
				target = i
				break
			}
		}
		if target < 0 {
			next := 0
			for _, s := range shards {
				next = max(next, s.Shard+1)
			}
			shards = append(shards, Bucket{ID: BucketID(d.Site, d.Gran, d.Start, next), Org: d.Org, Site: d.Site,
				Gran: d.Gran, Start: d.Start, Shard: next})
			size = append(size, 0)
			target = len(shards) - 1
		}
		shards[target].Rows = append(shards[target].Rows, r)
		where[r.Key], rowAt[r.Key] = target, len(shards[target].Rows)-1
		size[target] += n
		touched[target] = true
	}
	// Shard 0 counts the shards up to the highest number, which readers
	// read by id (a number missing after a crash is looked up for nothing).
	top := 0
	for _, s := range shards {
		top = max(top, s.Shard+1)
	}
	if top > 1 && shards[0].Count < top {
		shards[0].Count = top
		touched[0] = true
	}
	for i := range shards {
		if !touched[i] {
			continue
		}
		s := &shards[i]
		s.Version++
		if !done(i) {
			s.Chunks = append(slices.Clone(s.Chunks), chunk)
			if len(s.Chunks) > recentChunks {
				s.Chunks = s.Chunks[len(s.Chunks)-recentChunks:]
			}
		}
		out = append(out, *s)
	}
	return shards, out
}

// sourceGrans says, for each granularity of grans, the one whose rows of
// one hour hold the same visits (-1: none): a daily row is its hourly
// rows' union, a marginal's month and month-by-day rows its day-by-hour
// rows' union (computed once grans are complete).
var sourceGrans = sync.OnceValue(func() []int {
	at := map[Gran]int{}
	for i, g := range grans {
		at[g] = i
	}
	out := make([]int, len(grans))
	for i, g := range grans {
		m, isMarginal := marginals[g]
		switch {
		case g == Daily:
			out[i] = at[Hourly]
		case isMarginal && !g.perHour():
			out[i] = at[DayByHour(m.column)]
		default:
			out[i] = -1
		}
	}
	return out
})

// rowRef is a row of a chunk: its delta and its index there.
type rowRef struct{ delta, row int }

// BuildChunk groups the visits of batches into the rows each bucket (hourly,
// daily, monthly marginals) gains. Visits of one site with the same
// dimensions in the same hour are first counted together (visitGroups), so
// the work per bucket is per distinct row, not per visit. Only hourly rows
// (full and marginal) count the visitors and sessions of the visits; the
// other rows merge their hourly rows' counts once sealed (a third of the
// work: each visit's ids went to every granularity).
func BuildChunk(id string, at time.Time, batches []Batch) Chunk {
	return buildChunk(id, at, batches, visitGroups(batches, builders))
}

// buildChunk is BuildChunk of batches whose visits are grouped as gs
// (visitGroups, or a Grouping of them).
func buildChunk(id string, at time.Time, batches []Batch, gs []visitGroup) Chunk {
	c := Chunk{ID: id, At: at.UTC()}
	type key struct {
		site  string
		gran  int // index in grans
		start int64
	}
	deltas := map[key]int{}
	var rows []map[string]int
	marginalKeys := map[string]string{} // of the group, by column
	refs := make([]rowRef, len(grans))  // of the group's rows, by granularity
	derived := derivedRows{from: map[rowRef][]rowRef{}, linked: map[[2]rowRef]bool{}}
	for _, b := range batches {
		c.Batches = append(c.Batches, b.ID)
	}
	sources := sourceGrans()
	for _, g := range gs {
		full := rowKey(g.dims) // once per group: encoding every dimension is the costly part
		clear(marginalKeys)
		hour := g.hour
		day, month := Truncate(hour, Daily), Truncate(hour, Monthly(""))
		dom, hod := hour.Day()-1, hour.Hour()
		for gi, gran := range grans {
			m, isMarginal := marginals[gran]
			rk, start, on := full, hour, 0
			if isMarginal {
				if rk = marginalKeys[m.column]; rk == "" {
					rk = m.key(g.dims)
					marginalKeys[m.column] = rk
				}
			}
			switch {
			case gran == Daily:
				start = day
			case gran.perDay():
				start, on = month, dom
				rk = inSlot(rk, on)
			case gran.perHour():
				start, on = day, hod
				rk = inSlot(rk, on)
			case isMarginal:
				start = month
			}
			k := key{g.site, gi, start.Unix()}
			di, ok := deltas[k]
			if !ok {
				di = len(c.Deltas)
				deltas[k] = di
				c.Deltas = append(c.Deltas, Delta{Org: g.org, Site: g.site, Gran: gran, Start: start})
				rows = append(rows, map[string]int{})
			}
			d := &c.Deltas[di]
			ri, ok := rows[di][rk]
			if !ok {
				ri = len(d.Rows)
				rows[di][rk] = ri
				r := Row{Key: rk, Dims: *g.dims, Slot: on}
				if isMarginal {
					r.Dims = visit.Dims{}
					m.keep(&r.Dims, g.dims)
				}
				d.Rows = append(d.Rows, r)
			}
			d.Rows[ri].Events += g.events
			refs[gi] = rowRef{di, ri}
		}
		derived.count(&c, &g, refs, sources)
	}
	derived.seal(&c)
	return c
}

// builders is how many goroutines build a chunk's rows at once (grouping
// its visits, sealing its rows' distinct sets): one a core.
var builders = runtime.GOMAXPROCS(0)

// derivedRows are the rows of a chunk that merge other rows' distinct
// counts (see sourceGrans): from lists each one's source rows, once each.
type derivedRows struct {
	from   map[rowRef][]rowRef
	linked map[[2]rowRef]bool
}

// count adds the ids of group g to its rows (refs, by granularity) that
// count them, and links the others to their source rows.
func (dr *derivedRows) count(c *Chunk, g *visitGroup, refs []rowRef, sources []int) {
	for gi, ref := range refs {
		if src := sources[gi]; src >= 0 {
			if link := [2]rowRef{ref, refs[src]}; !dr.linked[link] {
				dr.linked[link] = true
				dr.from[ref] = append(dr.from[ref], refs[src])
			}
			continue
		}
		r := &c.Deltas[ref.delta].Rows[ref.row]
		for _, h := range g.visitors {
			r.Visitors.Add(h)
		}
		for _, h := range g.sessions {
			r.Sessions.Add(h)
		}
	}
}

// seal seals the distinct counts of the rows of c that counted ids (on
// every core: each row's are its own, and the last chunk of a flood is
// sealed while the count waits for it), then merges them into the rows
// derived from them.
func (dr *derivedRows) seal(c *Chunk) {
	var rows []*Row
	for i := range c.Deltas {
		for j := range c.Deltas[i].Rows {
			rows = append(rows, &c.Deltas[i].Rows[j])
		}
	}
	var next atomic.Int64 // the next row to seal: rows differ widely in cost
	var g errgroup.Group
	for range min(builders, len(rows)) {
		g.Go(func() error {
			for i := next.Add(1) - 1; i < int64(len(rows)); i = next.Add(1) - 1 {
				rows[i].Visitors.Seal()
				rows[i].Sessions.Seal()
			}
			return nil
		})
	}
	_ = g.Wait()
	for ref, srcs := range dr.from {
		r := &c.Deltas[ref.delta].Rows[ref.row]
		for _, src := range srcs {
			s := &c.Deltas[src.delta].Rows[src.row]
			r.Visitors.Merge(s.Visitors)
			r.Sessions.Merge(s.Sessions)
		}
	}
}

// visitGroup is the visits of one site with the same dimensions in one
// hour: their count and their distinct visitor and session hashes.
type visitGroup struct {
	org, site          string
	hour               time.Time
	dims               *visit.Dims // of the first visit
	events             int64
	visitors, sessions []uint64
}

// visitGroups groups the visits of batches, in the order of each group's
// first visit (so BuildChunk's rows come in the order of their first visit).
// The batches are grouped in n parts at once (BuildChunk: one a core;
// keying a visit by its dimensions, some 45 strings to hash, is most of
// the work), and the parts' groups merged in order.
func visitGroups(batches []Batch, n int) []visitGroup {
	in := slices.Collect(slices.Chunk(batches, max(1, (len(batches)+n-1)/max(1, n))))
	parts := make([][]visitGroup, len(in))
	var g errgroup.Group
	for i := range in {
		g.Go(func() error {
			parts[i] = groupVisits(in[i])
			return nil
		})
	}
	_ = g.Wait()
	return sortedSets(mergeGroups(parts))
}

// sortedSets makes each group's visitor and session hashes a sorted set.
func sortedSets(gs []visitGroup) []visitGroup {
	for i := range gs {
		gs[i].visitors = sortedSet(gs[i].visitors)
		gs[i].sessions = sortedSet(gs[i].sessions)
	}
	return gs
}

// groupKey is what a visit is grouped by.
type groupKey struct {
	site string
	hour int64
	dims visit.Dims
}

func (g *visitGroup) key() groupKey { return groupKey{g.site, g.hour.Unix(), *g.dims} }

// groupVisits groups the visits of batches, in the order of each group's
// first visit (their hashes unsorted).
func groupVisits(batches []Batch) []visitGroup {
	at := map[groupKey]int{}
	var gs []visitGroup
	for bi := range batches {
		gs = addVisits(gs, at, &batches[bi])
	}
	return gs
}

// addVisits adds the visits of b to the groups gs (at: their indexes by
// key); a new group's dims point into b.Visits.
func addVisits(gs []visitGroup, at map[groupKey]int, b *Batch) []visitGroup {
	for i := range b.Visits {
		v := &b.Visits[i]
		hour := Truncate(v.Time, Hourly)
		k := groupKey{b.Site, hour.Unix(), v.Dims}
		gi, ok := at[k]
		if !ok {
			gi = len(gs)
			at[k] = gi
			gs = append(gs, visitGroup{org: b.Org, site: b.Site, hour: hour, dims: &v.Dims})
		}
		g := &gs[gi]
		g.events++
		g.visitors = append(g.visitors, hashID(b.Site, v.Visitor))
		g.sessions = append(g.sessions, hashID(b.Site, v.Session))
	}
	return gs
}

// Grouping groups the visits of a chunk's batches as a reader takes them,
// as BuildChunk groups them, so that the reader keeps each batch's visits
// only while it adds them (a new group copies its dimensions) and not
// until the chunk is closed: a chunk of 300,000 visits held some 200 MB of
// them for up to 3 s, marked again by every collection meanwhile. Add the
// batches in the order Prepare is given them; a repeated id is skipped, as
// Prepare skips it. A Grouping serves one Prepare.
type Grouping struct {
	at   map[groupKey]int
	gs   []visitGroup
	seen map[string]bool
	ids  []string // in the order added
}

// NewGrouping returns an empty grouping.
func NewGrouping() *Grouping {
	return &Grouping{at: map[groupKey]int{}, seen: map[string]bool{}}
}

// Add groups the visits of b; it keeps none of b.Visits.
func (g *Grouping) Add(b *Batch) {
	if g.seen[b.ID] {
		return
	}
	g.seen[b.ID] = true
	g.ids = append(g.ids, b.ID)
	n := len(g.gs)
	g.gs = addVisits(g.gs, g.at, b)
	for i := n; i < len(g.gs); i++ {
		dims := *g.gs[i].dims
		g.gs[i].dims = &dims
	}
}

// holds reports whether g grouped exactly batches (their distinct ids, in
// order); false for a nil g.
func (g *Grouping) holds(batches []Batch) bool {
	if g == nil || len(g.ids) != len(batches) {
		return false
	}
	for i := range batches {
		if batches[i].ID != g.ids[i] {
			return false
		}
	}
	return true
}

// sorted returns the groups, their hashes sorted sets (visitGroups').
func (g *Grouping) sorted() []visitGroup { return sortedSets(g.gs) }

// mergeGroups merges the groups of consecutive parts of batches: a group
// of a later part joins the same group of an earlier one.
func mergeGroups(parts [][]visitGroup) []visitGroup {
	if len(parts) <= 1 {
		return slices.Concat(parts...)
	}
	var gs []visitGroup
	at := map[groupKey]int{}
	for _, part := range parts {
		for _, g := range part {
			k := g.key()
			if gi, ok := at[k]; ok {
				m := &gs[gi]
				m.events += g.events
				m.visitors = append(m.visitors, g.visitors...)
				m.sessions = append(m.sessions, g.sessions...)
				continue
			}
			at[k] = len(gs)
			gs = append(gs, g)
		}
	}
	return gs
}

// sortedSet sorts hs and drops repeats.
func sortedSet(hs []uint64) []uint64 {
	slices.Sort(hs)
	return slices.Compact(hs)
}

func newChunkID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
