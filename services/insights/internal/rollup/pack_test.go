package rollup

import (
	"bufio"
	"bytes"
	stdgzip "compress/gzip"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/docspub/platform/services/insights/internal/visitbin"
)

// TestPackIsStandardGzip: a chunk record is gzip as the standard library
// reads it (releases before klauspost/compress packed with it and read
// with it), holding the batches' binary form byte for byte.
func TestPackIsStandardGzip(t *testing.T) {
	t.Parallel()
	batches := ingestShape(20)
	data, err := pack(batches)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := stdgzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	w := bufio.NewWriter(&want)
	packBinary(w, batches)
	_ = w.Flush()
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the record inflates to %d bytes, not the %d of the batches' binary form", len(got), want.Len())
	}
	back, err := unpack(data)
	if err != nil || len(back) != len(batches) || back[7].ID != batches[7].ID || len(back[7].Visits) != 100 {
		t.Fatalf("unpack: %d batches, %v", len(back), err)
	}
}

// BenchmarkPack packs a chunk record of 100 batches shaped like the ingest
// benchmark's (deployments/local BenchmarkInsightsIngest's sustained
// shape: 100 distinct events a batch, a visitor for 4, a session for 2,
// 25 paths, 3 browsers), in the binary form the log hands them in, and
// reads it back.
func BenchmarkPack(b *testing.B) {
	batches := ingestShape(100)
	b.Run("pack", func(b *testing.B) {
		for b.Loop() {
			if _, err := pack(batches); err != nil {
				b.Fatal(err)
			}
		}
	})
	data, err := pack(batches)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unpack", func(b *testing.B) {
		for b.Loop() {
			if _, err := unpack(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	raw := 0
	for _, bt := range batches {
		raw += len(bt.Binary)
	}
	b.Logf("%d bytes of visits packed into %d", raw, len(data))
}

// ingestShape is n batches of the ingest benchmark's sustained shape, in
// binary form.
func ingestShape(n int) []Batch {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	batches := make([]Batch, n)
	for bi := range batches {
		visits := make([]visit.Visit, 100)
		for i := range visits {
			seq := bi*100 + i
			visits[i] = visit.Visit{Time: t0.Add(time.Duration(seq) * time.Microsecond),
				Visitor: fmt.Sprintf("v%d", seq/4), Session: fmt.Sprintf("s%d", seq/2),
				Dims: visit.Dims{EventType: "page_view", URLPath: fmt.Sprintf("/guides/%d", seq%25),
					URL:     fmt.Sprintf("https://docs.example.com/guides/%d", seq%25),
					Browser: []string{"chrome", "firefox", "safari"}[seq%3], OS: "linux", Device: "desktop",
					Referrer: "https://www.example.com/blog", UTMSource: "news", Language: "en"}}
		}
		batches[bi] = Batch{ID: fmt.Sprintf("b%d", bi), Org: "org", Site: "site", Visits: visits, Binary: visitbin.Append(nil, visits)}
	}
	return batches
}
