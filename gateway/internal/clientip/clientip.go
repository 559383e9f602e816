// Package clientip derives the address of the client of a request to the
// gateway: the one place that decides it, for the rate limits, the
// failed-auth limit, the address readers' reads are recorded under in
// insights, the X-Forwarded-For services receive and the access log.
//
// Without proxies configured the client is the connection's peer. Behind
// proxies it is one of two settings, never both:
//
//   - trusted proxies (TRUSTED_PROXIES): IP addresses or CIDR ranges of
//     the proxies. From a peer among them, the client is the right-most
//     X-Forwarded-For entry that is not a trusted proxy (all of them
//     trusted: the left-most), else X-Real-IP; from any other peer those
//     headers are ignored. With the PROXY protocol (Listener) the same
//     ranges are the peers whose PROXY header is believed.
//   - trusted hops (TRUSTED_HOPS=N): N proxies whose addresses are not
//     known (a CDN's edges) each append the address they saw; the client
//     is the Nth X-Forwarded-For entry from the right (fewer entries: the
//     left-most), whatever the peer. Only the network then keeps clients
//     from reaching the gateway without going through them.
package clientip

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"time"

	"github.com/pires/go-proxyproto"
)

// MaxHops bounds TRUSTED_HOPS: no real chain of proxies is longer.
const MaxHops = 10

// Resolver derives client addresses (Client) and, for the PROXY protocol,
// wraps listeners (Listener).
type Resolver struct {
	trusted []netip.Prefix
	hops    int
}

// ParseProxy parses one TRUSTED_PROXIES entry: an IP address or a CIDR
// range that is not the whole address space (trusting every peer would let
// any client choose its address).
func ParseProxy(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		a = a.Unmap().WithZone("")
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("%q is neither an IP address nor a CIDR range", s)
	}
	if p.Bits() == 0 {
		return netip.Prefix{}, fmt.Errorf("%q trusts every address: any client could choose its own", s)
	}
	return p.Masked(), nil
}

// Check reports every problem of the settings, each naming its variable:
// a TRUSTED_PROXIES entry that is not an address or a range (blanks are
// skipped), TRUSTED_HOPS out of 0..MaxHops, or both set.
func Check(proxies []string, hops int) []error {
	var errs []error
	n := 0
	for _, s := range proxies {
		if strings.TrimSpace(s) == "" {
			continue
		}
		n++
		if _, err := ParseProxy(s); err != nil {
			errs = append(errs, fmt.Errorf("TRUSTED_PROXIES: %w", err))
		}
	}
	switch {
	case hops < 0 || hops > MaxHops:
		errs = append(errs, fmt.Errorf("TRUSTED_HOPS: must be 0 (none) to %d", MaxHops))
	case hops > 0 && n > 0:
		errs = append(errs, errors.New("TRUSTED_HOPS: set TRUSTED_PROXIES (the proxies' addresses) or TRUSTED_HOPS (their number), not both"))
	}
	return errs
}

// New returns a resolver trusting the proxies (TRUSTED_PROXIES entries)
// or hops proxies of unknown addresses; settings Check refuses are an
// error.
func New(proxies []string, hops int) (*Resolver, error) {
	if errs := Check(proxies, hops); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	r := &Resolver{hops: hops}
	for _, s := range proxies {
		if p, err := ParseProxy(s); err == nil {
			r.trusted = append(r.trusted, p)
		}
	}
	return r, nil
}

// Client returns the address of the client of req (see the package
// documentation), IPv4 as dotted quad. A peer that is no IP address (a
// test's pipe) is returned as it is.
func (r *Resolver) Client(req *http.Request) string {
	peer, ok := parseAddr(req.RemoteAddr)
	if !ok {
		return req.RemoteAddr
	}
	return r.ClientFrom(peer, req.Header["X-Forwarded-For"], req.Header["X-Real-Ip"])
}

// Peer is the IP address of a connection's remote end, false when it has
// none (a test's pipe).
func Peer(a net.Addr) (netip.Addr, bool) {
	if t, ok := a.(*net.TCPAddr); ok {
		if ap := t.AddrPort(); ap.Addr().IsValid() {
			return ap.Addr().Unmap().WithZone(""), true
		}
	}
	return parseAddr(a.String())
}

