package local

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// With E2E_CLUSTER set (`make test-long`), the end-to-end tests' API part
// runs against `make cluster`'s processes (2 replicas of every service, 2
// gateways, Consul): one cluster for the package, and for each test fresh
// organizations, users and tokens in it, as a fresh platform would seed
// them. Tests that drive the in-process platform itself (stop a service or
// Kafka, set a clock or a configuration of their own) skip there.
var e2eCluster struct {
	once    sync.Once
	cluster *Cluster
	client  *mongo.Client
	dir     string
	err     error
}

func clusterMode() bool { return os.Getenv("E2E_CLUSTER") != "" }

// inProcessOnly skips t when the end-to-end tests run against the cluster.
func inProcessOnly(t testing.TB) {
	t.Helper()
	if clusterMode() {
		t.Skip("drives the in-process platform itself: not run against the cluster (E2E_CLUSTER)")
	}
}

// platformOnCluster is startPlatform against the package's cluster.
func platformOnCluster(t *testing.T) *Platform {
	t.Helper()
	bin := consultest.Binary(t)
	e2eCluster.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		if e2eCluster.dir, e2eCluster.err = os.MkdirTemp("", "e2e-cluster-"); e2eCluster.err != nil {
			return
		}
		c, err := StartCluster(ctx, ClusterConfig{Addr: "127.0.0.1:0", DataDir: e2eCluster.dir, LogLevel: "warn", Replicas: 2,
			Gateways: 2, ConsulBin: bin, Repo: "../..", OutboundAllowPrivate: true}, logx.Discard())
		if err != nil {
			e2eCluster.err = err
			return
		}
		e2eCluster.cluster = c
		e2eCluster.client, e2eCluster.err = mongox.Connect(ctx, c.MongoURI())
	})
	if e2eCluster.err != nil {
		t.Fatalf("the end-to-end cluster: %v", e2eCluster.err)
	}
	c := e2eCluster.cluster
	p := &Platform{URL: c.URL, InternalTokenSecret: c.InternalTokenSecret(), MongoURI: c.MongoURI(),
		IdentityURL: c.ServiceURL("identity"), ContentURL: c.ServiceURL("content"), SitesURL: c.ServiceURL("sites"),
		InsightsURL: c.ServiceURL("insights"), IntegrationsURL: c.ServiceURL("integrations"),
		identityDB: e2eCluster.client.Database("identity"), cancel: func() {}, CredsPath: c.CredsPath,
		Kafka: &embedded.Kafka{Brokers: c.KafkaBrokers()}} // its address only: the broker is the cluster's
	var err error
	if p.Credentials, err = freshCredentials(t, p); err != nil {
		t.Fatal(err)
	}
	p.Credentials.GatewayURL = c.URL
	return p
}

// freshCredentials are new demo organizations for one test, as a fresh
// platform seeds them.
func freshCredentials(t *testing.T, p *Platform) (Credentials, error) {
	ctx := t.Context()
	// Users of their own too: a user is one per email across the cluster.
	n := freshUsers.Add(1)
	email := func(user string) string { return fmt.Sprintf("t%d-%s", n, user) }
	admin, err := p.Bootstrap(ctx, identity.BootstrapInput{OrganizationTitle: "Demo", UserDisplayName: "Demo Admin", UserEmail: email("admin@demo.example"), Role: roles.Admin})
	if err != nil {
		return Credentials{}, err
	}
	reader, err := p.Bootstrap(ctx, identity.BootstrapInput{OrganizationID: admin.OrganizationID, UserDisplayName: "Demo Reader", UserEmail: email("reader@demo.example"), Role: roles.Read})
	if err != nil {
		return Credentials{}, err
	}
	other, err := p.Bootstrap(ctx, identity.BootstrapInput{OrganizationTitle: "Other", UserDisplayName: "Other Admin", UserEmail: email("admin@other.example"), Role: roles.Admin})
	if err != nil {
		return Credentials{}, err
	}
	untilContentKnows(t, admin.UserID, reader.UserID, other.UserID)
	return Credentials{DemoOrgID: admin.OrganizationID, DemoAdminToken: admin.Token, DemoReaderToken: reader.Token, OtherOrgToken: other.Token}, nil
}

// untilContentKnows waits until content's projection of identity's users
// has the users, as a fresh platform's seeded users are by the time anyone
// uses them (identity's events take about 200 ms to get there on this
// cluster): content renders a user it does not know yet with their id for
// a name. A wait of more than projectionLagWarn is logged (a group that
// stalled); one past projectionLagMax fails the test.
func untilContentKnows(t *testing.T, users ...string) {
	t.Helper()
	start, db := time.Now(), e2eCluster.client.Database(content.Ops.DatabaseDefault)
	for _, u := range users {
		waittest.Until(t, "content's projection to have user "+u, projectionLagMax-time.Since(start), func() bool {
			known, _ := content.KnowsUser(t.Context(), db, u)
			return known
		})
	}
	if lag := time.Since(start); lag > projectionLagWarn {
		t.Logf("content's projection took %s to have users %v", lag, users)
	}
}

const (
	projectionLagWarn = 2 * time.Second
	projectionLagMax  = time.Minute
)

// freshUsers numbers the users freshCredentials makes.
var freshUsers atomic.Int64

// closeE2ECluster stops the package's cluster after the tests.
func closeE2ECluster() {
	if e2eCluster.cluster != nil {
		e2eCluster.cluster.Close()
	}
	if e2eCluster.client != nil {
		_ = e2eCluster.client.Disconnect(context.Background())
	}
	if e2eCluster.dir != "" {
		_ = os.RemoveAll(e2eCluster.dir)
	}
}
