// Package customtls serves sites' custom hostnames over TLS from the
// gateway, with certificates obtained on demand from an ACME CA
// (certmagic) and kept in Redis (certstore).
//
// Sites' custom hostnames (a site's hostname its owner verified with a TXT
// record, see the sites service) reach the gateway directly, not through
// the platform's Ingress: a LoadBalancer sends their port 443 to TLS_ADDR
// and their port 80 to ACME_HTTP_ADDR. On TLS_ADDR the gateway terminates
// TLS with a certificate obtained on demand from an ACME CA (certmagic) at
// the first handshake for the hostname, and renewed before it expires; a
// hostname gets one only when sites says a site verified it (internal/hostnames),
// else the handshake fails and the CA is never asked. Certificates, keys
// and the ACME state live in Redis (certstore), shared by every replica:
// one obtains, all serve, and a challenge one started is answered by
// whichever the CA reaches (HTTP-01 on ACME_HTTP_ADDR, TLS-ALPN-01 on
// TLS_ADDR).
package customtls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/docspub/platform/gateway/internal/certstore"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/httpx"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
)

// Config is how custom hostnames are served over TLS.
type Config struct {
	// Addr is the TLS listener of custom hostnames; empty: off.
	Addr string `env:"TLS_ADDR"`
	// HTTPAddr is the plain HTTP listener of custom hostnames: it answers
	// ACME HTTP-01 challenges and redirects everything else to https.
	// Empty: no such listener, and no HTTP-01 challenge.
	HTTPAddr string `env:"ACME_HTTP_ADDR"`
	// CA is the ACME directory URL.
	CA string `env:"ACME_CA, default=https://acme-v02.api.letsencrypt.org/directory"`
	// Email is the ACME account's contact (the CA's expiry notices).
	Email string `env:"ACME_EMAIL"`
	// CARoot is a PEM file of the roots the CA's own TLS certificate is
	// checked against (a private CA, tests); empty: the system's.
	CARoot string `env:"ACME_CA_ROOT"`
	// TLSALPN enables the TLS-ALPN-01 challenge on Addr.
	TLSALPN bool `env:"ACME_TLS_ALPN, default=true"`
}

// Check records the configuration's problems (none when off); addr is
// the API's listen address (ADDR), which neither listener may share.
func (c Config) Check(p *config.Problems, addr string) {
	if c.Addr == "" {
		if c.HTTPAddr != "" {
			p.Addf("ACME_HTTP_ADDR: needs TLS_ADDR (custom hostnames over TLS)")
		}
		return
	}
	checkAddr(p, "TLS_ADDR", c.Addr)
	if c.HTTPAddr != "" {
		checkAddr(p, "ACME_HTTP_ADDR", c.HTTPAddr)
	}
	for _, a := range []string{c.HTTPAddr, addr} {
		if a == c.Addr {
			p.Addf("TLS_ADDR: must differ from ADDR and ACME_HTTP_ADDR")
		}
	}
	if c.HTTPAddr == addr {
		p.Addf("ACME_HTTP_ADDR: must differ from ADDR (the API's listener)")
	}
	if u, err := url.Parse(c.CA); err != nil || u.Scheme != "https" || u.Host == "" {
		p.Addf("ACME_CA: must be the https URL of an ACME directory")
	}
	if c.Email != "" && (!strings.Contains(c.Email, "@") || len(c.Email) > 254) {
		p.Addf("ACME_EMAIL: must be an email address")
	}
	if c.CARoot != "" {
		if _, err := rootPool(c.CARoot); err != nil {
			p.Addf("ACME_CA_ROOT: %v", err)
		}
	}
	if c.HTTPAddr == "" && !c.TLSALPN {
		p.Addf("ACME_TLS_ALPN: with no ACME_HTTP_ADDR, must be true: no challenge would be left")
	}
}

// checkAddr records a problem of a listen address (host:port).
func checkAddr(p *config.Problems, name, addr string) {
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		p.Addf("%s: must be host:port, like :8443", name)
	}
}

// rootPool reads the PEM certificates of file.
func rootPool(file string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate in " + file)
	}
	return pool, nil
}

// storagePrefix namespaces the certificates' keys in Redis.
const storagePrefix = "docspub:certmagic:"

// Timings of certificates.
const (
	// certObtainTimeout bounds one issuance (the handshake waiting for it
	// included): certmagic retries a failed one with its backoff, in the
	// background for renewals.
	certObtainTimeout = 90 * time.Second
	// renewalWindow is the part of a certificate's lifetime left when it is
	// renewed (a third: 30 days of Let's Encrypt's 90).
	renewalWindow = 1.0 / 3
)

// Deps are what serving custom hostnames needs.
type Deps struct {
	// Redis holds the certificates, their keys and the ACME state.
	Redis *redis.Client
	// Allow decides whether a hostname may have a certificate
	// (internal/hostnames); an error refuses it.
	Allow func(ctx context.Context, name string) error
	// Handler serves the requests of custom hostnames over TLS.
	Handler http.Handler
	// Listener wraps each listener as the API's is (PROXY_PROTOCOL).
	Listener func(net.Listener) net.Listener
	// Log receives certmagic's lines, under component tls.
	Log *slog.Logger
}

