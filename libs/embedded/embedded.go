// Package embedded starts the infrastructure in-process for tests and the local
// runner: FerretDB v1 on SQLite for MongoDB, franz-go kfake for Kafka and
// miniredis for Redis. Each listens on a loopback port and speaks the real
// protocol, so code under test uses the real clients.
//
// FerretDB is v1.24.2 with a patch of ours (ferretdb/PATCH.md): its SQLite
// backend pushes a query's equalities on _id and on the fields that lead the
// collection's indexes down to SQLite, so that a query by organization,
// space or site reads that tenant's rows through the index the store
// declared (mongox.EnsureIndexes, the same declaration MongoDB uses), not
// every tenant's documents; and a filter it translates exactly (a
// tenant's live spaces, say) is counted, sorted and limited in SQL, so
// that a first page decodes its page, not the tenant's documents.
//
// kfake is franz-go's of 2026-09-18 with a patch of ours (kfake/PATCH.md):
// a consumer group member whose answer to a join was lost (its process
// killed while it joined) gets its session timer, as on Kafka, instead
// of holding its partitions for good.
package embedded

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/FerretDB/FerretDB/ferretdb"
	"github.com/alicebob/miniredis/v2"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Mongo is a running embedded FerretDB.
type Mongo struct {
	// URI is for writers: each client of it has writePoolSize
	// connections.
	URI string
	// ReadURI is for reads only (find, count, aggregate without $out): its
	// clients have readPoolSize connections of their own, so that a
	// process's reads do not queue behind its writes. FerretDB commits a
	// write before it answers and its SQLite files are in WAL mode, so a
	// read sent after a write was acknowledged sees it.
	ReadURI string
	cancel  context.CancelFunc
	done    chan struct{}
	tmp     string
}

// StartMongo starts FerretDB with its SQLite files in dir (write-ahead
// log, synchronous=NORMAL: a commit does not wait for the disk, so a killed
// process loses no acknowledged write, and only a power loss or an
// operating system crash may undo the last ones; the embedded server is for
// tests and laptops, production runs on MongoDB) ("" for a temporary
// directory removed on Close), listening on addr ("" for a free loopback port).
func StartMongo(dir, addr string, log *slog.Logger) (*Mongo, error) {
	m := &Mongo{done: make(chan struct{})}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "ferretdb-*")
		if err != nil {
			return nil, fmt.Errorf("ferretdb dir: %w", err)
		}
		dir, m.tmp = tmp, tmp
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("ferretdb dir: %w", err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: addr},
		Handler:   "sqlite",
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(normal)",
		Logger:    log.With("component", "ferretdb"),
	})
	if err != nil {
		return nil, fmt.Errorf("start ferretdb: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel = cancel
	go func() {
		defer close(m.done)
		f.Run(ctx)
	}()
	m.URI = poolSize(f.MongoDBURI(), writePoolSize)
	m.ReadURI = poolSize(f.MongoDBURI(), readPoolSize)
	return m, nil
}

// readPoolSize is the connections of a client of ReadURI, so that reads
// do not queue behind writes, nor one tenant's reads behind another's (with
// one, an organization's OpenAPI abuse doubled another's Git import times,
// TestIntegrationsAbuseIsBounded). Eight gave, twice under CI's load, a
// Git sync state without the last import's timestamp: that read decides a
// job's skip and is now read where it is written (docstore.FindLatest);
// single-document writes are atomic across connections since the write
// lock (internal/handler/writelock.go), and TestMongoReadPoolNextToWrites
// checks read-your-writes and monotonic reads through the pool.
const readPoolSize = 8

// writePoolSize is the connections of a client of URI. Single-document
// writes are atomic across connections (the write lock,
// internal/handler/writelock.go, TestMongoUpdatesAreAtomicAcrossConnections),
// so a process's writes need not queue on one connection: with one, 16
// clients creating spaces waited in content's pool for most of each
// request, and creation ran at 330-400 spaces/s with the machine a third
// idle (730-870/s with eight, tenants benchmark). SQLite still writes one
// transaction of a database file at a time (fsql.DB's turn of writing);
// what runs beside it is the rest of each command (decoding, filtering,
// encoding).
const writePoolSize = 8

// poolSize limits clients of uri to n connections.
func poolSize(uri string, n int) string {
	u, err := url.Parse(uri)
	if err != nil {
		return uri
	}
	q := u.Query()
	q.Set("maxPoolSize", strconv.Itoa(n))
	u.RawQuery = q.Encode()
	return u.String()
}

// Close stops FerretDB and waits for it.
func (m *Mongo) Close() {
	m.cancel()
	select {
	case <-m.done:
	case <-time.After(10 * time.Second):
	}
	if m.tmp != "" {
		_ = os.RemoveAll(m.tmp)
	}
}

// Kafka is a running kfake cluster.
type Kafka struct {
	cluster *kfake.Cluster
	Brokers []string
	dir     string
}

// StartKafka starts a one-broker kfake cluster that creates topics on demand,
// on port ("0" or 0 for a free port; a fixed port lets a test restart "the same" Kafka).
// Its log segments go to files of a fresh temporary folder: without one,
// kfake copies them into growing buffers of its own heap besides the
// batches it serves from memory (a second copy of the whole log, written
// again at each doubling), which was 7 % of the CPU of a flood of
// insights events.
func StartKafka(port int) (*Kafka, error) {
	dir, err := os.MkdirTemp("", "kfake-")
	if err != nil {
		return nil, fmt.Errorf("start kfake: %w", err)
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.AllowAutoTopicCreation(), kfake.DefaultNumPartitions(1), kfake.DataDir(dir)}
	if port > 0 {
		opts = append(opts, kfake.Ports(port))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("start kfake: %w", err)
	}
	return &Kafka{cluster: c, Brokers: c.ListenAddrs(), dir: dir}, nil
}

// Close stops the cluster; its data is gone.
func (k *Kafka) Close() {
	k.cluster.Close()
	_ = os.RemoveAll(k.dir)
}

// Redis is a running miniredis.
type Redis struct {
	*miniredis.Miniredis
}

// StartRedis starts miniredis on a free loopback port (or addr when given).
func StartRedis(addr string) (*Redis, error) {
	m := miniredis.NewMiniRedis()
	var err error
	if addr == "" {
		err = m.Start()
	} else {
		err = m.StartAddr(addr)
	}
	if err != nil {
		return nil, fmt.Errorf("start miniredis: %w", err)
	}
	return &Redis{m}, nil
}

// ErrStopped is returned by helpers that need a server that was closed.
var ErrStopped = errors.New("embedded server stopped")

// Port returns the broker's port.
func (k *Kafka) Port() int {
	_, p, _ := net.SplitHostPort(k.Brokers[0])
	n, _ := strconv.Atoi(p)
	return n
}
