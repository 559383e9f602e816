package local

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/sites"
)

// running is a component started through its command's Run, as its
// container starts it.
type running struct {
	stop func()
	done chan error
}

func startRun(t *testing.T, run func(ctx context.Context) error) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{stop: cancel, done: make(chan error, 1)}
	go func() { r.done <- run(ctx) }()
	stop := sync.OnceFunc(func() {
		cancel()
		if err := <-r.done; err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("stopped with %v", err)
		}
	})
	r.stop = stop
	t.Cleanup(stop)
	return r
}

// With DISCOVERY=consul, every service registers itself, the gateway and
// sites' content client find them in Consul, and one service (content, two
// instances) is rolled alone: while one instance stops, every request
// through the gateway still succeeds, and the stopped one leaves Consul.
func TestPlatformOnConsulRollsOneServiceAlone(t *testing.T) {
	inProcessOnly(t)
	agent := consultest.Start(t)
	dir := t.TempDir()
	log := logx.Discard()
	mongo, err := embedded.StartMongo(filepath.Join(dir, "mongo"), "", log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mongo.Close)
	kafka, err := embedded.StartKafka(0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(kafka.Close)
	rds, err := embedded.StartRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rds.Close)

	common := map[string]string{
		"MONGO_URI": mongo.URI, "KAFKA_BROKERS": strings.Join(kafka.Brokers, ","),
		"INTERNAL_TOKEN_SECRET": strings.Repeat("s", 32), "LOG_LEVEL": "error",
		"DISCOVERY": "consul", "CONSUL_HTTP_ADDR": agent.Addr,
		// Static addresses that lead nowhere: only Consul can find the services.
		"CONTENT_URL": "http://127.0.0.1:1",
	}
	env := func(extra ...string) map[string]string {
		m := map[string]string{}
		for k, v := range common {
			m[k] = v
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	load := func(cfg any, m map[string]string) {
		t.Helper()
		if err := config.LoadMap(context.Background(), cfg, m); err != nil {
			t.Fatal(err)
		}
	}
	var (
		idCfg   identity.Config
		ctCfg   content.Config
		siteCfg sites.Config
		gwCfg   gateway.Config
	)
	load(&idCfg, env("IDENTITY_ADDR", "127.0.0.1:0"))
	load(&ctCfg, env("CONTENT_ADDR", "127.0.0.1:0", "BLOB_URL", "file://"+t.TempDir()))
	load(&siteCfg, env("SITES_ADDR", "127.0.0.1:0"))
	gwAddr := freeAddr()
	// No rate limit: the roll below sends requests back to back for as long
	// as an instance drains, which may pass 600 a minute.
	load(&gwCfg, env("ADDR", gwAddr, "REDIS_URL", "redis://"+rds.Addr()+"/0", "RATE_LIMIT", "0",
		"UPSTREAMS", "identity=http://127.0.0.1:1,content=http://127.0.0.1:1,sites=http://127.0.0.1:1"))

	quiet := func(name string) *slog.Logger { return log.With("service", name) }
	// As the init container does before content's replicas serve.
	if _, err := content.Migrate(context.Background(), ctCfg.Migration(), quiet("content migrate"), false); err != nil {
		t.Fatal(err)
	}
	startRun(t, func(ctx context.Context) error { return identity.Run(ctx, idCfg, quiet("identity")) })
	content1 := startRun(t, func(ctx context.Context) error { return content.Run(ctx, ctCfg, quiet("content")) })
	startRun(t, func(ctx context.Context) error { return content.Run(ctx, ctCfg, quiet("content")) })
	startRun(t, func(ctx context.Context) error { return sites.Run(ctx, siteCfg, quiet("sites")) })
	startRun(t, func(ctx context.Context) error { return gateway.Run(ctx, gwCfg, quiet("gateway")) })

	for service, n := range map[string]int{"identity": 1, "content": 2, "sites": 1} {
		waittest.Until(t, fmt.Sprintf("%d passing %s instance(s) in consul", n, service), 60*time.Second, func() bool {
			return len(agent.Passing(t, service)) == n
		})
	}
	mc, err := mongox.Connect(context.Background(), mongo.URI)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mc.Disconnect(context.Background()) })
	boot, err := identity.Bootstrap(context.Background(), mc.Database(idCfg.Database), identity.BootstrapInput{
		OrganizationTitle: "Acme", UserDisplayName: "Ada", UserEmail: "ada@acme.example", Role: roles.Admin})
	if err != nil {
		t.Fatal(err)
	}
	admin := client{t: t, base: "http://" + gwAddr, token: boot.Token}
	org := "/v1/orgs/" + boot.OrganizationID
	waittest.Until(t, "the gateway to answer through consul", 30*time.Second, func() bool {
		return admin.do("GET", org, nil).Status == http.StatusOK
	})
	space := str(admin.status(http.StatusCreated, "POST", org+"/spaces", map[string]any{"title": "Handbook"}).json(t), "id")
	// sites asks content (found in Consul, not at CONTENT_URL) whether the space may be added.
	admin.status(http.StatusCreated, "POST", org+"/sites", map[string]any{"title": "Docs", "spaces": []string{space}})

	// Roll content: one instance stops (deregisters, then drains) while
	// requests keep coming; none fails.
	stopped := make(chan struct{})
	go func() {
		content1.stop()
		close(stopped)
	}()
	for i := 0; ; i++ {
		admin.status(http.StatusOK, "GET", "/v1/spaces/"+space, nil)
		select {
		case <-stopped:
		default:
			continue
		}
		if i > 0 {
			break
		}
	}
	if got := agent.Registered(t, "content"); len(got) != 1 {
		t.Errorf("content instances registered after one stopped: %v, want 1", got)
	}
	for range 20 {
		admin.status(http.StatusOK, "GET", "/v1/spaces/"+space, nil)
	}
}
