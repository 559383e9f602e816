package reader

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/golang-jwt/jwt/v5"
)

// claimNode is a level of an adaptive schema: its boolean claims and its
// groups of claims.
type claimNode struct {
	bools  map[string]bool
	groups map[string]*claimNode
}

// claimSchema is what a site's adaptive schema declares: signed claims at
// its root, unsigned ones in its unsigned object. The zero value (a site
// without adaptive content) declares none.
type claimSchema struct {
	root *claimNode
}

// parseClaimSchema reads a stored adaptive schema (checked when it was
// set; whatever does not read as claims or groups is ignored).
func parseClaimSchema(raw string) claimSchema {
	var doc schemaNode
	if json.Unmarshal([]byte(raw), &doc) != nil {
		return claimSchema{}
	}
	return claimSchema{root: doc.node(0)}
}

type schemaNode struct {
	Type       any                   `json:"type"`
	Properties map[string]schemaNode `json:"properties"`
}

func (s schemaNode) node(depth int) *claimNode {
	n := &claimNode{bools: map[string]bool{}, groups: map[string]*claimNode{}}
	if depth > limits.AdaptiveSchemaDepth {
		return n
	}
	for name, p := range s.Properties {
		switch p.Type {
		case "boolean":
			n.bools[name] = true
		case "object":
			n.groups[name] = p.node(depth + 1)
		}
	}
	return n
}

// claims are a visitor's claims as conditions read them
// (visitor.claims.<name>, visitor.claims.unsigned.<name>): only those the
// schema declares, with the declared (boolean) type; the rest is dropped.
// signed come from a verified JWT, unsigned from the visitor's query or
// cookie; a signed "unsigned" is dropped.
func (c claimSchema) claims(signed, unsigned map[string]any) map[string]any {
	if c.root == nil {
		return nil
	}
	out := filterClaims(c.root, signed)
	delete(out, "unsigned")
	if u := c.root.groups["unsigned"]; u != nil {
		out["unsigned"] = filterClaims(u, unsigned)
	}
	return out
}

func filterClaims(n *claimNode, in map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range in {
		switch v := v.(type) {
		case bool:
			if n.bools[k] {
				out[k] = v
			}
		case map[string]any:
			if g := n.groups[k]; g != nil {
				out[k] = filterClaims(g, v)
			}
		}
	}
	return out
}

// unsignedFromQuery reads the unsigned claims of a URL's query:
// visitor.<name>=true|false, visitor.<group>.<name>=..., at most
// limits.ReaderUnsignedClaims of them. ok is false when the query sets none.
func unsignedFromQuery(q url.Values) (map[string]any, bool) {
	out := map[string]any{}
	n := 0
	for key, vals := range q {
		name, found := strings.CutPrefix(key, "visitor.")
		if !found || name == "" || len(vals) == 0 {
			continue
		}
		if n++; n > limits.ReaderUnsignedClaims {
			break
		}
		var v bool
		switch vals[0] {
		case "true":
			v = true
		case "false":
		default:
			continue
		}
		parts := strings.Split(name, ".")
		if len(parts) > limits.AdaptiveSchemaDepth {
			continue
		}
		m := out
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	return out, n > 0
}

// unsignedFromCookie reads the unsigned claims kept in their cookie.
func unsignedFromCookie(v string) map[string]any {
	if v == "" || len(v) > limits.ReaderUnsignedCookieBytes {
		return nil
	}
	raw, err := url.QueryUnescape(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal([]byte(raw), &m) != nil {
		return nil
	}
	return m
}

// cookieValue is the value of the unsigned claims' cookie ("" when they do
// not fit it).
func unsignedCookie(m map[string]any) string {
	raw, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	v := url.QueryEscape(string(raw))
	if len(v) > limits.ReaderUnsignedCookieBytes {
		return ""
	}
	return v
}

// verifyVisitor checks a visitor's JWT: HS256 signed with the site's
// private key, with an expiry in the future (and not before its nbf). It
// returns the claims and the expiry.
func verifyVisitor(token, key string, now time.Time) (map[string]any, time.Time, bool) {
	if token == "" || key == "" || len(token) > limits.ReaderVisitorToken {
		return nil, time.Time{}, false
	}
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(token, claims, func(*jwt.Token) (any, error) { return []byte(key), nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(func() time.Time { return now }))
	if err != nil {
		return nil, time.Time{}, false
	}
	exp, err := claims.GetExpirationTime()
	if err != nil || exp == nil {
		return nil, time.Time{}, false
	}
	return claims, exp.Time, true
}
