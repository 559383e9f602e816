// Package rollup keeps insights' pre-aggregated buckets and answers queries
// from them. A bucket holds, for one site and one hour (or one day, or one
// month), one row per distinct combination of dimension values seen
// (visit.Dims), with its event count and its distinct visitors and sessions
// (exact sets up to a bound, HyperLogLog sketches beyond, mergeable across
// rows and buckets). A bucket with many rows is split into shards that each
// stay far below MongoDB's 16 MiB document limit. A shard's id is made of
// its site, granularity, start and number, so a query computes the ids of
// the buckets its range covers and reads them by id (coarsest first: months,
// then days, hours at the edges), never by scanning. Visits arrive in chunks
// of log batches; Applier applies a chunk to every bucket it touches exactly
// once, even when the chunk is replayed after a crash.
package rollup

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/docspub/platform/services/insights/internal/visit"
)

// Gran is a granularity of buckets: the time a bucket covers and how its
// rows split it, and for a marginal (marginal.go) the one dimension it
// keeps. It is stored in buckets' ids and documents.
type Gran string

// Granularities of buckets of full rows (every dimension); the marginals'
// are made by Monthly, MonthByDay and DayByHour.
const (
	Hourly Gran = "h" // a bucket per hour
	Daily  Gran = "d" // a bucket per day
)

// Limits of buckets and chunks.
const (
	// MaxShardBytes bounds the estimated size of one bucket shard (MongoDB
	// refuses documents over 16 MiB).
	MaxShardBytes = 4 << 20
	// MaxShardRows bounds the rows of one bucket shard.
	MaxShardRows = 2000
	// MaxChunkBytes bounds the log batches (encoded) read as one chunk: a
	// bigger chunk rewrites each bucket it touches once for more visits.
	MaxChunkBytes = 64 << 20
	// MaxRecordBytes bounds a chunk record's compressed batches (MongoDB
	// refuses documents over 16 MiB): a chunk whose batches compress to more
	// is applied as two chunks, each half of its batches.
	MaxRecordBytes = 12 << 20
	// recentChunks is how many applied chunk ids a shard remembers.
	recentChunks = 64
)

// Bucket is one shard of the rollup of a site for one hour or one day.
type Bucket struct {
	ID    string    `bson:"_id"`
	Org   string    `bson:"org"`
	Site  string    `bson:"site"`
	Gran  Gran      `bson:"gran"`
	Start time.Time `bson:"start"`
	Shard int       `bson:"shard"`
	// Count is, on shard 0 of a bucket of several shards, one more than
	// the highest shard number (readers read shard 0, then shards 1 to
	// Count-1 by id).
	Count   int   `bson:"count,omitempty"`
	Version int64 `bson:"version"`
	// Chunks are the ids of the last chunks applied to the shard: a chunk
	// applied again is skipped.
	Chunks []string `bson:"chunks"`
	Rows   []Row    `bson:"rows"`
}

// Key names a bucket (all its shards) of a site.
type Key struct {
	Gran  Gran
	Start time.Time
}

// Row is one combination of dimension values in a bucket.
type Row struct {
	Key  string     `bson:"k"`
	Dims visit.Dims `bson:"d"`
	// Slot is, in a bucket by day (perDay: a month) or by hour (perHour:
	// a day), the row's day of the month or hour of the day, from 0.
	Slot     int      `bson:"slot,omitempty"`
	Events   int64    `bson:"n"`
	Visitors Distinct `bson:"v"`
	Sessions Distinct `bson:"s"`
}

// BucketID is the id of a bucket shard.
func BucketID(site string, gran Gran, start time.Time, shard int) string {
	return site + ":" + string(gran) + ":" + start.UTC().Format("2006010215") + ":" + itoa(shard)
}

func itoa(n int) string { return strconv.Itoa(n) }

// Truncate returns the start of the hour, day or month of t (UTC), as
// gran's buckets start.
func Truncate(t time.Time, gran Gran) time.Time {
	t = t.UTC()
	switch {
	case gran.monthly():
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case gran == Daily || gran.perHour():
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	}
	return t.Truncate(time.Hour)
}

// rowKey identifies a combination of dimension values.
func rowKey(d *visit.Dims) string {
	b, _ := json.Marshal(d)
	return itoaU(xxhash.Sum64(b))
}

// inSlot is the key of a row in a slot (buckets by day or by hour).
func inSlot(key string, slot int) string {
	if slot == 0 {
		return key
	}
	return key + "." + strconv.Itoa(slot)
}

// rowStart is the start of the time of row r of bucket b: its slot's
// day or hour, else the bucket's start.
func rowStart(b *Bucket, r *Row) time.Time {
	switch {
	case r.Slot == 0:
		return b.Start
	case b.Gran.perHour():
		return b.Start.Add(time.Duration(r.Slot) * time.Hour)
	}
	return b.Start.AddDate(0, 0, r.Slot)
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
// It hashes site, a zero byte and id, without putting them together.
func hashID(site, id string) uint64 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.WriteString(site)
	_, _ = d.Write([]byte{0})
	_, _ = d.WriteString(id)
	return d.Sum64()
}

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
