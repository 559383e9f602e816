package search

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"sync"
)

// Bounds of the results kept (Service.results): how many result pages, in
// how many bytes, and the largest page kept (a thirty-second of them). A result page is kept under everything it was made from
// (resultKey), so it needs no expiry: a write of a space's entries gives
// them a new generation, and the next search's key is another.
const (
	resultEntries  = 4096
	resultBytes    = 32 << 20
	resultMaxBytes = resultBytes / 32
)

// kept is a result page kept, with its JSON encoding once a caller asked
// for it (SearchJSON).
type kept struct {
	res  Result
	once sync.Once
	enc  Encoded
	err  error
}

// Encoded is a result page encoded as JSON, with the SHA-256 of its
// encoding (an HTTP answer's ETag, httpx.KeptJSON).
type Encoded struct {
	JSON []byte
	Sum  [sha256.Size]byte
}

// encoded returns k's result encoded, made by the first caller.
func (k *kept) encoded() (Encoded, error) {
	k.once.Do(func() {
		k.enc.JSON, k.err = json.Marshal(k.res)
		k.enc.Sum = sha256.Sum256(k.enc.JSON)
	})
	return k.enc, k.err
}

// resultKey names a search's result page by what it is made from: the
// organization, the query, the page asked for (limit and cursor), and each
// readable space with its title and the generation of its entries read.
// It is a SHA-256 of them, so that two callers' keys are the same only
// when all of these are: a caller never gets a result made for another
// set of readable spaces.
type resultKey [sha256.Size]byte

// keyOf returns the key of a search of query in org over spaces (sorted:
// their ids; titles: their titles by id), limit spaces after the cursor,
// read through r.
func keyOf(org, query string, limit int, after *Cursor, sorted []string, titles map[string]string, r Reader) resultKey {
	h := sha256.New()
	field(h, org)
	field(h, query)
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(limit))
	_, _ = h.Write(n[:])
	if after != nil {
		field(h, "after")
		binary.LittleEndian.PutUint64(n[:], uint64(after.Matched))
		_, _ = h.Write(n[:])
		binary.LittleEndian.PutUint64(n[:], math.Float64bits(after.Score))
		_, _ = h.Write(n[:])
		field(h, after.Space)
	}
	for _, id := range sorted {
		field(h, id)
		field(h, titles[id])
		field(h, r.Generation(id))
	}
	var k resultKey
	h.Sum(k[:0])
	return k
}

// field writes s to h with its length first, so that no two sequences of
// fields write the same bytes.
func field(h io.Writer, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	_, _ = h.Write(n[:])
	_, _ = h.Write([]byte(s))
}

// resultSize estimates the bytes a result page holds.
func resultSize(res Result) int64 {
	size := int64(256)
	if res.Next != nil {
		size += int64(len(res.Next.Page))
	}
	for _, it := range res.Items {
		size += int64(128 + len(it.ID) + len(it.Title))
		for _, p := range it.Pages {
			size += int64(256 + len(p.ID) + len(p.Title) + len(p.Description) + len(p.Path) + len(p.URLs.App))
			for _, a := range p.Ancestors {
				size += int64(16 + len(a.Title))
			}
			for _, s := range p.Sections {
				size += int64(128 + len(s.ID) + len(s.Title) + len(s.Path) + len(s.Body) + len(s.URLs.App))
			}
		}
	}
	return size
}
