package rollup

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitbin"
	"github.com/google/go-cmp/cmp"
)

// buildChunkPerVisit is BuildChunk as it was before visits were grouped:
// every visit added to every bucket on its own. It is the oracle of
// TestBuildChunkGroupsVisits.
func buildChunkPerVisit(id string, at time.Time, batches []Batch) Chunk {
	c := Chunk{ID: id, At: at.UTC()}
	type key struct {
		site  string
		gran  int
		start int64
	}
	deltas := map[key]int{}
	rows := []map[string]int{}
	for _, b := range batches {
		c.Batches = append(c.Batches, b.ID)
		for i := range b.Visits {
			v := &b.Visits[i]
			hour, day, month := Truncate(v.Time, Hourly), Truncate(v.Time, Daily), Truncate(v.Time, Monthly(""))
			dom, hod := v.Time.UTC().Day()-1, v.Time.UTC().Hour()
			for gi, gran := range grans {
				m, isMarginal := marginals[gran]
				rk, start, on := rowKey(&v.Dims), hour, 0
				if isMarginal {
					rk = m.key(&v.Dims)
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
				k := key{b.Site, gi, start.Unix()}
				di, ok := deltas[k]
				if !ok {
					di = len(c.Deltas)
					deltas[k] = di
					c.Deltas = append(c.Deltas, Delta{Org: b.Org, Site: b.Site, Gran: gran, Start: start})
					rows = append(rows, map[string]int{})
				}
				d := &c.Deltas[di]
				ri, ok := rows[di][rk]
				if !ok {
					ri = len(d.Rows)
					rows[di][rk] = ri
					r := Row{Key: rk, Dims: v.Dims, Slot: on}
					if isMarginal {
						r.Dims = visit.Dims{}
						m.keep(&r.Dims, &v.Dims)
					}
					d.Rows = append(d.Rows, r)
				}
				r := &d.Rows[ri]
				r.Events++
				r.Visitors.Add(xxhashOf(b.Site, v.Visitor))
				r.Sessions.Add(xxhashOf(b.Site, v.Session))
			}
		}
	}
	for i := range c.Deltas {
		for j := range c.Deltas[i].Rows {
			c.Deltas[i].Rows[j].Visitors.Seal()
			c.Deltas[i].Rows[j].Sessions.Seal()
		}
	}
	return c
}

// randomBatches are n batches of perBatch random page views over two sites
// and three hours that cross a day and a month: 300 visitors (rows past
// ExactBound keep sketches), 30 sessions, 4 paths, 2 browsers, 3 countries.
func randomBatches(rng *rand.Rand, n, perBatch int) []Batch {
	t0 := time.Date(2026, 1, 31, 22, 10, 0, 0, time.UTC)
	var batches []Batch
	for bi := range n {
		b := Batch{ID: fmt.Sprintf("b%d", bi), Org: "org", Site: []string{"s1", "s2"}[bi%2]}
		for range perBatch {
			b.Visits = append(b.Visits, visit.Visit{
				Time:    t0.Add(time.Duration(rng.IntN(3*3600)) * time.Second),
				Visitor: fmt.Sprintf("v%d", rng.IntN(300)),
				Session: fmt.Sprintf("s%d", rng.IntN(30)),
				Dims: visit.Dims{EventType: "page_view", URLPath: fmt.Sprintf("/p%d", rng.IntN(4)),
					Browser: []string{"chrome", "firefox"}[rng.IntN(2)], GeoCountry: []string{"FR", "DE", ""}[rng.IntN(3)]},
			})
		}
		batches = append(batches, b)
	}
	return batches
}

func TestBuildChunkGroupsVisits(t *testing.T) {
	t.Parallel()
	batches := randomBatches(rand.New(rand.NewPCG(1, 2)), 40, 100)
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	got, want := BuildChunk("c", at, batches), buildChunkPerVisit("c", at, batches)
	// A sketch's encoding may depend on the order of its inserts: compare
	// what it counts.
	count := cmp.Transformer("count", func(d Distinct) any {
		if d.Sketch == nil {
			return d.IDs
		}
		return decode(d.Sketch).Estimate()
	})
	if diff := cmp.Diff(got, want, count); diff != "" {
		t.Errorf("BuildChunk (-got +want):\n%s", diff)
	}
	sketches := 0
	for _, d := range got.Deltas {
		for _, r := range d.Rows {
			if r.Visitors.Sketch != nil {
				sketches++
			}
		}
	}
	if sketches == 0 {
		t.Error("no row kept a sketch: the test does not cover them")
	}
}

// xxhashOf is how visitor and session ids were always hashed (stored
// sets hold these hashes).
func xxhashOf(site, id string) uint64 { return xxhash.Sum64String(site + "\x00" + id) }

// TestPackKeepsEncodedVisits: a chunk record holds the batches whether
// their visits came encoded (from the log) or not, and reads back as they
// were.
func TestPackKeepsEncodedVisits(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 123, time.UTC)
	visits := []visit.Visit{{Time: t0, Visitor: "v", Session: "s", Dims: visit.Dims{EventType: "page_view", URLPath: "/a"}},
		{Time: t0.Add(time.Second), Visitor: "w", Session: "t", Dims: visit.Dims{EventType: "link_click", AskRating: -1}}}
	encoded, err := json.Marshal(visits)
	if err != nil {
		t.Fatal(err)
	}
	in := []Batch{{ID: "a", Org: "o", Site: `s"1`, Visits: visits, Encoded: encoded}, {ID: "b", Org: "o", Site: "s2", Visits: visits[1:]},
		{ID: "c", Org: "o", Site: "s3"}}
	data, err := pack(in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := unpack(data)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		in[i].Encoded = nil
	}
	if diff := cmp.Diff(got, in); diff != "" {
		t.Errorf("unpacked batches (-got +want):\n%s", diff)
	}
}

