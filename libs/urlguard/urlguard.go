// Package urlguard guards outbound fetches of user-given URLs: only http(s),
// and no connection to loopback, private, link-local or otherwise internal
// addresses unless the guard allows them. The check runs at dial time on the
// resolved address, so DNS rebinding cannot slip past it.
package urlguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"syscall"
	"time"
)

// ErrBlocked is returned when a URL or address may not be fetched.
var ErrBlocked = errors.New("outbound address not allowed")

// Guard decides which outbound addresses may be reached.
type Guard struct {
	// AllowPrivate lets fetches reach private and loopback addresses (tests, local runs).
	AllowPrivate bool
	// Allow are addresses (IP and port) that may be reached although they
	// are private: one server the operator names (the local runner's Git
	// server of its own docs), not the network it is in.
	Allow []netip.AddrPort
	// AllowUntil, when set, ends Allow once it is closed: the server Allow
	// names has closed, and whatever listens at its address next is
	// guarded like any other.
	AllowUntil <-chan struct{}
}

// CheckURL validates a URL's scheme and, for literal IP hosts, its address.
func (g Guard) CheckURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: not an absolute URL", ErrBlocked)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("%w: scheme %q", ErrBlocked, u.Scheme)
	}
	if ip, err := netip.ParseAddr(u.Hostname()); err == nil && !g.allowed(netip.AddrPortFrom(ip, urlPort(u))) {
		return nil, fmt.Errorf("%w: %s", ErrBlocked, ip)
	}
	return u, nil
}

// Client returns an HTTP client whose every connection passes the guard,
// including those of redirects.
func (g Guard) Client(timeout time.Duration) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second, Control: g.control}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          10,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= 5 {
				return errors.New("too many redirects")
			}
			_, err := g.CheckURL(req.URL.String())
			return err
		},
	}
}

// urlPort is the port u connects to: its own, or its scheme's.
func urlPort(u *url.URL) uint16 {
	if p, err := strconv.ParseUint(u.Port(), 10, 16); err == nil {
		return uint16(p)
	}
	if u.Scheme == "https" {
		return 443
	}
	return 80
}

func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil || !g.allowed(ap) {
		return fmt.Errorf("%w: %s", ErrBlocked, address)
	}
	return nil
}

func (g Guard) allowed(ap netip.AddrPort) bool {
	if g.AllowPrivate {
		return true
	}
	ip := ap.Addr().Unmap()
	for _, a := range g.Allow {
		if a.Addr().Unmap() == ip && a.Port() == ap.Port() && !g.allowEnded() {
			return true
		}
	}
	return !(ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsMulticast() || ip.IsUnspecified() || ip.IsInterfaceLocalMulticast() || isSpecial(ip))
}

// allowEnded tells whether AllowUntil is closed.
func (g Guard) allowEnded() bool {
	if g.AllowUntil == nil {
		return false
	}
	select {
	case <-g.AllowUntil:
		return true
	default:
		return false
	}
}

var special = []netip.Prefix{
	netip.MustParsePrefix("100.64.0.0/10"), // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
}

func isSpecial(ip netip.Addr) bool {
	for _, p := range special {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// Fetch is a convenience for a guarded GET.
func (g Guard) Fetch(ctx context.Context, raw string, timeout time.Duration) (*http.Response, error) {
	u, err := g.CheckURL(raw)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	return g.Client(timeout).Do(req)
}