// ClientFrom is Client for any server: the client address of a request
// from peer with these X-Forwarded-For and X-Real-Ip lines.
func (r *Resolver) ClientFrom(peer netip.Addr, forwardedFor, realIP []string) string {
	switch {
	case r.hops > 0:
		if a, ok := r.nthFromRight(forwardedFor); ok {
			return a.String()
		}
	case r.Trusts(peer):
		if a, ok := r.rightmostUntrusted(forwardedFor); ok {
			return a.String()
		}
		if len(realIP) > 0 {
			if a, ok := parseAddr(realIP[0]); ok {
				return a.String()
			}
		}
	}
	return peer.String()
}

// Trusts reports whether a is a trusted proxy (TRUSTED_PROXIES).
func (r *Resolver) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, p := range r.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// rightmostUntrusted is the right-most X-Forwarded-For entry that is not a
// trusted proxy, or the left-most when all are; not ok without entries or
// when the walk meets one that is no address.
func (r *Resolver) rightmostUntrusted(values []string) (addr netip.Addr, ok bool) {
	eachFromRight(values, func(s string) bool {
		addr, ok = parseAddr(s)
		return ok && r.Trusts(addr)
	})
	return addr, ok
}

// nthFromRight is the hops-th X-Forwarded-For entry from the right, or the
// left-most when there are fewer; not ok without entries or when the walk
// meets one that is no address.
func (r *Resolver) nthFromRight(values []string) (addr netip.Addr, ok bool) {
	n := 0
	eachFromRight(values, func(s string) bool {
		addr, ok = parseAddr(s)
		n++
		return ok && n < r.hops
	})
	return addr, ok
}

// eachFromRight calls f with the non-blank entries of the comma-separated
// header values (several lines are one list, in order), right-most first,
// until f returns false.
func eachFromRight(values []string, f func(string) bool) {
	for i := len(values) - 1; i >= 0; i-- {
		v := values[i]
		for {
			j := strings.LastIndexByte(v, ',')
			if s := strings.TrimSpace(v[j+1:]); s != "" && !f(s) {
				return
			}
			if j < 0 {
				break
			}
			v = v[:j]
		}
	}
}

// parseAddr parses an address as peers and proxies write it: bare, with a
// port ("203.0.113.7:4711", "[2001:db8::1]:443") or in brackets; IPv4 in
// IPv6 as IPv4, without a zone.
func parseAddr(s string) (netip.Addr, bool) {
	// A peer's address has a port: parsed as such first, since a parse
	// that fails allocates its error (no string is both forms).
	if strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1 {
		if ap, err := netip.ParseAddrPort(s); err == nil {
			return ap.Addr().Unmap().WithZone(""), true
		}
	}
	a, err := netip.ParseAddr(s)
	if err != nil {
		ap, perr := netip.ParseAddrPort(s)
		if perr != nil {
			if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
				return netip.Addr{}, false
			}
			if a, err = netip.ParseAddr(s[1 : len(s)-1]); err != nil {
				return netip.Addr{}, false
			}
		} else {
			a = ap.Addr()
		}
	}
	return a.Unmap().WithZone(""), true
}

// Listener wraps ln for the PROXY protocol (v1 and v2): a connection from
// a trusted proxy may open with a PROXY header, whose source address is
// then the connection's peer (and so, through Client, the client); one
// without a header is served as it is (the proxy's own health checks). A
// connection from any other peer is served as it is too, unless it opens
// with a PROXY header: that is a client claiming an address, and its
// connection is closed unanswered. The header must arrive within timeout
// of the first read; later, the connection is taken as one without.
func (r *Resolver) Listener(ln net.Listener, timeout time.Duration) net.Listener {
	return &proxyproto.Listener{Listener: ln, ReadHeaderTimeout: timeout, ConnPolicy: r.proxyPolicy}
}

func (r *Resolver) proxyPolicy(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
	if a, ok := parseAddr(o.Upstream.String()); ok && r.Trusts(a) {
		return proxyproto.USE, nil
	}
	return proxyproto.REJECT, nil
}
