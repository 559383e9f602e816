// Package ids makes opaque identifiers.
package ids

import (
	"crypto/rand"
	"encoding/binary"
	"math/big"
	"math/bits"
	"time"
)

// alphabet is base62 in ASCII order, so that fixed-width encodings sort like
// the numbers they encode.
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// New returns an opaque id: 22 base62 characters of 6 bytes of millisecond
// time followed by 10 random bytes, so that ids sort by creation (lists page
// by id) and cannot be guessed.
func New() string { return newAt(time.Now()) }

func newAt(t time.Time) string {
	var b [16]byte
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(t.UnixMilli()))
	copy(b[:6], ts[2:])
	_, _ = rand.Read(b[6:])
	return Base62(b[:], 22)
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
