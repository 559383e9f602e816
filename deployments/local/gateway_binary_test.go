package local

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/redistest"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/sites"
)

// TestGatewayBinaryEndsAccessAtOnce builds the gateway command and runs it,
// as deployed, in front of an in-process identity and sites (embedded
// MongoDB, kfake, a Redis of its own) with a token cache TTL of ten minutes:
// a revoked token is refused, and a removed member's token loses the
// organization, within a second, because the command itself consumes
// identity.events.
func TestGatewayBinaryEndsAccessAtOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	bin := filepath.Join(t.TempDir(), "gateway")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/docspub/platform/gateway/cmd/gateway").CombinedOutput(); err != nil {
		t.Fatalf("go build the gateway: %v\n%s", err, out)
	}

	mongo, err := embedded.StartMongo(t.TempDir(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mongo.Close)
	kafka := kafkatest.Start(t)
	rdb := redistest.Client(t)
	const secret = "binary-test-secret-binary-test-secret-0123"

	id, err := identity.New(ctx, identity.Config{Base: service.Base{MongoURI: mongo.URI, Kafka: kafkax.Config{Brokers: kafka.Brokers}, InternalTokenSecret: secret, LogLevel: "warn"},
		URLs: service.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: "identity"}, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = id.Close(context.Background()) })
	id.RunBackground(ctx)
	idSrv := serveTest(t, id.Handler())

	var sitesCfg sites.Config
	if err := config.LoadMap(ctx, &sitesCfg, map[string]string{
		"SITES_ADDR": "127.0.0.1:0", "MONGO_URI": mongo.URI, "KAFKA_BROKERS": strings.Join(kafka.Brokers, ","),
		"CONTENT_URL": "http://127.0.0.1:1", "INTERNAL_TOKEN_SECRET": secret, "LOG_LEVEL": "warn",
	}); err != nil {
		t.Fatal(err)
	}
	st, err := sites.New(ctx, sitesCfg, logx.Discard())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close(context.Background()) })
	st.RunBackground(ctx)
	sitesSrv := serveTest(t, st.Handler())

	gw := startGateway(t, bin, map[string]string{
		"UPSTREAMS":             "identity=" + idSrv + ",sites=" + sitesSrv,
		"REDIS_URL":             redisURL(rdb.Options().Addr, rdb.Options().Password, rdb.Options().DB),
		"KAFKA_BROKERS":         strings.Join(kafka.Brokers, ","),
		"INTERNAL_TOKEN_SECRET": secret,
		"AUTH_CACHE_TTL":        "10m",
		"LOG_LEVEL":             "info",
	})

	boot := func(org, email string, role roles.Role) identity.BootstrapResult {
		t.Helper()
		r, err := identity.Bootstrap(ctx, id.Database(), identity.BootstrapInput{OrganizationID: org, OrganizationTitle: "Acme",
			UserDisplayName: strings.Split(email, "@")[0], UserEmail: email, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	admin := boot("", "ada@acme.test", roles.Admin)
	org := admin.OrganizationID
	sitesPath := "/v1/orgs/" + org + "/sites"
	status := func(method, path, token string) int {
		t.Helper()
		req, err := http.NewRequest(method, gw+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	cached := func(token string) bool {
		n, err := rdb.Exists(ctx, "gateway:token:"+gateway.TokenHash(token)).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	// mustCache makes the gateway cache a token's resolution. Bootstrap's
	// member.created reaches the gateway in the background and rightly
	// drops the user's cached tokens (or keeps a resolution in flight from
	// being cached), so the request is repeated until it is cached.
	mustCache := func(token string) {
		t.Helper()
		waittest.Until(t, "the token's resolution to be cached", 30*time.Second, func() bool {
			if got := status("GET", sitesPath, token); got != http.StatusOK {
				t.Fatalf("GET %s = %d, want 200", sitesPath, got)
			}
			return cached(token)
		})
	}
	// settled waits until the gateway handled a booted user's
	// member.created (it remembers when it forgot the user's tokens), so
	// that the event cannot drop the cache the test checks afterwards.
	settled := func(b identity.BootstrapResult) identity.BootstrapResult {
		t.Helper()
		waittest.Until(t, "the gateway to handle member.created", 30*time.Second, func() bool {
			n, err := rdb.Exists(ctx, "gateway:forgot:user:"+b.UserID).Result()
			if err != nil {
				t.Fatal(err)
			}
			return n == 1
		})
		return b
	}

	// The gateway's consumer joins its group in the background: a first
	// revocation, waited for with a generous deadline, shows it is running.
	warm := boot(org, "warm@acme.test", roles.Read)
	mustCache(warm.Token)
	if err := id.RevokeToken(ctx, warm.TokenID); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the gateway to consume identity.events", 60*time.Second, func() bool {
		return status("GET", sitesPath, warm.Token) == http.StatusUnauthorized
	})

	// A revoked token: refused within a second.
	victim := settled(boot(org, "vic@acme.test", roles.Read))
	mustCache(victim.Token)
	start := time.Now()
	if err := id.RevokeToken(ctx, victim.TokenID); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the revoked token to be refused", time.Second, func() bool {
		return status("GET", sitesPath, victim.Token) == http.StatusUnauthorized
	})
	t.Logf("revoked token refused %v after the revocation", time.Since(start).Round(time.Millisecond))

	// A removed member: the organization is gone from their token within a
	// second (sites trusts the roles the gateway forwards).
	reader := settled(boot(org, "rex@acme.test", roles.Read))
	mustCache(reader.Token)
	start = time.Now()
	if got := status("DELETE", "/v1/orgs/"+org+"/members/"+reader.UserID, admin.Token); got != http.StatusNoContent {
		t.Fatalf("remove member: %d, want 204", got)
	}
	waittest.Until(t, "the removed member's token to lose the organization", time.Second, func() bool {
		return status("GET", sitesPath, reader.Token) == http.StatusNotFound
	})
	t.Logf("removed member lost access %v after the removal", time.Since(start).Round(time.Millisecond))
	if got := status("GET", sitesPath, admin.Token); got != http.StatusOK {
		t.Errorf("the admin's access: %d, want 200", got)
	}
}

// serveTest serves h on a loopback port until the test ends and returns its URL.
func serveTest(t *testing.T, h http.Handler) string {
	t.Helper()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String()
}

func redisURL(addr, password string, db int) string {
	u := url.URL{Scheme: "redis", Host: addr, Path: fmt.Sprintf("/%d", db)}
	if password != "" {
		u.User = url.UserPassword("", password)
	}
	return u.String()
}

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startGateway runs the gateway binary with env only (nothing inherited) on a
// port of its choosing until the test ends, when it gets SIGTERM and must
// exit cleanly; it returns the gateway's URL once it is ready.
func startGateway(t *testing.T, bin string, env map[string]string) string {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = []string{"ADDR=127.0.0.1:0"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
			if waitErr != nil {
				t.Errorf("gateway exit: %v\n%s", waitErr, out.String())
			}
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			t.Errorf("gateway did not stop within 30 s of SIGTERM\n%s", out.String())
		}
	})
	// The address it listens on is in its log: {"msg":"listening","addr":"127.0.0.1:port"}.
	listening := regexp.MustCompile(`"msg":"listening"[^\n]*"addr":"([^"]+)"`)
	var url string
	waittest.Until(t, "the gateway to be ready", 30*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("gateway exited: %v\n%s", waitErr, out.String())
		default:
		}
		if url == "" {
			m := listening.FindStringSubmatch(out.String())
			if m == nil {
				return false
			}
			url = "http://" + m[1]
		}
		resp, err := http.Get(url + "/readyz")
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return url
}
