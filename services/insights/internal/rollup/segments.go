package rollup

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Segment limits.
const (
	// SegmentSpan is how far back visitor segments look.
	SegmentSpan = 365 * 24 * time.Hour
	// MaxSegments bounds the segments of one answer.
	MaxSegments = 1000
)

// Segment is a group of visitors with the same auth claims
// (SiteInsightsVisitorSegment).
type Segment struct {
	Title    string         `json:"title"`
	Claims   map[string]any `json:"claims"`
	Events   int64          `json:"events"`
	Visitors uint64         `json:"visitors"`
	Sessions uint64         `json:"sessions"`
}

// Segments groups the authenticated visitors of site over the last
// SegmentSpan by their claims, most visitors first.
func Segments(ctx context.Context, r Reader, site string, now time.Time) ([]Segment, error) {
	buckets, err := read(ctx, r, site, now.Add(-SegmentSpan), now, false, Daily, true)
	if err != nil {
		return nil, err
	}
	type acc struct {
		claims             string
		events             int64
		visitors, sessions Counter
	}
	by := map[string]*acc{}
	for bi := range buckets {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for ri := range buckets[bi].Rows {
			row := &buckets[bi].Rows[ri]
			if row.Dims.Claims == "" {
				continue
			}
			a := by[row.Dims.Claims]
			if a == nil {
				a = &acc{claims: row.Dims.Claims}
				by[row.Dims.Claims] = a
			}
			a.events += row.Events
			a.visitors.Merge(&row.Visitors)
			a.sessions.Merge(&row.Sessions)
		}
	}
	out := make([]Segment, 0, len(by))
	for _, a := range by {
		var claims map[string]any
		_ = json.Unmarshal([]byte(a.claims), &claims)
		out = append(out, Segment{Title: title(claims), Claims: claims, Events: a.events,
			Visitors: a.visitors.Count(), Sessions: a.sessions.Count()})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Visitors != out[j].Visitors {
			return out[i].Visitors > out[j].Visitors
		}
		if out[i].Events != out[j].Events {
			return out[i].Events > out[j].Events
		}
		return out[i].Title < out[j].Title
	})
	if len(out) > MaxSegments {
		out = out[:MaxSegments]
	}
	return out, nil
}

// title renders claims as "name: value, …" in name order.
func title(claims map[string]any) string {
	keys := make([]string, 0, len(claims))
	for k := range claims {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		v := claims[k]
		s, ok := v.(string)
		if !ok {
			b, _ := json.Marshal(v)
			s = string(b)
		}
		parts[i] = fmt.Sprintf("%s: %s", k, s)
	}
	return strings.Join(parts, ", ")
}