// TestPackBinaryBatches: batches that all came in binary form are kept in
// the record's binary form and read back as they were; with one batch in
// JSON among them the record is JSON, as every release reads it.
func TestPackBinaryBatches(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 123, time.UTC)
	visits := []visit.Visit{{Time: t0, Visitor: "v", Session: "s", Dims: visit.Dims{EventType: "page_view", URLPath: "/a", Authenticated: true}},
		{Time: t0.Add(time.Second), Visitor: "w", Session: "t", Dims: visit.Dims{EventType: "link_click", AskRating: -1}}}
	in := []Batch{{ID: "a", Org: "o", Site: `s"1`, Visits: visits, Binary: visitbin.Append(nil, visits)},
		{ID: "b", Org: "o", Site: "s2", Visits: visits[1:], Binary: visitbin.Append(nil, visits[1:])}}
	inflated := func(data []byte) []byte {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	data, err := pack(in)
	if err != nil {
		t.Fatal(err)
	}
	if b := inflated(data); b[0] == '[' {
		t.Fatalf("binary batches packed as JSON: %.40q", b)
	}
	got, err := unpack(data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, in); diff != "" {
		t.Errorf("unpacked batches (-got +want):\n%s", diff)
	}

	mixed := append(in[:1:1], Batch{ID: "c", Org: "o", Site: "s3", Visits: visits})
	if data, err = pack(mixed); err != nil {
		t.Fatal(err)
	}
	var old []struct {
		ID     string
		Visits []visit.Visit
	}
	if err := json.Unmarshal(inflated(data), &old); err != nil || len(old) != 2 || len(old[0].Visits) != 2 {
		t.Fatalf("a mixed record is not the JSON every release reads: %v %+v", err, old)
	}
	if got, err = unpack(data); err != nil {
		t.Fatal(err)
	}
	mixed[0].Binary = nil
	if diff := cmp.Diff(got, mixed); diff != "" {
		t.Errorf("unpacked mixed batches (-got +want):\n%s", diff)
	}
	if _, err := unpack(gzipped(t, []byte{0x0a, 0x05, 0x22, 0x03, 0x0a, 0xff})); err == nil {
		t.Error("a malformed binary record was read")
	}
}

func gzipped(t *testing.T, b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestPrepareSplitsBigRecords: batches whose chunk record would be over
// MaxRecordBytes compressed are prepared as several chunks, each under it,
// holding every batch once, also when a reader grouped them and dropped
// their visits (the halves' rows built from the visits decoded again).
func TestPrepareSplitsBigRecords(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 1, 31, 22, 10, 0, 0, time.UTC)
	var batches, dropped []Batch
	grouped := NewGrouping()
	for bi := range 80 {
		noise := make([]byte, 300<<10) // barely compressible
		for i := range noise {
			noise[i] = byte('a' + rng.IntN(26))
		}
		b := Batch{ID: fmt.Sprintf("b%d", bi), Org: "org", Site: "s",
			Visits: []visit.Visit{{Time: t0, Visitor: "v", Session: "s", Dims: visit.Dims{EventType: "page_view", URL: string(noise)}}}}
		batches = append(batches, b)
		b.Binary = visitbin.Append(nil, b.Visits)
		grouped.Add(&b)
		b.Visits = nil
		dropped = append(dropped, b)
	}
	t.Run("visits", func(t *testing.T) { checkSplit(t, append(batches, batches[0]), nil) }) // a repeated batch is taken once
	t.Run("grouped", func(t *testing.T) { checkSplit(t, append(dropped, dropped[0]), grouped) })
}

