package gateway_test

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/letsencrypt/pebble/v2/ca"
	"github.com/letsencrypt/pebble/v2/db"
	"github.com/letsencrypt/pebble/v2/va"
	"github.com/letsencrypt/pebble/v2/wfe"
	"github.com/miekg/dns"
)

// acmeCA is Pebble, a real ACME server, run in the test: its VA checks
// challenges by connecting to the gateway's listeners (httpPort for
// HTTP-01, tlsPort for TLS-ALPN-01) at the address its DNS server gives
// for every name, 127.0.0.1.
type acmeCA struct {
	url      string         // the ACME directory
	rootFile string         // PEM of the directory's own TLS certificate (ACME_CA_ROOT)
	roots    *x509.CertPool // the root of the certificates it issues
	orders   atomic.Int64   // new orders received
}

func startACME(t *testing.T, httpPort, tlsPort int) *acmeCA {
	t.Helper()
	// Validations at once, and no nonce refused on purpose: the test
	// counts orders. (Challenges are still really validated.)
	t.Setenv("PEBBLE_VA_NOSLEEP", "1")
	t.Setenv("PEBBLE_WFE_NONCEREJECT", "0")
	logger := log.New(io.Discard, "", 0)
	store := db.NewMemoryStore()
	issuer := ca.New(logger, store, "", "ecdsa", 0, 1, map[string]ca.Profile{"default": {Description: "default"}})
	validator := va.New(logger, httpPort, tlsPort, false, startDNS(t), store)
	front := wfe.New(logger, store, validator, issuer, []string{"pebble.letsencrypt.org"}, false, false, 1, 1)
	a := &acmeCA{roots: x509.NewCertPool()}
	h := front.Handler()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/order-plz" {
			a.orders.Add(1)
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	a.url = srv.URL + wfe.DirectoryPath
	a.rootFile = filepath.Join(t.TempDir(), "acme-root.pem")
	raw := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	if err := os.WriteFile(a.rootFile, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	a.roots.AddCert(issuer.GetRootCert(0).Cert)
	return a
}

// startDNS serves, over TCP (Pebble's VA asks over TCP), 127.0.0.1 as the
// address of every name, and no IPv6 address.
func startDNS(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	srv := &dns.Server{Listener: ln, NotifyStartedFunc: func() { close(started) },
		Handler: dns.HandlerFunc(func(w dns.ResponseWriter, req *dns.Msg) {
			m := new(dns.Msg)
			m.SetReply(req)
			for _, q := range req.Question {
				if q.Qtype == dns.TypeA {
					m.Answer = append(m.Answer, &dns.A{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeA, Class: dns.ClassINET}, A: net.IPv4(127, 0, 0, 1)})
				}
			}
			_ = w.WriteMsg(m)
		})}
	go func() { _ = srv.ActivateAndServe() }()
	<-started
	t.Cleanup(func() { _ = srv.Shutdown() })
	return ln.Addr().String()
}

// tlsSites stands in for sites: its hostname lookup knows the verified
// hostnames (and counts the questions), its reader answers a page naming
// the host it was asked for.
type tlsSites struct {
	srv      *httptest.Server
	lookups  atomic.Int64
	verified map[string]bool
}

func newTLSSites(t *testing.T, verified ...string) *tlsSites {
	t.Helper()
	verify, err := internaltoken.NewSigner(sitesapi.Service, secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	s := &tlsSites{verified: map[string]bool{}}
	for _, h := range verified {
		s.verified[h] = true
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /internal/v1/hostnames/{host}", func(w http.ResponseWriter, r *http.Request) {
		s.lookups.Add(1)
		w.Header().Set("Content-Type", "application/json")
		if p, err := verify.Verify(r.Header.Get(internaltoken.Header)); err != nil || p.Service != "gateway" {
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"error":{"code":403,"message":"not the gateway"}}`)
			return
		}
		if !s.verified[r.PathValue("host")] {
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":{"code":404,"message":"site not found"}}`)
			return
		}
		_ = json.NewEncoder(w).Encode(sitesapi.Site{ID: "site1", Organization: "org1"})
	})
	mux.HandleFunc("/reader/", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "published page of "+r.Header.Get("X-Forwarded-Host")+" at "+strings.TrimPrefix(r.URL.Path, "/reader"))
	})
	s.srv = httptest.NewServer(mux)
	t.Cleanup(s.srv.Close)
	return s
}

// tlsGateway is a gateway replica serving custom hostnames on its own
// listeners.
type tlsGateway struct {
	tlsAddr, httpAddr string
}

// listen returns a loopback listener.
func listen(t *testing.T) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func port(ln net.Listener) int { return ln.Addr().(*net.TCPAddr).Port }

