package site

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/services/sites/internal/limits"
	"golang.org/x/sync/errgroup"
)

// A custom hostname is verified before readers are served there: setting
// it starts a claim with a token of its own, which the owner of the
// hostname publishes as a DNS TXT record at ChallengeName(hostname). The
// checker (CheckHostnames, and a check each time the same hostname is set
// again) looks the record up; the first site to verify a hostname holds
// it. Unverified claims block nobody (several sites may claim one hostname
// at once) and fail when they are still unverified after the claim's time
// (HostnameConfig.ClaimTTL).

// Hostname claim states.
const (
	HostnamePending  = "pending"  // waiting for its TXT record
	HostnameVerified = "verified" // served
	HostnameFailed   = "failed"   // expired, or verified by another site first
)

// ChallengeLabel is the label under a hostname where its TXT record is published.
const ChallengeLabel = "_docspub-challenge"

// ChallengeName is the name of the TXT record that verifies host.
func ChallengeName(host string) string { return ChallengeLabel + "." + host }

// HostnameClaim is a site's claim of its custom hostname.
type HostnameClaim struct {
	// Token is the value the TXT record must hold (one per claim; setting
	// the same hostname again keeps it).
	Token      string     `bson:"token"`
	State      string     `bson:"state"`
	Problem    string     `bson:"problem,omitempty"` // why it is not verified (the last check)
	ClaimedAt  time.Time  `bson:"claimedAt"`
	ExpiresAt  time.Time  `bson:"expiresAt"` // a claim still pending then fails
	CheckedAt  time.Time  `bson:"checkedAt"` // zero: never checked
	VerifiedAt *time.Time `bson:"verifiedAt,omitempty"`
}

// HostnameVerified tells whether the site holds host, verified.
func (s Site) HostnameVerified(host string) bool {
	return host != "" && s.Hostname == host && s.HostnameClaim != nil && s.HostnameClaim.State == HostnameVerified
}

// VerifiedHostname returns the live site that verified host and holds it,
// for a platform service (the gateway, before it obtains a TLS
// certificate for host); ErrSiteNotFound when none does, or when host is
// no hostname a site may hold (too long, not lower-case).
func (s *Service) VerifiedHostname(ctx context.Context, host string) (Site, error) {
	if host == "" || len(host) > limits.ReaderHostname || !hostnamePattern.MatchString(host) {
		return Site{}, ErrSiteNotFound
	}
	st, err := s.store.SiteByHostname(ctx, host)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && !st.HostnameVerified(host)) {
		return Site{}, ErrSiteNotFound
	}
	return st, err
}

// TXTResolver looks up TXT records (*net.Resolver does).
type TXTResolver interface {
	LookupTXT(ctx context.Context, name string) ([]string, error)
}

// DNSResolver is the resolver of hostname verification: the system's, or
// one that asks the DNS server at addr (host:port).
func DNSResolver(addr string) *net.Resolver {
	if addr == "" {
		return &net.Resolver{}
	}
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}}
}

// HostnameConfig is how custom hostnames are verified.
type HostnameConfig struct {
	// Reserved are the platform's own hosts: neither they nor their
	// subdomains can be a site's hostname.
	Reserved []string
	// ClaimTTL is how long a claim may stay unverified.
	ClaimTTL time.Duration
	// Recheck is how long the checker waits before checking a pending
	// claim again.
	Recheck time.Duration
	// Resolver looks the TXT records up (nil: claims stay pending).
	Resolver TXTResolver
}

// hostnames is c with its defaults, the hosts of urls reserved.
func hostnames(c HostnameConfig, urls URLs) HostnameConfig {
	reserved := reservedHosts(urls)
	for _, h := range c.Reserved {
		reserved = append(reserved, strings.TrimSuffix(strings.ToLower(strings.TrimSpace(h)), "."))
	}
	c.Reserved = reserved
	if c.ClaimTTL <= 0 {
		c.ClaimTTL = limits.HostnameClaimTTL
	}
	if c.Recheck <= 0 {
		c.Recheck = limits.HostnameRecheck
	}
	return c
}

