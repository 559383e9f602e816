package internaltoken

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/docspub/platform/libs/config"
)

// MinSecretBytes is the least length of a signing secret.
const MinSecretBytes = 32

// Keys is the set of signing keys that lets the platform rotate the
// internal-token secret without flipping every component at once. A token
// names its key in its "kid" header; a signer signs with KeyID and accepts
// every key of the set, plus the single INTERNAL_TOKEN_SECRET (tokens
// without a kid) while it is still given. Rotation: add the new key to the
// set everywhere, then switch INTERNAL_TOKEN_KEY_ID to it everywhere, then
// remove the old key (and INTERNAL_TOKEN_SECRET).
type Keys struct {
	// Set is "kid1:secret1,kid2:secret2".
	Set string `env:"INTERNAL_TOKEN_KEYS" secret:"true"`
	// KeyID is the key of Set that signs.
	KeyID string `env:"INTERNAL_TOKEN_KEY_ID"`
}

// parse returns the key id → secret of the set.
func (k Keys) parse() (map[string][]byte, []string) {
	keys := map[string][]byte{}
	var problems []string
	for _, item := range strings.Split(k.Set, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		kid, secret, ok := strings.Cut(item, ":")
		switch {
		case !ok || kid == "":
			problems = append(problems, "INTERNAL_TOKEN_KEYS: each key is kid:secret")
			continue
		case len(secret) < MinSecretBytes:
			problems = append(problems, fmt.Sprintf("INTERNAL_TOKEN_KEYS: the secret of key %s must be at least %d bytes", kid, MinSecretBytes))
		}
		if _, dup := keys[kid]; dup {
			problems = append(problems, fmt.Sprintf("INTERNAL_TOKEN_KEYS: key %s is given twice", kid))
		}
		keys[kid] = []byte(secret)
	}
	return keys, problems
}

// Check records the problems of the keys, with secret the single
// INTERNAL_TOKEN_SECRET, in p.
func (k Keys) Check(p *config.Problems, secret string) {
	keys, problems := k.parse()
	*p = append(*p, problems...)
	switch {
	case len(keys) == 0 && k.KeyID != "":
		p.Addf("INTERNAL_TOKEN_KEY_ID needs INTERNAL_TOKEN_KEYS")
	case len(keys) == 0 && len(secret) < MinSecretBytes:
		p.Addf("INTERNAL_TOKEN_SECRET must be at least %d bytes", MinSecretBytes)
	case len(keys) > 0 && k.KeyID == "":
		p.Addf("INTERNAL_TOKEN_KEY_ID must name the signing key of INTERNAL_TOKEN_KEYS")
	case len(keys) > 0 && keys[k.KeyID] == nil:
		p.Addf("INTERNAL_TOKEN_KEY_ID %s is not in INTERNAL_TOKEN_KEYS", k.KeyID)
	case len(keys) > 0 && secret != "" && len(secret) < MinSecretBytes:
		p.Addf("INTERNAL_TOKEN_SECRET must be at least %d bytes", MinSecretBytes)
	}
}

// Signing returns the secret that signs: the key KeyID of the set, or the
// single secret without a set.
func (k Keys) Signing(secret string) string {
	keys, _ := k.parse()
	if s, ok := keys[k.KeyID]; ok && len(keys) > 0 {
		return string(s)
	}
	return secret
}

// NewKeyedSigner returns the signer of service that signs with keys.KeyID
// (or with secret when keys has no set) and accepts every key of the set
// and secret.
func NewKeyedSigner(service, secret string, keys Keys, ttl time.Duration) (*Signer, error) {
	var p config.Problems
	keys.Check(&p, secret)
	if err := p.Err(); err != nil {
		return nil, err
	}
	set, _ := keys.parse()
	if len(set) == 0 {
		return NewSigner(service, secret, ttl)
	}
	s, err := NewSigner(service, string(set[keys.KeyID]), ttl)
	if err != nil {
		return nil, err
	}
	s.kid = keys.KeyID
	s.accept = set
	if secret != "" {
		s.accept[""] = []byte(secret)
	}
	return s, nil
}

// KeyIDs returns the ids of the keys the signer accepts, sorted ("" for
// the single secret).
func (s *Signer) KeyIDs() []string {
	ids := make([]string, 0, len(s.accept))
	for id := range s.accept {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