// startTLSGateway starts a gateway replica on tlsLn and httpLn (nil: no
// HTTP-01) with the configuration env adds to, until the test ends.
func startTLSGateway(t *testing.T, a *acmeCA, sites *tlsSites, tlsLn, httpLn net.Listener, env map[string]string) *tlsGateway {
	t.Helper()
	ups := discovery.Static{"identity": "http://" + closedAddr(t), "sites": sites.srv.URL}
	vars := map[string]string{"INTERNAL_TOKEN_SECRET": secret, "UPSTREAMS": ups.String(), "READER_CACHE_BYTES": "0",
		"TLS_ADDR": tlsLn.Addr().String(), "ACME_CA": a.url, "ACME_CA_ROOT": a.rootFile, "ACME_EMAIL": "ops@docspub.test"}
	gw := &tlsGateway{tlsAddr: tlsLn.Addr().String()}
	if httpLn != nil {
		vars["ACME_HTTP_ADDR"] = httpLn.Addr().String()
		gw.httpAddr = httpLn.Addr().String()
	}
	for k, v := range env {
		vars[k] = v
	}
	var cfg gateway.Config
	if err := config.LoadMap(context.Background(), &cfg, vars); err != nil {
		t.Fatal(err)
	}
	g, err := gateway.New(cfg, gateway.Deps{Redis: newRedis(t), Resolver: ups, Log: logx.ForTest(t)})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.ServeCustomHostnames(ctx, tlsLn, httpLn) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve custom hostnames: %v", err)
		}
	})
	return gw
}

// get reads https://host/path from the replica, trusting only roots; it
// returns the body and the certificate served.
func (gw *tlsGateway) get(host, path string, roots *x509.CertPool) (string, *x509.Certificate, error) {
	var served *x509.Certificate
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots, ServerName: host,
			VerifyConnection: func(cs tls.ConnectionState) error { served = cs.PeerCertificates[0]; return nil }},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, gw.tlsAddr)
		},
	}
	defer tr.CloseIdleConnections()
	c := &http.Client{Transport: tr, Timeout: 15 * time.Second}
	res, err := c.Get("https://" + host + path)
	if err != nil {
		return "", nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return string(b), served, err
}

// wantPage checks that the replica serves host's page over TLS with a
// certificate of the CA for host, and returns that certificate.
func (gw *tlsGateway) wantPage(t *testing.T, a *acmeCA, host string) *x509.Certificate {
	t.Helper()
	body, cert, err := gw.get(host, "/guide/start", a.roots)
	if err != nil {
		t.Fatalf("GET https://%s/guide/start: %v", host, err)
	}
	if want := "published page of " + host + " at /guide/start"; body != want {
		t.Fatalf("body %q, want %q", body, want)
	}
	if err := cert.VerifyHostname(host); err != nil {
		t.Fatal(err)
	}
	return cert
}

// A verified hostname gets a certificate from the CA at its first
// handshake, by TLS-ALPN-01 alone (no HTTP listener, HTTP-01 off), and is
// served the site's page over TLS; an unverified one gets no certificate
// (the handshake fails) and the CA is never asked.
func TestCustomHostnameTLSALPN(t *testing.T) {
	tlsLn := listen(t)
	a := startACME(t, 1, port(tlsLn)) // port 1: an HTTP-01 validation would fail
	sites := newTLSSites(t, "docs.customer.test")
	gw := startTLSGateway(t, a, sites, tlsLn, nil, nil)

	gw.wantPage(t, a, "docs.customer.test")
	if n := a.orders.Load(); n != 1 {
		t.Errorf("orders = %d, want 1", n)
	}
	// Served again from memory: no new order.
	gw.wantPage(t, a, "docs.customer.test")

	for _, host := range []string{"evil.customer.test", "evil.customer.test", "10.0.0.1", "localhost"} {
		if _, _, err := gw.get(host, "/", a.roots); err == nil || !strings.Contains(err.Error(), "tls") {
			t.Errorf("unverified %s: err = %v, want a failed handshake", host, err)
		}
	}
	if n := a.orders.Load(); n != 1 {
		t.Errorf("orders after unverified hostnames = %d, want 1", n)
	}
	// Sites was asked once per plausible name: the denial is kept, and an
	// IP address or a one-label name is not asked about.
	if n := sites.lookups.Load(); n != 2 {
		t.Errorf("hostname lookups = %d, want 2", n)
	}
}

