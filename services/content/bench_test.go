package content_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkSpaceListKeyset lists an organization's 10,000 spaces 200 at a
// time and compares fetching the first page with fetching the 50th (the
// last) through its keyset cursor. It reports the median of each and their
// ratio; with keyset cursors the ratio stays near 1, where skip/offset
// paging would grow with the page's depth.
func BenchmarkSpaceListKeyset(b *testing.B) {
	spaces, limit, page := benchSize()
	ctx := context.Background()
	cfg := content.Config{Base: libservice.Base{MongoURI: mongotest.URI(b), Kafka: kafkax.Config{Brokers: []string{"127.0.0.1:1"}}, InternalTokenSecret: secret, LogLevel: "error"},
		URLs: libservice.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: mongotest.DatabaseName(), PurgeInterval: time.Hour, BlobURL: blobtest.Dir(b)}
	app, err := content.New(ctx, cfg, logx.Discard(), content.WithMigrations(false))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = app.Database().Drop(context.Background())
		_ = app.Close(context.Background())
	})
	// Seed straight into the store's collection: 10,000 spaces of one organization.
	docs := make([]any, 0, spaces)
	base := time.Now().Add(-time.Hour)
	for i := range spaces {
		at := base.Add(time.Duration(i) * time.Millisecond)
		docs = append(docs, bson.M{"_id": ids.New(), "organization": "org1", "title": fmt.Sprintf("Space %d", i),
			"emoji": "", "visibility": "private", "editMode": "live", "parent": "", "position": at.UnixMilli() << 20,
			"defaultLevel": "inherit", "revision": ids.New(), "createdAt": at, "updatedAt": at, "deleted": false})
	}
	for chunk := range slices.Chunk(docs, 1000) {
		if _, err := app.Database().Collection("spaces").InsertMany(ctx, chunk); err != nil {
			b.Fatal(err)
		}
	}
	signer, err := internaltoken.NewSigner("gateway", secret, time.Hour)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := signer.Mint("content", internaltoken.Principal{UserID: "u1", Roles: map[string]string{"org1": "read"}})
	if err != nil {
		b.Fatal(err)
	}
	get := func(cursor string) (string, int) {
		path := fmt.Sprintf("/v1/orgs/org1/spaces?limit=%d", limit)
		if cursor != "" {
			path += "&page=" + cursor
		}
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set(internaltoken.Header, tok)
		w := httptest.NewRecorder()
		app.Handler().ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatalf("GET %s: %d %s", path, w.Code, w.Body)
		}
		var l struct {
			Next *struct {
				Page string `json:"page"`
			} `json:"next"`
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &l); err != nil {
			b.Fatal(err)
		}
		if l.Next == nil {
			return "", len(l.Items)
		}
		return l.Next.Page, len(l.Items)
	}
	// Walk to the cursor of the 50th page once.
	cursor := ""
	for range page - 1 {
		cursor, _ = get(cursor)
	}
	if next, n := get(cursor); n != limit || next != "" {
		b.Fatalf("page %d has %d items and next %q; want the last %d", page, n, next, limit)
	}

	var first, deep []time.Duration
	for b.Loop() { // setup above runs once: b.Loop keeps the function from being called again
		t0 := time.Now()
		get("")
		first = append(first, time.Since(t0))
		t0 = time.Now()
		get(cursor)
		deep = append(deep, time.Since(t0))
	}
	m1, m50 := median(first), median(deep)
	b.ReportMetric(float64(m1.Microseconds())/1000, "ms-page1-p50")
	b.ReportMetric(float64(m50.Microseconds())/1000, "ms-page50-p50")
	b.ReportMetric(float64(m50)/float64(m1), "ratio-page50/page1")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchSize is the benchmark's size: 10,000 spaces in pages of 200 (the 50th
// page is the last); BENCH_SPACES lowers it for a quick look.
func benchSize() (spaces, limit, page int) {
	if n, err := strconv.Atoi(os.Getenv("BENCH_SPACES")); err == nil && n >= 200 {
		return n, n / 50, 50
	}
	return 10000, 200, 50
}
