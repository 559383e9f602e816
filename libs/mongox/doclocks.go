package mongox

import (
	"fmt"
	"hash/maphash"
	"sync"
)

// DocLocks serialises updates of one document within a process.
//
// FerretDB v1, the embedded MongoDB of tests and local runs, applies an update
// by reading the document, applying the operators in Go and writing the whole
// document back, without a lock between the read and the write: two
// concurrent updates of one document can lose one of them (seen: the outbox
// relay's $pull writing back a copy from before a PATCH). MongoDB itself is
// atomic per document and does not need this; on it the lock only costs an
// uncontended mutex. Every writer of a service's documents (its store and its
// outbox relay) shares one DocLocks.
type DocLocks struct {
	seed    maphash.Seed
	stripes [256]sync.Mutex
}

// NewDocLocks returns a set of striped locks.
func NewDocLocks() *DocLocks { return &DocLocks{seed: maphash.MakeSeed()} }

// Lock locks the document id of collection and returns the unlock function.
// A nil DocLocks locks nothing.
func (l *DocLocks) Lock(collection string, id any) (unlock func()) {
	if l == nil {
		return func() {}
	}
	var h maphash.Hash
	h.SetSeed(l.seed)
	h.WriteString(collection)
	h.WriteByte(0)
	switch v := id.(type) {
	case string:
		h.WriteString(v)
	default:
		h.WriteString(fmtID(v))
	}
	m := &l.stripes[h.Sum64()%uint64(len(l.stripes))]
	m.Lock()
	return m.Unlock
}

func fmtID(v any) string {
	if s, ok := v.(interface{ String() string }); ok {
		return s.String()
	}
	return fmt.Sprint(v)
}