// hostnameProblem says what is wrong with host as a site's custom hostname
// ("" when nothing is).
func (s *Service) hostnameProblem(host string) string {
	switch {
	case len(host) > limits.ReaderHostname:
		return fmt.Sprintf("must be at most %d characters", limits.ReaderHostname)
	case !hostnamePattern.MatchString(host):
		return "must be a lower-case host name of at least three labels, like docs.example.com"
	case net.ParseIP(host) != nil:
		return "must be a host name, not an IP address"
	}
	for _, r := range s.hosts.Reserved {
		if r != "" && (host == r || strings.HasSuffix(host, "."+r)) {
			return fmt.Sprintf("%q is reserved: it is a host of the platform, or under one", host)
		}
	}
	return ""
}

// newClaim starts the claim of host (keeping the token of the site's
// claim of the same host).
func (s *Service) newClaim(st Site, host string) *HostnameClaim {
	now := s.clock()
	token := "docspub-verification=" + ids.Random(24, 32)
	if st.HostnameClaim != nil && st.Hostname == host && st.HostnameClaim.Token != "" {
		token = st.HostnameClaim.Token
	}
	return &HostnameClaim{Token: token, State: HostnamePending, ClaimedAt: now, ExpiresAt: now.Add(s.hosts.ClaimTTL)}
}

// sameHostname reports whether cur names the hostname read named, with the
// same claim: a change of the hostname or its claim is a compare-and-set
// on them.
func sameHostname(cur, read Site) bool {
	if read.Hostname == "" {
		return cur.Hostname == ""
	}
	if cur.Hostname != read.Hostname || (cur.HostnameClaim == nil) != (read.HostnameClaim == nil) {
		return false
	}
	return read.HostnameClaim == nil ||
		(cur.HostnameClaim.Token == read.HostnameClaim.Token && cur.HostnameClaim.State == read.HostnameClaim.State)
}

// claimFor is the claim of host when the site read names it next, and
// whether to check it at once: a verified hostname stays verified, setting
// a pending one again checks it now, and another site's verified hostname
// is a conflict (claims not verified yet block nobody).
func (s *Service) claimFor(ctx context.Context, read Site, host string) (*HostnameClaim, bool, error) {
	switch {
	case host == "":
		return nil, false, nil
	case read.HostnameVerified(host):
		return read.HostnameClaim, false, nil
	case read.Hostname == host && read.HostnameClaim != nil && read.HostnameClaim.State == HostnamePending:
		return read.HostnameClaim, true, nil
	}
	holder, err := s.store.HostnameHolder(ctx, host)
	if err == nil && holder.ID != read.ID {
		return nil, false, apierr.Conflict("hostname %q is used by another site", host)
	}
	if err != nil && !errors.Is(err, apierr.ErrNotFound) {
		return nil, false, err
	}
	return s.newClaim(read, host), true, nil
}

// setClaim stores claim as the claim of the site read with a compare-and-set
// on its hostname and claim (a conflict when they changed meanwhile), with
// a site.updated event when announce; a non-zero at is the site's new
// updatedAt.
func (s *Service) setClaim(ctx context.Context, read Site, claim HostnameClaim, announce bool, at time.Time) (Site, error) {
	return s.store.UpdateSite(ctx, read.ID, func(cur *Site) (envelope.Event, error) {
		if !sameHostname(*cur, read) {
			return envelope.Event{}, apierr.Conflict("the site's hostname changed meanwhile; read the site again")
		}
		cur.HostnameClaim = &claim
		if !at.IsZero() {
			cur.UpdatedAt = at
		}
		if !announce {
			return envelope.Event{}, nil
		}
		return s.siteEvent(ctx, sitesapi.NewSiteUpdated, *cur)
	})
}

// CheckHostnames checks, once, up to limits.HostnameChecksPerRound pending
// claims (those checked longest ago first, none checked within Recheck),
// a few at a time; it starts a claim for a hostname set before hostnames
// were verified. It returns how many it checked.
func (s *Service) CheckHostnames(ctx context.Context) (int, error) {
	sts, err := s.store.HostnameClaims(ctx, s.clock().Add(-s.hosts.Recheck), limits.HostnameChecksPerRound)
	if err != nil {
		return 0, err
	}
	g, ctx := errgroup.WithContext(ctx)
	g.SetLimit(limits.HostnameLookups)
	for _, st := range sts {
		g.Go(func() error {
			_, err := s.checkClaim(ctx, st)
			if errors.Is(err, apierr.ErrConflict) || errors.Is(err, apierr.ErrNotFound) {
				return nil // changed or deleted meanwhile: the next round sees it
			}
			return err
		})
	}
	return len(sts), g.Wait()
}

