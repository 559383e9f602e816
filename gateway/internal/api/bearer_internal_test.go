package api

import (
	"strings"
	"testing"
)

func TestBearerToken(t *testing.T) {
	long := strings.Repeat("a", maxTokenLen)
	for _, tc := range []struct {
		header, token string
		ok            bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer   abc", "abc", true},
		{"Bearer " + long, long, true},
		{"Bearer " + long + "a", "", false},
		{"Bearer ", "", false},
		{"Bearer", "", false},
		{"Basic abc", "", false},
		{"Bearer a b", "", false},
		{"Bearer a\tb", "", false},
		{"Bearer abcé", "", false},
		{"", "", false},
	} {
		if tok, ok := bearerToken(tc.header); tok != tc.token || ok != tc.ok {
			t.Errorf("bearerToken(%q) = %q, %v; want %q, %v", tc.header, tok, ok, tc.token, tc.ok)
		}
	}
}
