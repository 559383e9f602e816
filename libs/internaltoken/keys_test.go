package internaltoken

import (
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/google/go-cmp/cmp"
)

const (
	oldSecret = "old-0123456789abcdef0123456789abcdef"
	newSecret = "new-0123456789abcdef0123456789abcdef"
)

func keyedSigner(t *testing.T, service, secret string, keys Keys) *Signer {
	t.Helper()
	s, err := NewKeyedSigner(service, secret, keys, time.Minute)
	if err != nil {
		t.Fatalf("signer of %s with %s: %v", service, keys.KeyID, err)
	}
	return s
}

// mint returns a token from the gateway signer g for content.
func mint(t *testing.T, g *Signer) string {
	t.Helper()
	tok, err := g.Mint("content", Principal{UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestKeyRotation walks the rotation from the single secret to a key set
// and from one key of the set to the next: at each step the components
// already rolled and those not yet rolled accept each other's tokens, and
// after the old key is removed its tokens are refused.
func TestKeyRotation(t *testing.T) {
	verify := func(t *testing.T, step string, s *Signer, tok string, want bool) {
		t.Helper()
		_, err := s.Verify(tok)
		if got := err == nil; got != want {
			t.Errorf("%s: Verify = %v; want accepted %v", step, err, want)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: Verify error %v is not ErrInvalid", step, err)
		}
	}
	// Before: the single secret everywhere.
	gwSingle := keyedSigner(t, "gateway", oldSecret, Keys{})
	single := mint(t, gwSingle)

	// Step 1: the key set adds k2 beside the old secret, which still signs
	// nowhere but is accepted (a token without kid).
	added := Keys{Set: "k1:" + oldSecret + ",k2:" + newSecret, KeyID: "k1"}
	gwAdded := keyedSigner(t, "gateway", "", added)
	ctAdded := keyedSigner(t, "content", oldSecret, added)
	verify(t, "added: the single secret's token", ctAdded, single, true)
	verify(t, "added: a k1 token", ctAdded, mint(t, gwAdded), true)
	verify(t, "added: a k1 token at a component not rolled yet", keyedSigner(t, "content", oldSecret, Keys{}), mint(t, gwAdded), false)

	// Step 2: k2 signs; k1 (and the single secret) are still accepted, so
	// tokens minted before the switch, or by a gateway not yet switched, pass.
	switched := Keys{Set: added.Set, KeyID: "k2"}
	gwSwitched := keyedSigner(t, "gateway", "", switched)
	ctSwitched := keyedSigner(t, "content", oldSecret, switched)
	k1 := mint(t, gwAdded)
	k2 := mint(t, gwSwitched)
	verify(t, "switched: old k1 token", ctSwitched, k1, true)
	verify(t, "switched: new k2 token", ctSwitched, k2, true)
	verify(t, "switched: k2 token at a component still on k1", ctAdded, k2, true)
	verify(t, "switched: single-secret token", ctSwitched, single, true)

	// Step 3: k1 and the single secret are removed: only k2 passes.
	removed := Keys{Set: "k2:" + newSecret, KeyID: "k2"}
	ctRemoved := keyedSigner(t, "content", "", removed)
	if diff := cmp.Diff(ctRemoved.KeyIDs(), []string{"k2"}); diff != "" {
		t.Errorf("accepted keys (-got +want):\n%s", diff)
	}
	verify(t, "removed: new k2 token", ctRemoved, k2, true)
	verify(t, "removed: old k1 token", ctRemoved, k1, false)
	verify(t, "removed: single-secret token", ctRemoved, single, false)
}

func TestKeysCheckReportsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		keys   Keys
		secret string
		want   []string
	}{
		{name: "single secret", secret: oldSecret},
		{name: "set", keys: Keys{Set: "a:" + oldSecret + ",b:" + newSecret, KeyID: "b"}},
		{name: "nothing", want: []string{"INTERNAL_TOKEN_SECRET must be at least 32 bytes"}},
		{name: "key id without set", secret: oldSecret, keys: Keys{KeyID: "a"}, want: []string{"INTERNAL_TOKEN_KEY_ID needs INTERNAL_TOKEN_KEYS"}},
		{name: "short key, bad item, unknown id", keys: Keys{Set: "a:short,nokid,a:" + oldSecret, KeyID: "z"}, want: []string{
			"INTERNAL_TOKEN_KEYS: the secret of key a must be at least 32 bytes",
			"INTERNAL_TOKEN_KEYS: each key is kid:secret",
			"INTERNAL_TOKEN_KEYS: key a is given twice",
			"INTERNAL_TOKEN_KEY_ID z is not in INTERNAL_TOKEN_KEYS",
		}},
		{name: "set without key id", keys: Keys{Set: "a:" + oldSecret}, want: []string{"INTERNAL_TOKEN_KEY_ID must name the signing key of INTERNAL_TOKEN_KEYS"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var p config.Problems
			tc.keys.Check(&p, tc.secret)
			if diff := cmp.Diff([]string(p), tc.want); diff != "" {
				t.Errorf("problems (-got +want):\n%s", diff)
			}
		})
	}
}

func TestKeysAreMaskedWhenLogged(t *testing.T) {
	t.Parallel()
	var cfg struct{ Keys Keys }
	cfg.Keys = Keys{Set: "a:" + oldSecret, KeyID: "a"}
	d := config.Describe(cfg)
	if d["INTERNAL_TOKEN_KEYS"] != "****" || d["INTERNAL_TOKEN_KEY_ID"] != "a" {
		t.Errorf("described = %v; want the key set masked and the key id shown", d)
	}
}