// RunHostnameChecks checks pending claims every interval until ctx is done.
func (s *Service) RunHostnameChecks(ctx context.Context, every time.Duration, log *slog.Logger) error {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		if _, err := s.CheckHostnames(ctx); err != nil && ctx.Err() == nil {
			log.ErrorContext(ctx, "hostname checks", "err", err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// checkClaim checks st's claim once: a claim past its time fails; else its
// TXT record is looked up and, when it holds the token, the site verifies
// the hostname unless another site did first. The result is stored with a
// compare-and-set on the claim (a conflict when the site changed meanwhile).
func (s *Service) checkClaim(ctx context.Context, st Site) (Site, error) {
	now := s.clock()
	if st.HostnameClaim == nil { // named before hostnames were verified
		var err error
		if st, err = s.setClaim(ctx, st, *s.newClaim(st, st.Hostname), true, time.Time{}); err != nil {
			return Site{}, err
		}
	}
	c := *st.HostnameClaim
	if c.State != HostnamePending || st.Hostname == "" {
		return st, nil
	}
	name := ChallengeName(st.Hostname)
	switch {
	case !now.Before(c.ExpiresAt):
		c.State = HostnameFailed
		c.Problem = fmt.Sprintf("expired: no TXT record at %s held the token before %s; set the hostname again to start a new claim",
			name, c.ExpiresAt.Format(time.RFC3339))
	case s.hosts.Resolver == nil:
		c.Problem = "hostnames are not checked on this platform yet"
	default:
		found, problem := s.lookup(ctx, name, c.Token)
		c.CheckedAt, c.Problem = now, problem
		if !found {
			break
		}
		holder, err := s.store.HostnameHolder(ctx, st.Hostname)
		if err == nil && holder.ID != st.ID {
			err = apierr.ErrConflict
		} else if errors.Is(err, apierr.ErrNotFound) {
			err = s.store.VerifyHostname(ctx, st.Hostname, st.Organization, st.ID)
		}
		switch {
		case errors.Is(err, apierr.ErrConflict):
			c.State, c.Problem = HostnameFailed, "another site verified this hostname first"
		case err != nil:
			return Site{}, err
		default:
			c.State, c.Problem, c.VerifiedAt = HostnameVerified, "", &now
		}
	}
	var at time.Time
	changed := c.State != st.HostnameClaim.State
	if changed {
		at = now
	}
	st, err := s.setClaim(ctx, st, c, changed, at)
	if err != nil {
		return Site{}, err
	}
	if c.State == HostnameVerified {
		s.failOtherClaims(ctx, st)
	}
	return st, nil
}

// failOtherClaims fails the pending claims of other sites on the hostname
// st verified (they would fail at their next check anyway).
func (s *Service) failOtherClaims(ctx context.Context, st Site) {
	others, err := s.store.SitesClaiming(ctx, st.Hostname, st.ID)
	if err != nil {
		return
	}
	for _, o := range others {
		c := *o.HostnameClaim
		c.State, c.Problem = HostnameFailed, "another site verified this hostname first"
		_, _ = s.setClaim(ctx, o, c, true, s.clock())
	}
}

// lookup tells whether a TXT record at name holds token, else why not.
func (s *Service) lookup(ctx context.Context, name, token string) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, limits.HostnameLookupTimeout)
	defer cancel()
	txts, err := s.hosts.Resolver.LookupTXT(ctx, name)
	var dnsErr *net.DNSError
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false, fmt.Sprintf("no TXT record at %s yet", name)
	case err != nil:
		return false, fmt.Sprintf("the TXT records at %s could not be looked up; they are looked up again", name)
	}
	for _, t := range txts {
		if strings.TrimSpace(t) == token {
			return true, ""
		}
	}
	return false, fmt.Sprintf("the TXT records at %s do not hold this claim's token", name)
}

// reservedHosts are the hosts of the platform's own URLs (PUBLIC_URL,
// APP_URL, PUBLISHED_URL).
func reservedHosts(u URLs) []string {
	var out []string
	for _, raw := range []string{u.Public, u.App, u.Published} {
		if pu, err := url.Parse(raw); err == nil && pu.Hostname() != "" {
			out = append(out, strings.ToLower(pu.Hostname()))
		}
	}
	return out
}
