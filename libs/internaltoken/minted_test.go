package internaltoken

import (
	"testing"
	"time"
)

// TestMintRemembered checks that a remembered token is the one Mint would
// sign anew: the same text within its second, for the same audience and
// principal only, and a new one (later expiry) the next second.
func TestMintRemembered(t *testing.T) {
	at := time.Date(2025, 1, 1, 12, 0, 0, 100e6, time.UTC)
	now := at
	s := serviceSignerAt(t, "gateway", secret, at)
	s.now = func() time.Time { return now }
	p := Principal{UserID: "u1", Roles: map[string]string{"org1": "admin", "org2": "read"}, TokenID: "tok1"}
	first, err := s.Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	// Signed anew by a signer that remembers nothing: the same text.
	if fresh, _ := serviceSignerAt(t, "gateway", secret, at.Add(800*time.Millisecond)).Mint("content", p); fresh != first {
		t.Fatalf("a token signed anew within the second differs from the first:\n%s\n%s", fresh, first)
	}
	now = at.Add(800 * time.Millisecond)
	if again, _ := s.Mint("content", p); again != first {
		t.Errorf("minted again within the second: a new token")
	}
	others := map[string]Principal{
		"another role":  {UserID: "u1", Roles: map[string]string{"org1": "admin", "org2": "admin"}, TokenID: "tok1"},
		"one role less": {UserID: "u1", Roles: map[string]string{"org1": "admin"}, TokenID: "tok1"},
		"another token": {UserID: "u1", Roles: p.Roles, TokenID: "tok2"},
		"another user":  {UserID: "u2", Roles: p.Roles, TokenID: "tok1"},
		"a service":     {Service: "u1", Roles: p.Roles, TokenID: "tok1"},
	}
	for name, o := range others {
		tok, err := s.Mint("content", o)
		if err != nil {
			t.Fatal(err)
		}
		if tok == first {
			t.Errorf("%s: got the first principal's token", name)
		}
		got, err := serviceSignerAt(t, "content", secret, now).Verify(tok)
		if err != nil || got.UserID != o.UserID || got.Service != o.Service || got.TokenID != o.TokenID || len(got.Roles) != len(o.Roles) {
			t.Errorf("%s: verified as %+v, %v; want %+v", name, got, err, o)
		}
	}
	if tok, _ := s.Mint("sites", p); tok == first {
		t.Error("another audience: got the first audience's token")
	}
	now = at.Add(time.Second)
	next, err := s.Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	if next == first {
		t.Error("minted the next second: the previous second's token")
	}
}
