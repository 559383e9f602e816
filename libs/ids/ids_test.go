package ids

import (
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
		id := newAt(start.Add(time.Duration(i) * time.Millisecond))
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