// customTLS is certmagic set up for custom hostnames.
type customTLS struct {
	magic  *certmagic.Config
	issuer *certmagic.ACMEIssuer
	cache  *certmagic.Cache
}

// newCustomTLS sets certmagic up for the listeners at tlsAddr and, when
// not nil, httpAddr: its challenge solvers find them taken (by us) and
// start no server of their own.
func newCustomTLS(c Config, d Deps, tlsAddr, httpAddr net.Addr) (*customTLS, error) {
	var roots *x509.CertPool
	if c.CARoot != "" {
		var err error
		if roots, err = rootPool(c.CARoot); err != nil {
			return nil, fmt.Errorf("ACME_CA_ROOT: %w", err)
		}
	}
	logger := zapLogger(d.Log)
	ct := &customTLS{}
	ct.cache = certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(certmagic.Certificate) (*certmagic.Config, error) { return ct.magic, nil },
		Capacity:         maxCachedCerts,
		Logger:           logger,
	})
	ct.magic = certmagic.New(ct.cache, certmagic.Config{
		RenewalWindowRatio: renewalWindow,
		OnDemand:           &certmagic.OnDemandConfig{DecisionFunc: d.Allow},
		Storage:            certstore.New(d.Redis, storagePrefix),
		Logger:             logger,
	})
	host, tlsPort := hostPort(tlsAddr)
	ct.issuer = certmagic.NewACMEIssuer(ct.magic, certmagic.ACMEIssuer{
		CA: c.CA, Email: c.Email, Agreed: true, TrustedRoots: roots,
		CertObtainTimeout:       certObtainTimeout,
		DisableHTTPChallenge:    httpAddr == nil,
		DisableTLSALPNChallenge: !c.TLSALPN,
		ListenHost:              host,
		AltTLSALPNPort:          tlsPort,
		Logger:                  logger,
	})
	if httpAddr != nil {
		_, ct.issuer.AltHTTPPort = hostPort(httpAddr)
	}
	ct.magic.Issuers = []certmagic.Issuer{ct.issuer}
	return ct, nil
}

// maxCachedCerts bounds the certificates kept in memory; others are
// loaded from Redis at their handshake.
const maxCachedCerts = 10_000

// hostPort splits a listener's address ("" for an unspecified host).
func hostPort(a net.Addr) (string, int) {
	host, port, _ := net.SplitHostPort(a.String())
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = ""
	}
	n, _ := strconv.Atoi(port)
	return host, n
}

// Serve serves custom hostnames until ctx is done: TLS on tlsLn
// (d.Handler, TLS-ALPN-01 challenges) and, when httpLn is not nil, plain
// HTTP on it (HTTP-01 challenges, else a redirect to https). Both are
// wrapped by d.Listener.
func Serve(ctx context.Context, c Config, d Deps, tlsLn, httpLn net.Listener) error {
	var httpAddr net.Addr
	if httpLn != nil {
		httpAddr = httpLn.Addr()
	}
	ct, err := newCustomTLS(c, d, tlsLn.Addr(), httpAddr)
	if err != nil {
		return err
	}
	defer ct.cache.Stop()
	tc := ct.magic.TLSConfig()
	tc.MinVersion = tls.VersionTLS12
	tc.NextProtos = append([]string{"h2", "http/1.1"}, tc.NextProtos...)
	eg, ctx := errgroup.WithContext(ctx)
	eg.Go(func() error { return httpx.Serve(ctx, tls.NewListener(d.Listener(tlsLn), tc), d.Handler, d.Log) })
	if httpLn != nil {
		h := ct.issuer.HTTPChallengeHandler(http.HandlerFunc(redirectToHTTPS))
		eg.Go(func() error { return httpx.Serve(ctx, d.Listener(httpLn), h, d.Log) })
	}
	return eg.Wait()
}

// redirectToHTTPS answers a plain HTTP request of a custom hostname: a
// GET or HEAD is sent to the same URL over https (308), anything else is
// refused (the API is not served in plain text there).
func redirectToHTTPS(w http.ResponseWriter, r *http.Request) {
	host, _, err := net.SplitHostPort(r.Host)
	if err != nil {
		host = r.Host
	}
	if host == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"error":{"code":400,"message":"use https"}}`))
		return
	}
	http.Redirect(w, r, "https://"+host+r.URL.RequestURI(), http.StatusPermanentRedirect)
}

// Listen listens on TLS_ADDR and ACME_HTTP_ADDR (none when empty) and
// serves them until ctx is done (Serve).
func Listen(ctx context.Context, c Config, d Deps) error {
	tlsLn, err := net.Listen("tcp", c.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", c.Addr, err)
	}
	var httpLn net.Listener
	if c.HTTPAddr != "" {
		if httpLn, err = net.Listen("tcp", c.HTTPAddr); err != nil {
			_ = tlsLn.Close()
			return fmt.Errorf("listen %s: %w", c.HTTPAddr, err)
		}
	}
	d.Log.InfoContext(ctx, "custom hostnames over TLS", "tls", c.Addr, "http", c.HTTPAddr, "ca", c.CA)
	return Serve(ctx, c, d, tlsLn, httpLn)
}
