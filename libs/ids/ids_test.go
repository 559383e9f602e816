package ids

import (
	"crypto/rand"
	"math/big"
	"regexp"
	"testing"
	"time"
)

func TestNewIsOpaqueUniqueAndSortsByCreation(t *testing.T) {
	re := regexp.MustCompile(`^[0-9A-Za-z]{22}$`)
	seen := map[string]bool{}
	start := time.Now()
	prev := ""
	for i := range 1000 {
		b := newAt(start.Add(time.Duration(i) * time.Millisecond))
		id := Base62(b[:], 22)
		if !re.MatchString(id) {
			t.Fatalf("id %q is not 22 base62 characters", id)
		}
		if seen[id] {
			t.Fatalf("id %q repeated", id)
		}
		seen[id] = true
		if id <= prev {
			t.Fatalf("id %q of a later millisecond sorts before %q", id, prev)
		}
		prev = id
	}
}

func TestBase62(t *testing.T) {
	if got := Base62([]byte{0, 61}, 3); got != "00z" {
		t.Errorf("Base62(61) = %q, want 00z", got)
	}
	if got := len(Random(32, 43)); got != 43 {
		t.Errorf("len(Random) = %d, want 43", got)
	}
}

// TestBase62SmallMatchesBigInt: the two-word encoding of up to 16 bytes is
// the big.Int one, digit for digit.
func TestBase62SmallMatchesBigInt(t *testing.T) {
	for i := range 2000 {
		b := make([]byte, 1+i%16)
		_, _ = rand.Read(b)
		if i%7 == 0 {
			for j := range b {
				b[j] = 0xff
			}
		}
		width := 22
		if got, want := base62Small(b, width), base62Big(b, width); got != want {
			t.Fatalf("%x: %s, want %s", b, got, want)
		}
	}
}

func base62Big(b []byte, width int) string {
	n := new(big.Int).SetBytes(b)
	out := make([]byte, width)
	mod := new(big.Int)
	for i := width - 1; i >= 0; i-- {
		n.DivMod(n, big.NewInt(62), mod)
		out[i] = alphabet[mod.Int64()]
	}
	return string(out)
}

// TestNewIncreasesWithinAMillisecond: ids made in one millisecond, or after
// the clock stepped back, still sort in the order they were made.
func TestNewIncreasesWithinAMillisecond(t *testing.T) {
	var m monotonic
	now := time.Now()
	prev := m.next(now)
	for i := range 10_000 {
		at := now
		if i%100 == 99 {
			at = now.Add(-time.Second) // the clock stepped back
		}
		id := m.next(at)
		if id <= prev {
			t.Fatalf("id %d %q sorts before or equals %q", i, id, prev)
		}
		prev = id
	}
}

func TestAddCarries(t *testing.T) {
	b := []byte{0, 1, 0xff, 0xff}
	add(b, 2)
	if want := []byte{0, 2, 0, 1}; string(b) != string(want) {
		t.Errorf("add = %x, want %x", b, want)
	}
}
