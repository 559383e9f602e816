// Package generations tells a cached entry whether a write changed what it
// was read from since its read began, per key (a document, an
// organization, a tag), so that a write drops only the entries of its own
// key: one tenant's writes never empty another tenant's caches.
//
// Keys share a fixed number of counters (Buckets), chosen by a hash of
// the key: bumping a key costs the same however many entries there are,
// and drops the entries of the keys of its bucket alone (another key
// shares it one time in Buckets). Nothing is ever scanned or removed: an
// entry whose generation moved on is simply not served, and its cache
// drops it in time as it would any entry not used.
//
// The rule every user keeps: read the generation (Of, or the mark of Now)
// BEFORE the read of what the entry keeps, and bump AFTER the write is
// done. Then a read that began before a write never serves what it read
// once the write's bump is done, and a read that began after the bump
// began sees the write.
package generations

import "sync/atomic"

// Buckets is how many counters keys share.
const Buckets = 4096

// Counters are the generations of keys; the zero value is ready, and it is
// safe for concurrent use. A generation is the sequence number of the last
// bump of the key's bucket or of all keys, whichever came later: it only
// grows, and it grows at every bump that concerns the key.
type Counters struct {
	// last numbers the bumps.
	last atomic.Uint64
	// all is the number of the last BumpAll.
	all     atomic.Uint64
	buckets [Buckets]atomic.Uint64
}

// Of is key's generation now: an entry read after this call is current as
// long as Of(key) returns the same.
func (c *Counters) Of(key string) uint64 {
	return max(c.buckets[bucket(key)].Load(), c.all.Load())
}

// Now is a mark to take before a read whose keys are known only once it
// is done (an answer's tags, a site found by its hostname): Stamp then
// tells whether one of them was bumped after the mark.
func (c *Counters) Now() uint64 { return c.last.Load() }

// Bump drops what was read of key before this call: the entries of key,
// and of the keys that share its bucket, are no longer current. Call it
// once the write is done.
func (c *Counters) Bump(key string) {
	raise(&c.buckets[bucket(key)], c.last.Add(1))
}

// BumpAll drops what was read of every key before this call.
func (c *Counters) BumpAll() { raise(&c.all, c.last.Add(1)) }

// raise sets v to n unless it is larger already: of two bumps of a bucket
// at once, the later number stays.
func raise(v *atomic.Uint64, n uint64) {
	for {
		cur := v.Load()
		if cur >= n || v.CompareAndSwap(cur, n) {
			return
		}
	}
}

// Stamp is the generations of an entry's keys, for Current.
type Stamp struct {
	buckets []uint16
	// all is BumpAll's number, sum the sum of the keys' generations.
	all, sum uint64
}

// Stamp is the stamp of an entry of keys whose read began at mark (Now),
// and false when one of the keys was bumped since (the entry may predate
// the write: serve it, but do not keep it).
func (c *Counters) Stamp(mark uint64, keys ...string) (Stamp, bool) {
	all := c.all.Load()
	if all > mark {
		return Stamp{}, false
	}
	s := Stamp{buckets: make([]uint16, len(keys)), all: all}
	for i, k := range keys {
		s.buckets[i] = bucket(k)
		g := max(c.buckets[s.buckets[i]].Load(), all)
		if g > mark {
			return Stamp{}, false
		}
		s.sum += g
	}
	return s, true
}

// Current tells whether none of a stamp's keys was bumped since it was
// made. (Generations only grow: their sum is the same only when each is.)
func (c *Counters) Current(s Stamp) bool {
	all := c.all.Load()
	if all != s.all {
		return false
	}
	var sum uint64
	for _, b := range s.buckets {
		sum += max(c.buckets[b].Load(), all)
	}
	return sum == s.sum
}

// bucket is key's counter: FNV-1a, the same in every process and run, so
// that which keys share a bucket does not change between runs.
func bucket(key string) uint16 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(key); i++ {
		h ^= uint64(key[i])
		h *= 1099511628211
	}
	return uint16((h ^ h>>32) % Buckets)
}
