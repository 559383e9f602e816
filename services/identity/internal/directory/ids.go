package directory

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/big"
	"time"
)

// alphabet is base62 in ASCII order, so that fixed-width encodings sort like
// the numbers they encode.
const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// NewID returns an opaque id: 22 base62 characters of 6 bytes of millisecond
// time followed by 10 random bytes, so that ids sort by creation (lists page
// by id) and cannot be guessed.
func NewID() string {
	var b [16]byte
	var ts [8]byte
	binary.BigEndian.PutUint64(ts[:], uint64(time.Now().UnixMilli()))
	copy(b[:6], ts[2:])
	_, _ = rand.Read(b[6:])
	return base62(b[:], 22)
}

func base62(b []byte, width int) string {
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

// TokenPrefix starts every API token, so that leaked tokens are recognisable.
const TokenPrefix = "dp_"

// NewRawToken returns a new API token: the prefix and 32 random bytes in base62.
func NewRawToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return TokenPrefix + base62(b[:], 43)
}

// HashToken returns the stored form of a raw token: its SHA-256, hex.
func HashToken(raw string) string {
	sum := sha256.Sum256([]byte(raw))
	return hex.EncodeToString(sum[:])
}