func checkSplit(t *testing.T, batches []Batch, grouped *Grouping) {
	p, err := NewApplier(nil, nil).Prepare(batches, grouped)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.parts) < 2 {
		t.Fatalf("%d chunk records, want at least 2", len(p.parts))
	}
	var ids []string
	for _, c := range p.parts {
		if len(c.rec.Data) > MaxRecordBytes {
			t.Errorf("record %s holds %d bytes, over %d", c.rec.ID, len(c.rec.Data), MaxRecordBytes)
		}
		ids = append(ids, c.rec.Batches...)
		events := int64(0)
		for _, d := range c.rows.Deltas {
			for _, r := range d.Rows {
				if d.Gran == Hourly {
					events += r.Events
				}
			}
		}
		if events != int64(len(c.rec.Batches)) {
			t.Errorf("record %s: rows count %d events, want %d", c.rec.ID, events, len(c.rec.Batches))
		}
	}
	if len(ids) != len(batches)-1 || ids[0] != "b0" || ids[len(ids)-1] != "b79" {
		t.Errorf("records hold %d batches (%v … %v), want the 80 once, in order", len(ids), ids[0], ids[len(ids)-1])
	}
}

// Grouping in parts and merging them gives the groups of one pass, in the
// same order, for any number of parts (more than the batches included).
func TestVisitGroupsInPartsAreOnePass(t *testing.T) {
	t.Parallel()
	batches := randomBatches(rand.New(rand.NewPCG(3, 4)), 7, 50)
	want := visitGroups(batches, 1)
	if len(want) < 10 {
		t.Fatalf("%d groups: the test does not cover merging", len(want))
	}
	for _, n := range []int{0, 2, 3, 7, 20} {
		got := visitGroups(batches, n)
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(visitGroup{})); diff != "" {
			t.Errorf("%d parts (-one pass +parts):\n%s", n, diff)
		}
	}
	if got := visitGroups(nil, 2); len(got) != 0 {
		t.Errorf("no batches: %d groups", len(got))
	}
}

// BenchmarkBuildChunk builds the rows of a chunk of 300 batches of the
// ingest shape (30,000 visits: a tenth of a 3 s chunk of the sustained
// flood at 100,000 events a second).
func BenchmarkBuildChunk(b *testing.B) {
	batches := ingestShape(300)
	at := time.Date(2026, 11, 30, 12, 1, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		BuildChunk("c", at, batches)
	}
}

// BenchmarkVisitGroups groups the visits of the same chunk.
func BenchmarkVisitGroups(b *testing.B) {
	batches := ingestShape(300)
	b.ReportAllocs()
	for b.Loop() {
		visitGroups(batches, builders)
	}
}

// preparedRows prepares batches (grouped: a reader's grouping of them, or
// nil) and returns each record's batches and rows, without the random ids.
func preparedRows(t *testing.T, batches []Batch, grouped *Grouping) ([]Batch, []Chunk) {
	t.Helper()
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	p, err := NewApplier(nil, func() time.Time { return at }).Prepare(batches, grouped)
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := p.Batches()
	if err != nil {
		t.Fatal(err)
	}
	for i := range recorded {
		recorded[i].Encoded, recorded[i].Binary = nil, nil
	}
	var rows []Chunk
	for _, c := range p.parts {
		c.rows.ID = ""
		rows = append(rows, c.rows)
	}
	return recorded, rows
}

// A reader groups each batch's visits as it takes them and drops them
// (lending their array to the next message): Prepare builds the same rows
// from the grouping, and the same rows without it (the visits decoded
// again from each batch's binary or JSON form), and the chunk record holds
// every visit either way.
func TestPrepareFromAGroupingOfDroppedVisits(t *testing.T) {
	t.Parallel()
	batches := randomBatches(rand.New(rand.NewPCG(5, 6)), 30, 100)
	batches = append(batches, batches[3]) // a repeated batch is taken once
	wantRecorded, wantRows := preparedRows(t, batches, nil)
	dropped := make([]Batch, len(batches))
	for i, b := range batches {
		if i%2 == 0 {
			b.Binary = visitbin.Append(nil, b.Visits)
		} else {
			b.Encoded, _ = json.Marshal(b.Visits)
		}
		dropped[i] = b
	}
	grouped := NewGrouping()
	for i := range dropped {
		b := &dropped[i]
		b.Visits = slices.Clone(b.Visits)
		grouped.Add(b)
		clear(b.Visits) // lent to the next message: the grouping keeps none of it
		b.Visits = nil
	}
	// The same inserts in the same order: the same sketches, byte for byte.
	stored := cmp.Transformer("stored", func(d Distinct) any { return []any{d.IDs, d.Sketch} })
	for name, g := range map[string]*Grouping{"grouped": grouped, "decoded again": nil} {
		recorded, rows := preparedRows(t, dropped, g)
		if diff := cmp.Diff(rows, wantRows, stored); diff != "" {
			t.Errorf("%s: rows (-got +want):\n%s", name, diff)
		}
		if diff := cmp.Diff(recorded, wantRecorded); diff != "" {
			t.Errorf("%s: recorded batches (-got +want):\n%s", name, diff)
		}
	}
	// A grouping of other batches is not used.
	fewer := dropped[:len(dropped)-2]
	_, got := preparedRows(t, fewer, grouped)
	if _, want := preparedRows(t, fewer, nil); !cmp.Equal(got, want, stored) {
		t.Error("the rows of fewer batches than grouped are the grouping's")
	}
}
