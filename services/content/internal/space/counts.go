package space

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/hashicorp/golang-lru/v2/expirable"
)

// Bounds of the counters' cache.
const (
	// countsTTL is how long a space's counters are reused: the most a
	// comment or change request written through another instance of
	// content takes to show in them.
	countsTTL = time.Second
	// countsEntries bounds how many spaces' counters are kept.
	countsEntries = 10_000
)

// Counters caches spaces' counters (open comments, change requests by
// status), each counted by two aggregations otherwise: every GET of a space
// and every page of a list would run them. A comment or change request
// written through this instance drops every cached counter at once
// (Changed: a new generation), one written through another instance
// shows within countsTTL. Counters say nothing about who may read what:
// access is decided on the space as read for the request.
type Counters struct {
	gen atomic.Uint64
	lru *expirable.LRU[string, generationCounts]
}

type generationCounts struct {
	gen uint64
	n   Counts
}

// NewCounters returns an empty cache, for Deps.Counts.
func NewCounters() *Counters {
	return &Counters{lru: expirable.NewLRU[string, generationCounts](countsEntries, nil, countsTTL)}
}

// Changed says that a comment or change request was written: the counters
// cached before it are not used again. The stores of comments and change
// requests call it after each write.
func (c *Counters) Changed() { c.gen.Add(1) }

// cachedCounts returns the spaces' counters: those cached in the current
// generation, and the others read in one query and cached. The generation
// is read before the query, so counters read while a write lands are
// cached under the generation that write ends.
func (s *Service) cachedCounts(ctx context.Context, ids []string) (map[string]Counts, error) {
	gen := s.counts.gen.Load()
	out := make(map[string]Counts, len(ids))
	var missing []string
	for _, id := range ids {
		if c, ok := s.counts.lru.Get(id); ok && c.gen == gen {
			out[id] = c.n
			continue
		}
		missing = append(missing, id)
	}
	if len(missing) == 0 {
		return out, nil
	}
	read, err := s.store.Counts(ctx, missing)
	if err != nil {
		return nil, err
	}
	for _, id := range missing {
		out[id] = read[id]
		s.counts.lru.Add(id, generationCounts{gen: gen, n: read[id]})
	}
	return out, nil
}
