// Package hostnames decides which custom hostnames may have a TLS
// certificate from the gateway: only one a site verified, asked of sites
// once per name at a time and kept briefly.
package hostnames

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/sizedcache"
	"golang.org/x/sync/singleflight"
)

// Bounds of the decisions whether a hostname may have a certificate.
const (
	// DecisionTimeout bounds sites' answer: the TLS handshake waits for it.
	DecisionTimeout = 3 * time.Second
	// allowedTTL and deniedTTL are how long a decision is kept: a hostname
	// verified a moment ago gets its certificate within deniedTTL.
	allowedTTL = time.Minute
	deniedTTL  = 10 * time.Second
	// maxDecisions bounds the decisions kept (and maxDecisionBytes their
	// bytes): a flood of made-up names evicts only decisions.
	maxDecisions     = 10_000
	maxDecisionBytes = maxDecisions * 512
	// maxDeciding bounds the questions to sites in progress at once; over
	// it a handshake for a name not decided yet fails.
	maxDeciding = 32
)

// errNotVerified denies a certificate to a hostname no site verified.
var errNotVerified = errors.New("no site verified this hostname")

// decision is whether a hostname may have a certificate, until expires.
type decision struct {
	err     error
	expires time.Time
}

// Decider tells whether a hostname may have a certificate: only one a
// site verified (sites' GET /internal/v1/hostnames/{host}), asked once per
// name at a time and kept briefly.
type Decider struct {
	sites *internalclient.Client
	log   *slog.Logger
	kept  *sizedcache.Cache[string, decision]
	group singleflight.Group
	slots chan struct{}
	now   func() time.Time
}

// New returns a decider that asks sites, a client of the sites service.
func New(sites *internalclient.Client, log *slog.Logger) *Decider {
	return &Decider{sites: sites, log: log, now: time.Now, slots: make(chan struct{}, maxDeciding),
		kept: sizedcache.New[string, decision](maxDecisions, maxDecisionBytes).Observe("tls decisions")}
}

// Allow is certmagic's DecisionFunc: nil when a site verified name.
func (d *Decider) Allow(ctx context.Context, name string) error {
	host := strings.TrimSuffix(name, ".")
	if !plausibleHostname(host) {
		return errNotVerified
	}
	if k, ok := d.kept.Get(host); ok && d.now().Before(k.expires) {
		return k.err
	}
	_, err, _ := d.group.Do(host, func() (any, error) { return nil, d.ask(context.WithoutCancel(ctx), host) })
	return err
}

// ask asks sites about host and keeps the answer; a failure to ask denies
// without being kept.
func (d *Decider) ask(ctx context.Context, host string) error {
	select {
	case d.slots <- struct{}{}:
		defer func() { <-d.slots }()
	default:
		return fmt.Errorf("too many hostnames being checked at once; %s is not checked", host)
	}
	var site sitesapi.Site
	err := d.sites.Do(ctx, internalclient.Request{Method: http.MethodGet, Path: sitesapi.HostnamePath(host),
		Timeout: DecisionTimeout, What: "hostname"}, &site, sitesapi.MaxSiteBytes)
	var k decision
	switch {
	case err == nil:
		k = decision{err: nil, expires: d.now().Add(allowedTTL)}
	case errors.Is(err, apierr.ErrNotFound):
		k = decision{err: errNotVerified, expires: d.now().Add(deniedTTL)}
	default:
		d.log.WarnContext(ctx, "cannot tell whether a hostname is verified", "host", host, "err", err)
		return fmt.Errorf("cannot tell whether %s is verified: %w", host, err)
	}
	d.kept.Set(host, k, int64(len(host))+64)
	return k.err
}

// plausibleHostname tells whether host may be a site's hostname at all: a
// lower-case DNS name of at least two labels, not an IP address (sites
// answers the rest).
func plausibleHostname(host string) bool {
	if len(host) > sitesapi.MaxHostname || !strings.Contains(host, ".") {
		return false
	}
	digitsAndDots := true
	for i := 0; i < len(host); i++ {
		c := host[i]
		switch {
		case c >= 'a' && c <= 'z', c == '-':
			digitsAndDots = false
		case c >= '0' && c <= '9', c == '.':
		default:
			return false
		}
	}
	return !digitsAndDots
}
