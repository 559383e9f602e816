package service

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/migrate"
	"github.com/docspub/platform/libs/mongox"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// CoreConfig says what Open wires.
type CoreConfig struct {
	// Service is the service's name in discovery and in the gateway's route
	// table ("content"): Core.Signer accepts only internal tokens minted for
	// it and signs the service's own calls to others as coming from it.
	Service            string
	MongoURI, Database string
	// MongoReadURI, when set, connects a second client that the stores
	// read through (mongox.DB.Reads; MONGO_READ_URI).
	MongoReadURI string
	// Kafka is how the service reaches its cluster (KAFKA_*).
	Kafka               kafkax.Config
	InternalTokenSecret string
	InternalTokenKeys   internaltoken.Keys
	// Topic is where the service publishes the events its stores record in
	// EventCollections.
	Topic string
	// Topics are the other topics the service publishes to or consumes:
	// Open provisions them with Topic (KAFKA_TOPIC_PROVISION).
	Topics           []string
	EventCollections []string
	Indexes          []mongox.Index
	// SchemaVersion is the highest migration step the binary knows
	// (libs/migrate; 0 for a service without steps): Open refuses a
	// database a newer binary migrated (migrate.CheckNewer), so that an
	// older image rolled back says so instead of misreading the data.
	SchemaVersion int
	// Discovery chooses how the service finds the services it calls and
	// whether it announces itself (DISCOVERY=static|consul).
	Discovery discovery.Config
	// Peers are the static addresses of the services it calls, used when
	// Discovery is static.
	Peers discovery.Static
}

// Core is what every service wires the same way: its MongoDB database with
// its indexes, the Kafka publisher and relay of its topic, and the
// signer of internal tokens of the service (internaltoken.Require(Signer)
// guards its routes, Signer.Mint(other, p) signs its calls to service
// other), and the discovery registry that finds the services it calls and
// announces it.
type Core struct {
	Log    *slog.Logger
	Client *mongo.Client
	// reads is the client of CoreConfig.MongoReadURI, nil without one.
	reads *mongo.Client
	// Mongo is the service's database, as its stores and the outbox relay
	// read and write it (see mongox.DB).
	Mongo  mongox.DB
	Relay  *kafkax.Relay
	Signer *internaltoken.Signer
	// Kafka is the cluster, for the service's consumers and other producers.
	Kafka kafkax.Cluster
	// Discovery resolves the services this one calls.
	Discovery discovery.Registry
	pub       *kafkax.Publisher
	announce  bool // discovery is consul: instances register themselves
	advertise string
	stop      context.CancelFunc // ends the topic provisioning retried in the background
	// relay runs the outbox relay, workers what Go starts: Close stops
	// them in that order before it closes the connections they use.
	relay, workers group
}

// Open connects to MongoDB, ensures the indexes and wires the publisher,
// the relay, the signer and discovery. Nothing stays open when it fails.
func Open(ctx context.Context, cc CoreConfig, log *slog.Logger) (*Core, error) {
	signer, err := internaltoken.NewKeyedSigner(cc.Service, cc.InternalTokenSecret, cc.InternalTokenKeys, time.Minute)
	if err != nil {
		return nil, err
	}
	cluster, err := cc.Kafka.Cluster()
	if err != nil {
		return nil, err
	}
	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	if err := cluster.Provision(bg, log, append([]string{cc.Topic}, cc.Topics...)...); err != nil {
		stop()
		return nil, err
	}
	reg, err := discovery.Open(cc.Discovery, cc.Peers, log)
	if err != nil {
		stop()
		return nil, err
	}
	client, err := mongox.Connect(ctx, cc.MongoURI)
	if err != nil {
		reg.Close()
		stop()
		return nil, err
	}
	var reads *mongo.Client
	if cc.MongoReadURI != "" {
		if reads, err = mongox.Connect(ctx, cc.MongoReadURI); err != nil {
			_ = client.Disconnect(context.Background())
			reg.Close()
			stop()
			return nil, err
		}
	}
	db := client.Database(cc.Database)
	err = migrate.CheckNewer(ctx, db, cc.SchemaVersion)
	if err == nil {
		err = mongox.EnsureIndexes(ctx, db, slices.Concat(cc.Indexes, kafkax.OutboxIndexes(cc.EventCollections...))...)
	}
	if err != nil {
		_ = client.Disconnect(context.Background())
		if reads != nil {
			_ = reads.Disconnect(context.Background())
		}
		reg.Close()
		stop()
		return nil, err
	}
	mdb := mongox.NewDB(db)
	if reads != nil {
		mdb = mdb.WithReads(reads.Database(cc.Database))
	}
	pub := kafkax.NewPublisher(cluster)
	relay := kafkax.NewRelay(mdb, pub, cc.Topic, cc.EventCollections, log)
	return &Core{Log: log, Client: client, reads: reads, Mongo: mdb, Relay: relay, Signer: signer, Kafka: cluster,
		Discovery: reg, pub: pub, announce: cc.Discovery.Mode == discovery.ModeConsul, advertise: cc.Discovery.Advertise,
		stop: stop}, nil
}

// Announce is the Run option that registers the service in Consul when
// discovery is consul; with static discovery it changes nothing.
func (c *Core) Announce() Option {
	if !c.announce {
		return func(*runOptions) {}
	}
	return Announce(c.Discovery, c.advertise)
}

// FollowChanges runs fn, until ctx ends, on every event of topic
// published from now on, in this replica (kafkax.Broadcast: not one
// replica of a group): what a replica keeps in memory of data another
// replica may change (a cache) is dropped when that change's event
// arrives, its TTL a backstop only.
func (c *Core) FollowChanges(ctx context.Context, topic string, fn func(kafkax.Event)) {
	b := kafkax.NewBroadcast(c.Kafka, topic, func(_ context.Context, ev kafkax.Event) error { fn(ev); return nil }, c.Log)
	c.Go(ctx, "changes of "+topic, b.Run)
}

// Go runs f in the background until ctx is done or Close stops it, logging
// its failure as what. Close waits for it.
func (c *Core) Go(ctx context.Context, what string, f func(context.Context) error) {
	c.workers.run(ctx, c.logged(what, f))
}

// RunRelay starts the outbox relay; it stops when ctx is done or Close
// stops it, first of the background work.
func (c *Core) RunRelay(ctx context.Context) {
	c.relay.run(ctx, c.logged("outbox relay", c.Relay.Run))
}

// logged is f with its failure, unless it was stopped, logged as what.
func (c *Core) logged(what string, f func(context.Context) error) func(context.Context) {
	return func(ctx context.Context) {
		if err := f(ctx); err != nil && ctx.Err() == nil {
			c.Log.ErrorContext(ctx, what+" stopped", "err", err)
		}
	}
}

// Close shuts the service down in order: it stops the outbox relay, then
// the workers started by Go, waiting for each (at most until ctx is done),
// then closes first (consumers, say), discovery, the publisher and MongoDB.
func (c *Core) Close(ctx context.Context, first ...func() error) error {
	errs := []error{c.relay.stop(ctx, "outbox relay"), c.workers.stop(ctx, "background workers")}
	for _, f := range first {
		errs = append(errs, f())
	}
	c.stop()
	c.Discovery.Close()
	errs = append(errs, c.pub.Close(), c.Client.Disconnect(ctx))
	if c.reads != nil {
		errs = append(errs, c.reads.Disconnect(ctx))
	}
	return errors.Join(errs...)
}
