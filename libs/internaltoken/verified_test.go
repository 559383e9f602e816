package internaltoken

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestVerifyRemembered checks what the remembered verifications keep
// refusing: a remembered token once it expires, a forged or tampered copy
// of it, and the principal a caller changes is not the next caller's.
func TestVerifyRemembered(t *testing.T) {
	minted := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	now := minted
	s := signerAt(t, secret, minted)
	s.now = func() time.Time { return now }
	p := Principal{UserID: "u1", Roles: map[string]string{"org1": "admin"}, TokenID: "tok1"}
	tok, err := s.Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		got, err := s.Verify(tok)
		if err != nil {
			t.Fatalf("Verify #%d: %v", i+1, err)
		}
		if diff := cmp.Diff(got, p); diff != "" {
			t.Fatalf("Verify #%d: principal (-got +want):\n%s", i+1, diff)
		}
		got.Roles["org1"] = "read" // the caller's own copy
		got.Roles["org2"] = "admin"
	}
	if s.verified.Len() != 1 {
		t.Fatalf("remembered %d tokens, want 1", s.verified.Len())
	}

	// A forged signature or a tampered payload beside the remembered token
	// is checked in full, and refused.
	parts := strings.Split(tok, ".")
	forged, err := signerAt(t, strings.Repeat("x", 32), minted).Mint("content", p)
	if err != nil {
		t.Fatal(err)
	}
	for name, bad := range map[string]string{
		"forged signature": forged,
		"tampered payload": parts[0] + "." + jwtSegment(t, `{"iss":"docspub-gateway","sub":"admin","aud":["content"],"exp":9999999999}`) + "." + parts[2],
		"other signature":  parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2])),
		"trailing text":    tok + "x",
	} {
		if _, err := s.Verify(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Verify = %v, want ErrInvalid", name, err)
		}
	}
	if s.verified.Len() != 1 {
		t.Errorf("remembered %d tokens after refusals, want 1", s.verified.Len())
	}

	// Within the leeway after its expiry the remembered token passes, then
	// it is refused and forgotten.
	now = minted.Add(time.Minute + 4*time.Second)
	if _, err := s.Verify(tok); err != nil {
		t.Errorf("Verify within the leeway: %v", err)
	}
	now = minted.Add(time.Minute + 5*time.Second)
	if _, err := s.Verify(tok); !errors.Is(err, ErrInvalid) {
		t.Errorf("Verify of a remembered token after its expiry = %v, want ErrInvalid", err)
	}
	if _, ok := s.verified.Peek(tok); ok {
		t.Error("an expired token is still remembered")
	}
}

// TestVerifyRememberedKeyRemoved checks that a token remembered by a
// component is refused by the same component once its key is removed
// (a new signer without the key) and by components that never had it.
func TestVerifyRememberedKeyRemoved(t *testing.T) {
	both := Keys{Set: "k1:" + oldSecret + ",k2:" + newSecret, KeyID: "k1"}
	gw := keyedSigner(t, "gateway", "", both)
	k1 := mint(t, gw)
	ct := keyedSigner(t, "content", "", both)
	for range 2 {
		if _, err := ct.Verify(k1); err != nil {
			t.Fatalf("k1 token with k1 accepted: %v", err)
		}
	}
	removed := keyedSigner(t, "content", "", Keys{Set: "k2:" + newSecret, KeyID: "k2"})
	if _, err := removed.Verify(k1); !errors.Is(err, ErrInvalid) {
		t.Errorf("k1 token after k1 was removed: Verify = %v, want ErrInvalid", err)
	}
	if _, err := keyedSigner(t, "content", oldSecret, Keys{}).Verify(k1); !errors.Is(err, ErrInvalid) {
		t.Errorf("k1 token at a component without key sets: Verify = %v, want ErrInvalid", err)
	}
}

// TestVerifyRememberedBounded checks that many distinct tokens keep at
// most verifiedTokens remembered, and that every one still verifies.
func TestVerifyRememberedBounded(t *testing.T) {
	s := signerAt(t, secret, time.Now())
	for i := range verifiedTokens + 100 {
		tok, err := s.Mint("content", Principal{UserID: fmt.Sprint("u", i)})
		if err != nil {
			t.Fatal(err)
		}
		if p, err := s.Verify(tok); err != nil || p.UserID != fmt.Sprint("u", i) {
			t.Fatalf("Verify token %d = %+v, %v", i, p, err)
		}
	}
	if n := s.verified.Len(); n > verifiedTokens {
		t.Errorf("remembered %d tokens, want at most %d", n, verifiedTokens)
	}
}

// BenchmarkVerify verifies one token again and again, as sites does for
// readers' requests (the gateway reuses their token), and distinct tokens.
func BenchmarkVerify(b *testing.B) {
	s, err := NewSigner("content", secret, time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	tok, err := s.Mint("content", Principal{Service: "gateway"})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("same", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := s.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("distinct", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			s.verified.Remove(tok)
			if _, err := s.Verify(tok); err != nil {
				b.Fatal(err)
			}
		}
	})
}
