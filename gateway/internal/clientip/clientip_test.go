package clientip

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

func TestNewRefuses(t *testing.T) {
	for _, tc := range []struct {
		proxies []string
		hops    int
		want    string // in the error; "" accepted
	}{
		{[]string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8", "", "::ffff:10.1.2.3"}, 0, ""},
		{nil, 2, ""},
		{[]string{" "}, 1, ""},
		{[]string{"0.0.0.0/0"}, 0, "TRUSTED_PROXIES"},
		{[]string{"::/0"}, 0, "TRUSTED_PROXIES"},
		{[]string{"10.0.0.0/33"}, 0, "TRUSTED_PROXIES"},
		{[]string{"proxy.example"}, 0, "TRUSTED_PROXIES"},
		{nil, -1, "TRUSTED_HOPS"},
		{nil, MaxHops + 1, "TRUSTED_HOPS"},
		{[]string{"10.0.0.0/8"}, 1, "TRUSTED_HOPS"},
	} {
		_, err := New(tc.proxies, tc.hops)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want+":")) {
			t.Errorf("New(%q, %d) = %v, want an error naming %q", tc.proxies, tc.hops, err, tc.want)
		}
	}
}

func TestClient(t *testing.T) {
	cidr, err := New([]string{"10.0.0.0/8", "2001:db8:1::/48"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	hops2, err := New(nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	none, err := New(nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		r      *Resolver
		peer   string
		xff    []string
		realIP string
		want   string
	}{
		{"no proxies: the peer", none, "203.0.113.9:5000", []string{"198.51.100.1"}, "198.51.100.2", "203.0.113.9"},
		{"untrusted peer: headers ignored", cidr, "203.0.113.9:5000", []string{"198.51.100.1"}, "198.51.100.2", "203.0.113.9"},
		{"trusted peer: right-most untrusted", cidr, "10.1.1.1:5000", []string{"198.51.100.66, 198.51.100.1, 10.2.2.2"}, "", "198.51.100.1"},
		{"several header lines are one list", cidr, "10.1.1.1:5000", []string{"198.51.100.66", "198.51.100.1 ,10.2.2.2"}, "", "198.51.100.1"},
		{"all trusted: the left-most", cidr, "10.1.1.1:5000", []string{"10.3.3.3, 10.2.2.2"}, "", "10.3.3.3"},
		{"entries with ports and IPv6", cidr, "[2001:db8:1::5]:443", []string{"[2001:db8:2::7]:5555, 198.51.100.4:80"}, "", "198.51.100.4"},
		{"IPv4 in IPv6 is IPv4", cidr, "[::ffff:10.1.1.1]:5000", []string{"::ffff:198.51.100.8"}, "", "198.51.100.8"},
		{"no X-Forwarded-For: X-Real-IP", cidr, "10.1.1.1:5000", nil, "198.51.100.3", "198.51.100.3"},
		{"garbage: the peer", cidr, "10.1.1.1:5000", []string{"198.51.100.1, nonsense"}, "", "10.1.1.1"},
		{"hops: the Nth from the right", hops2, "203.0.113.9:5000", []string{"198.51.100.66, 198.51.100.1, 192.0.2.1"}, "", "198.51.100.1"},
		{"hops: fewer entries, the left-most", hops2, "203.0.113.9:5000", []string{"198.51.100.1"}, "", "198.51.100.1"},
		{"hops: blanks do not count", hops2, "203.0.113.9:5000", []string{"198.51.100.1,, 192.0.2.1,"}, "", "198.51.100.1"},
		{"hops: no header, the peer", hops2, "203.0.113.9:5000", nil, "198.51.100.3", "203.0.113.9"},
		{"hops: garbage, the peer", hops2, "203.0.113.9:5000", []string{"x, 192.0.2.1"}, "", "203.0.113.9"},
		{"a peer that is no address", none, "pipe", nil, "", "pipe"},
	} {
		req, _ := http.NewRequest(http.MethodGet, "http://gw/", nil)
		req.RemoteAddr = tc.peer
		req.Header["X-Forwarded-For"] = tc.xff
		if tc.realIP != "" {
			req.Header.Set("X-Real-IP", tc.realIP)
		}
		if got := tc.r.Client(req); got != tc.want {
			t.Errorf("%s: Client = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func BenchmarkClient(b *testing.B) {
	r, err := New([]string{"10.0.0.0/8"}, 0)
	if err != nil {
		b.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://gw/", nil)
	req.RemoteAddr = "10.1.1.1:5000"
	req.Header.Set("X-Forwarded-For", "198.51.100.66, 198.51.100.1, 10.2.2.2")
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Client(req)
	}
}

// parseAddr reads every form as the parse that tries the bare address
// first did (no string is both an address and an address with a port).
func TestParseAddrForms(t *testing.T) {
	before := func(s string) (netip.Addr, bool) { // bare, with a port, in brackets
		if a, err := netip.ParseAddr(s); err == nil {
			return a.Unmap().WithZone(""), true
		}
		if ap, err := netip.ParseAddrPort(s); err == nil {
			return ap.Addr().Unmap().WithZone(""), true
		}
		if inner, ok := strings.CutPrefix(s, "["); ok && strings.HasSuffix(inner, "]") {
			if a, err := netip.ParseAddr(strings.TrimSuffix(inner, "]")); err == nil {
				return a.Unmap().WithZone(""), true
			}
		}
		return netip.Addr{}, false
	}
	for _, s := range []string{"203.0.113.7", "203.0.113.7:4711", "[2001:db8::1]:443", "[2001:db8::1]", "2001:db8::1",
		"::1", "[::1]:80", "::ffff:203.0.113.7", "[::ffff:203.0.113.7]:1", "fe80::1%eth0", "[fe80::1%eth0]:80",
		"1:2", "[1:2]", "", ":", "[]", "[]:80", "x.example:80", "203.0.113.7:", "203.0.113.7:99999", "1::2:3"} {
		got, ok := parseAddr(s)
		want, wantOK := before(s)
		if got != want || ok != wantOK {
			t.Errorf("parseAddr(%q) = %v, %v; want %v, %v", s, got, ok, want, wantOK)
		}
	}
}
