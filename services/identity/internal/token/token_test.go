package token

import (
	"strings"
	"testing"
)

func TestRawToken(t *testing.T) {
	t.Parallel()
	a, b := NewRaw(), NewRaw()
	if a == b || !strings.HasPrefix(a, Prefix) || len(a) != len(Prefix)+43 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if h := Hash(a); len(h) != 64 || h == Hash(b) {
		t.Fatalf("hash %q", h)
	}
}