// HTTP-01 alone (TLS-ALPN-01 off): the CA fetches the challenge from the
// gateway's plain HTTP listener; that listener redirects anything else to
// https and refuses what is not a read.
func TestCustomHostnameHTTP01(t *testing.T) {
	tlsLn, httpLn := listen(t), listen(t)
	a := startACME(t, port(httpLn), 1) // port 1: a TLS-ALPN-01 validation would fail
	sites := newTLSSites(t, "help.customer.test")
	gw := startTLSGateway(t, a, sites, tlsLn, httpLn, map[string]string{"ACME_TLS_ALPN": "false"})

	gw.wantPage(t, a, "help.customer.test")
	if n := a.orders.Load(); n != 1 {
		t.Errorf("orders = %d, want 1", n)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	req, _ := http.NewRequest(http.MethodGet, "http://"+gw.httpAddr+"/guide?x=1", nil)
	req.Host = "help.customer.test"
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if loc := res.Header.Get("Location"); res.StatusCode != http.StatusPermanentRedirect || loc != "https://help.customer.test/guide?x=1" {
		t.Errorf("plain GET: %d to %q", res.StatusCode, loc)
	}
	req, _ = http.NewRequest(http.MethodPost, "http://"+gw.httpAddr+"/v1/orgs", strings.NewReader("{}"))
	req.Host = "help.customer.test"
	if res, err = c.Do(req); err != nil {
		t.Fatal(err)
	}
	errorBody(t, res, http.StatusBadRequest)
}

// Two replicas, two processes (certmagic also dedupes issuance within a
// process), share one Redis: concurrent first handshakes for one hostname
// on both make one order, and both serve that certificate. The CA's
// validations reach replica a only (as a load balancer may send them):
// replica b's challenges are answered by a from the shared storage.
func TestCustomHostnameSharedByReplicas(t *testing.T) {
	tlsA := listen(t)
	a := startACME(t, 1, port(tlsA))
	sites := newTLSSites(t, "shared.customer.test")
	ga := startTLSGateway(t, a, sites, tlsA, nil, nil)
	gb := startReplicaProcess(t, a, sites)

	certs := make([]*x509.Certificate, 2)
	var wg sync.WaitGroup
	for i, gw := range []*tlsGateway{ga, gb} {
		wg.Go(func() {
			_, cert, err := gw.get("shared.customer.test", "/", a.roots)
			if err != nil {
				t.Errorf("replica %d: %v", i, err)
			}
			certs[i] = cert
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	if n := a.orders.Load(); n != 1 {
		t.Errorf("orders = %d, want 1", n)
	}
	if !certs[0].Equal(certs[1]) {
		t.Errorf("the replicas serve different certificates: serials %s and %s", certs[0].SerialNumber, certs[1].SerialNumber)
	}
	// A third replica, started later, loads it from Redis: no new order.
	gc := startTLSGateway(t, a, sites, listen(t), nil, nil)
	if cert := gc.wantPage(t, a, "shared.customer.test"); !cert.Equal(certs[0]) || a.orders.Load() != 1 {
		t.Errorf("a later replica: serial %s, %d orders", cert.SerialNumber, a.orders.Load())
	}
}

// replicaEnv names what TestTLSReplicaProcess serves with.
const (
	replicaACME, replicaACMERoot, replicaSites = "TLS_REPLICA_ACME", "TLS_REPLICA_ACME_ROOT", "TLS_REPLICA_SITES"
)

// startReplicaProcess runs a second gateway replica in another process
// (this test binary, running TestTLSReplicaProcess) on the same CA, sites
// and Redis, until the test ends.
func startReplicaProcess(t *testing.T, a *acmeCA, sites *tlsSites) *tlsGateway {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestTLSReplicaProcess$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), replicaACME+"="+a.url, replicaACMERoot+"="+a.rootFile, replicaSites+"="+sites.srv.URL,
		"REDIS_URL="+redisURL)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the replica stops when its stdin ends
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if a, ok := strings.CutPrefix(sc.Text(), "replica listening on "); ok {
				addr <- a
			}
		}
	}()
	select {
	case a := <-addr:
		return &tlsGateway{tlsAddr: a}
	case <-time.After(60 * time.Second):
		t.Fatal("the replica process did not start within 60 s")
		return nil
	}
}

// TestTLSReplicaProcess is the second process of
// TestCustomHostnameSharedByReplicas: a gateway replica serving custom
// hostnames until its stdin ends. Alone, it skips.
func TestTLSReplicaProcess(t *testing.T) {
	if os.Getenv(replicaACME) == "" {
		t.Skip("the second replica process of TestCustomHostnameSharedByReplicas")
	}
	a := &acmeCA{url: os.Getenv(replicaACME), rootFile: os.Getenv(replicaACMERoot)}
	sites := &tlsSites{srv: &httptest.Server{URL: os.Getenv(replicaSites)}}
	ln := listen(t)
	startTLSGateway(t, a, sites, ln, nil, nil)
	fmt.Println("replica listening on " + ln.Addr().String())
	_, _ = io.Copy(io.Discard, os.Stdin)
}
