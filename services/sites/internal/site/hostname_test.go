package site

import (
	"strings"
	"testing"
	"time"
)

func TestHostnameProblem(t *testing.T) {
	t.Parallel()
	s := New(Deps{URLs: URLs{Public: "https://api.docspub.example", App: "https://App.Docspub.example/app",
		Published: "https://read.docspub.example/sites"}, Hostnames: HostnameConfig{Reserved: []string{" Docspub.Example. "}}})
	for _, tc := range []struct {
		host, want string // want: "" accepted, else in the problem
	}{
		{"docs.acme.com", ""},
		{"api.docspub.example.acme.com", ""}, // only looks like one
		{"xapi.docspub.example", "reserved"}, // under docspub.example (RESERVED_HOSTNAMES)
		{"api.docspub.example", "reserved"},
		{"x.app.docspub.example", "reserved"},
		{"a.b.read.docspub.example", "reserved"},
		{"www.docspub.example", "reserved"},
		{"10.0.0.10", "IP address"},
		{"Docs.acme.com", "lower-case"},
		{"acme.com", "three labels"},
		{strings.Repeat("a.", 300) + "com", "at most 512"},
	} {
		got := s.hostnameProblem(tc.host)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("hostnameProblem(%q) = %q, want %q", tc.host, got, tc.want)
		}
	}
}

func TestNewClaimKeepsTheTokenOfTheSameHostname(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := New(Deps{Hostnames: HostnameConfig{ClaimTTL: time.Hour}, Now: func() time.Time { return now }})
	first := s.newClaim(Site{}, "docs.acme.com")
	if first.State != HostnamePending || !first.ExpiresAt.Equal(now.Add(time.Hour)) || !strings.HasPrefix(first.Token, "docspub-verification=") {
		t.Fatalf("first claim %+v", first)
	}
	again := s.newClaim(Site{Hostname: "docs.acme.com", HostnameClaim: first}, "docs.acme.com")
	other := s.newClaim(Site{Hostname: "docs.acme.com", HostnameClaim: first}, "www.acme.com")
	if again.Token != first.Token || other.Token == first.Token {
		t.Errorf("tokens: first %s, again %s, another hostname %s", first.Token, again.Token, other.Token)
	}
	if v := hostnameView(Site{ID: "s1", Hostname: "docs.acme.com", HostnameClaim: first}); v.IsActive || v.State != HostnamePending ||
		v.Verification.Name != "_docspub-challenge.docs.acme.com" || v.Verification.Value != first.Token || v.ExpiresAt == nil {
		t.Errorf("view %+v", v)
	}
}
