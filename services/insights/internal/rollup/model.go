// Package rollup keeps insights' pre-aggregated buckets and answers queries
// from them. A bucket holds, for one site and one hour (or one day), one row
// per distinct combination of dimension values seen (visit.Dims), with its
// event count and its distinct visitors and sessions (exact sets up to a
// bound, HyperLogLog sketches beyond, mergeable across rows and buckets).
// A site-hour with many rows is split into shards that each stay far below
// MongoDB's 16 MiB document limit. Visits arrive in chunks of log batches;
// Applier applies a chunk to every bucket it touches exactly once, even
// when the chunk is replayed after a crash.
package rollup

import (
	"encoding/json"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/docspub/platform/services/insights/internal/visit"
)

// Granularities of buckets.
const (
	Hourly = "h"
	Daily  = "d"
)

// Limits of buckets and chunks.
const (
	// MaxShardBytes bounds the estimated size of one bucket shard (MongoDB
	// refuses documents over 16 MiB).
	MaxShardBytes = 4 << 20
	// MaxShardRows bounds the rows of one bucket shard.
	MaxShardRows = 2000
	// MaxChunkBytes bounds the log batches (encoded) applied as one chunk,
	// and so the size of the chunk's record.
	MaxChunkBytes = 2 << 20
	// recentChunks is how many applied chunk ids a shard remembers.
	recentChunks = 64
)

// Bucket is one shard of the rollup of a site for one hour or one day.
type Bucket struct {
	ID    string    `bson:"_id"`
	Org   string    `bson:"org"`
	Site  string    `bson:"site"`
	Gran  string    `bson:"gran"`
	Start time.Time `bson:"start"`
	Shard int       `bson:"shard"`
	// Count is, on shard 0, how many shards the bucket has (readers read
	// shard 0, then the others).
	Count   int   `bson:"count,omitempty"`
	Version int64 `bson:"version"`
	// Chunks are the ids of the last chunks applied to the shard: a chunk
	// applied again is skipped.
	Chunks []string `bson:"chunks"`
	Rows   []Row    `bson:"rows"`
}

// Row is one combination of dimension values in a bucket.
type Row struct {
	Key      string     `bson:"k"`
	Dims     visit.Dims `bson:"d"`
	Events   int64      `bson:"n"`
	Visitors Distinct   `bson:"v"`
	Sessions Distinct   `bson:"s"`
}

// BucketID is the id of a bucket shard.
func BucketID(site, gran string, start time.Time, shard int) string {
	return site + ":" + gran + ":" + start.UTC().Format("2006010215") + ":" + itoa(shard)
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// Truncate returns the start of the hour or day of t (UTC).
func Truncate(t time.Time, gran string) time.Time {
	t = t.UTC()
	if isDaily(gran) {
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// rowKey identifies a combination of dimension values.
func rowKey(d *visit.Dims) string {
	b, _ := json.Marshal(d)
	return itoaU(xxhash.Sum64(b))
}

func itoaU(u uint64) string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [13]byte
	i := len(b)
	for {
		i--
		b[i] = digits[u%36]
		u /= 36
		if u == 0 {
			break
		}
	}
	return string(b[i:])
}

// hashID hashes a visitor or session id for the distinct counts; the ids
// themselves are not stored.
func hashID(site, id string) uint64 { return xxhash.Sum64String(site + "\x00" + id) }

// size estimates a row's stored size in bytes.
func (r *Row) size() int {
	d := &r.Dims
	n := 96 + len(r.Key) + len(d.EventType) + len(d.URL) + len(d.URLPath) + len(d.SiteSection) + len(d.SiteSpace) +
		len(d.SiteShareKey) + len(d.DisplayContext) + len(d.Space) + len(d.Page) + len(d.GeoCountry) + len(d.Device) +
		len(d.Browser) + len(d.OS) + len(d.Bot) + len(d.Language) + len(d.Referrer) + len(d.ReferrerDomain) +
		len(d.UTMSource) + len(d.UTMMedium) + len(d.UTMCampaign) + len(d.UTMTerm) + len(d.UTMContent) + len(d.Claims) +
		len(d.LinkTarget) + len(d.LinkKind) + len(d.LinkDomain) + len(d.LinkPosition) + len(d.APIPath) + len(d.APIMethod) +
		len(d.LLMSVariant) + len(d.PageNotFound) + len(d.MarkdownSource) + len(d.SearchQuery) + len(d.SearchRecord) +
		len(d.Feedback) + len(d.FeedbackText) + len(d.AdDomain) + len(d.AdPlacement) + len(d.Trademark) + 30*8
	return n + r.Visitors.size() + r.Sessions.size()
}
