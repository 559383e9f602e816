package space

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/sizedcache"
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
// written through this instance drops its space's cached counters at once
// (Changed: the space's generation moves on, libs/generations; no other
// space's), one written through another instance shows within countsTTL.
// Counters say nothing about who may read what: access is decided on the
// space as read for the request.
type Counters struct {
	gens generations.Counters
	lru  *sizedcache.Cache[string, generationCounts]
}

type generationCounts struct {
	gen uint64
	n   Counts
}

// NewCounters returns an empty cache, for Deps.Counts.
func NewCounters() *Counters {
	return &Counters{lru: sizedcache.New[string, generationCounts](countsEntries, 0).Expire(countsTTL, nil).Observe("content.counters")}
}

// Changed says that comments or change requests of spaces were written:
// their counters cached before are not used again. The stores of comments
// and change requests call it after each write, with the spaces of the
// events it recorded ("": every space's counters).
func (c *Counters) Changed(spaces ...string) {
	for _, id := range spaces {
		if id == "" {
			c.gens.BumpAll()
			continue
		}
		c.gens.Bump(id)
	}
}

// cachedCounts returns the spaces' counters: those cached in their
// space's current generation, and the others read in one query and
// cached. Each generation is read before the query, so counters read
// while a write lands are cached under a generation that write ends.
func (s *Service) cachedCounts(ctx context.Context, ids []string) (map[string]Counts, error) {
	out := make(map[string]Counts, len(ids))
	var missing []string
	gens := make(map[string]uint64, len(ids))
	for _, id := range ids {
		gen := s.counts.gens.Of(id)
		if c, ok := s.counts.lru.Get(id); ok && c.gen == gen {
			out[id] = c.n
			continue
		}
		missing = append(missing, id)
		gens[id] = gen
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
		s.counts.lru.Set(id, generationCounts{gen: gens[id], n: read[id]}, 0)
	}
	return out, nil
}
