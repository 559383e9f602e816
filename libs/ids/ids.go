// Package ids makes opaque identifiers.
package ids

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"math/big"
	"math/bits"
	"sync"
	"time"
)

// alphabet is base62 in ASCII order, so that fixed-width encodings sort like
// the numbers they encode.
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// New returns an opaque id: 22 base62 characters of 6 bytes of millisecond
// time followed by 10 random bytes, so that ids sort by creation (lists page
// by id) and cannot be guessed. Within one process they are strictly
// increasing: an id made in the same millisecond as the previous one (or
// after the clock stepped back) is the previous one plus a random step.
func New() string { return last.next(time.Now()) }

// last is the process's previous id, as 16 bytes.
var last monotonic

type monotonic struct {
	mu   sync.Mutex
	prev [16]byte
}

func (m *monotonic) next(t time.Time) string {
	b := newAt(t)
	m.mu.Lock()
	if bytes.Compare(b[:], m.prev[:]) <= 0 {
		b = m.prev
		var step [4]byte
		_, _ = rand.Read(step[:])
		add(b[:], uint64(binary.BigEndian.Uint32(step[:]))+1)
	}
	m.prev = b
	m.mu.Unlock()
	return Base62(b[:], 22)
}

// add adds n to the big-endian number b (an id whose random part
// overflows carries into its millisecond).
func add(b []byte, n uint64) {
	for i := len(b) - 1; i >= 0 && n > 0; i-- {
		sum := uint64(b[i]) + n&0xff
		b[i] = byte(sum)
		n = n>>8 + sum>>8
	}
}

func newAt(t time.Time) [16]byte {
	var b [16]byte
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(t.UnixMilli()))
	copy(b[:6], ts[2:])
	_, _ = rand.Read(b[6:])
	return b
}

// Random returns n random bytes in base62, width characters wide.
func Random(n, width int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return Base62(b, width)
}

// Base62 encodes b in width base62 characters.
func Base62(b []byte, width int) string {
	if len(b) <= 16 {
		return base62Small(b, width)
	}
	n := new(big.Int).SetBytes(b)
	out := make([]byte, width)
	base := big.NewInt(62)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, base, mod)
		out[i] = alphabet[mod.Int64()]
	}
	return string(out)
}

// base62Small is Base62 of at most 16 bytes, as a 128-bit number divided
// in two words (every id New makes; big.Int costs several times more).
func base62Small(b []byte, width int) string {
	var buf [16]byte
	copy(buf[16-len(b):], b)
	hi, lo := binary.BigEndian.Uint64(buf[:8]), binary.BigEndian.Uint64(buf[8:])
	out := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		var r uint64
		hi, r = bits.Div64(0, hi, 62)
		lo, r = bits.Div64(r, lo, 62)
		out[i] = alphabet[r]
	}
	return string(out)
}
