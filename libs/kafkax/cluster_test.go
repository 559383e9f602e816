package kafkax_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/google/go-cmp/cmp"
	"github.com/segmentio/kafka-go"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestConfigCheckReportsEveryProblem(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		cfg  kafkax.Config
		want []string
	}{
		{name: "plain", cfg: kafkax.Config{Brokers: []string{"k:9092"}}},
		{name: "scram over tls", cfg: kafkax.Config{Brokers: []string{"k:9093"}, TLS: true, TLSCAFile: "/ca.pem",
			SASLMechanism: "SCRAM-SHA-512", SASLUsername: "u", SASLPassword: "p", Topics: "insights.visits=12:3,content.events=6"}},
		{name: "everything wrong", cfg: kafkax.Config{TLSCAFile: "/ca.pem", TLSCertFile: "/c.pem",
			SASLMechanism: "GSSAPI", SASLPassword: "p", TopicPartitions: -1, TopicReplicationFactor: -2, Topics: "a=0"},
			want: []string{
				"KAFKA_BROKERS is required",
				"KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE need KAFKA_TLS=true",
				"KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together",
				"KAFKA_SASL_MECHANISM must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512",
				"KAFKA_TOPIC_PARTITIONS must not be negative",
				"KAFKA_TOPIC_REPLICATION_FACTOR must not be negative",
				"KAFKA_TOPICS: partitions of a must be a positive number",
			}},
		{name: "mechanism without user", cfg: kafkax.Config{Brokers: []string{"k:9092"}, SASLMechanism: "PLAIN"},
			want: []string{"KAFKA_SASL_MECHANISM PLAIN needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD"}},
		{name: "user without mechanism", cfg: kafkax.Config{Brokers: []string{"k:9092"}, SASLUsername: "u"},
			want: []string{"KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var p config.Problems
			tc.cfg.Check(&p)
			if diff := cmp.Diff([]string(p), tc.want); diff != "" {
				t.Errorf("problems (-got +want):\n%s", diff)
			}
		})
	}
}

func TestConfigFromEnvMasksThePassword(t *testing.T) {
	t.Parallel()
	var cfg struct{ Kafka kafkax.Config }
	err := config.LoadMap(context.Background(), &cfg, map[string]string{"KAFKA_SASL_MECHANISM": "PLAIN",
		"KAFKA_SASL_USERNAME": "u", "KAFKA_SASL_PASSWORD": "hunter2", "KAFKA_TOPICS": "a=3"})
	if err != nil {
		t.Fatal(err)
	}
	d := config.Describe(cfg)
	if d["KAFKA_SASL_PASSWORD"] != "****" || d["KAFKA_SASL_USERNAME"] != "u" || d["KAFKA_TOPIC_PROVISION"] != "true" {
		t.Errorf("described config = %v; want the password masked, the user shown and provisioning on by default", d)
	}
}

// logRecorder is a slog handler that keeps the messages and errors logged.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *logRecorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *logRecorder) WithGroup(string) slog.Handler            { return r }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	line := rec.Message
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			line += ": " + a.Value.String()
		}
		return true
	})
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	return nil
}

func (r *logRecorder) has(substr string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, l := range r.lines {
		if strings.Contains(l, substr) {
			return true
		}
	}
	return false
}

// partitions returns how many partitions topic has on cluster c.
func partitions(t *testing.T, c kafkax.Cluster, topic string) int {
	t.Helper()
	tr := c.Transport()
	defer tr.CloseIdleConnections()
	client := &kafka.Client{Addr: kafka.TCP(c.Brokers...), Transport: tr}
	res, err := client.Metadata(context.Background(), &kafka.MetadataRequest{Topics: []string{topic}})
	if err != nil {
		t.Fatalf("metadata of %s: %v", topic, err)
	}
	for _, tp := range res.Topics {
		if tp.Name == topic && tp.Error == nil {
			return len(tp.Partitions)
		}
	}
	return 0
}

// TestSASLOverTLS connects the publisher (so the relay), a consumer and the
// topic provisioning to a cluster that requires SASL over TLS, for every
// mechanism, and checks that wrong credentials fail with the broker's reason.
func TestSASLOverTLS(t *testing.T) {
	for _, mech := range []string{kafkax.SASLScramSHA256, kafkax.SASLScramSHA512, kafkax.SASLPlain} {
		t.Run(mech, func(t *testing.T) {
			ctx := context.Background()
			k := kafkatest.StartSecure(t, mech)
			c, err := k.Config(k.Password).Cluster()
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Ping(ctx); err != nil {
				t.Fatalf("ping with the right credentials: %v", err)
			}
			// Auto-creation is off: the topic exists once provisioned, with
			// the configured partitions; provisioning again changes nothing.
			for range 2 {
				if err := c.EnsureTopics(ctx, topic); err != nil {
					t.Fatalf("provision %s: %v", topic, err)
				}
			}
			if got := partitions(t, c, topic); got != 3 {
				t.Errorf("partitions of the provisioned topic = %d; want 3", got)
			}

			db := mongotest.Database(t)
			pub := kafkax.NewPublisher(c)
			t.Cleanup(func() { _ = pub.Close() })
			relay := kafkax.NewRelay(mongox.NewDB(db), pub, topic, []string{coll}, nil)
			ev := event("thing.created", "a", nil)
			change(t, db, "a", bson.M{"name": "a"}, ev)
			if n, err := relay.SweepOnce(ctx); n != 1 || err != nil {
				t.Fatalf("relay over SASL/TLS = %d, %v; want 1 event published", n, err)
			}
			rec := &recorder{}
			consumer := kafkax.NewConsumer(c, "g1", topic, db, rec.handle, nil)
			t.Cleanup(func() { _ = consumer.Close() })
			run(t, consumer.Run)
			eventually(t, "the event through SASL over TLS", func() bool { return rec.has(ev.ID) })

			wrong, err := k.Config("not-the-password").Cluster()
			if err != nil {
				t.Fatal(err)
			}
			// kfake closes the connection on refused credentials, as some
			// brokers do; others answer SASL authentication failed first.
			refused := func(err error) bool {
				return errors.Is(err, kafka.SASLAuthenticationFailed) || errors.Is(err, io.ErrUnexpectedEOF)
			}
			err = wrong.Ping(ctx)
			if !refused(err) || !strings.Contains(err.Error(), "as user docspub (SASL "+mech+") over TLS") {
				t.Errorf("ping with a wrong password = %v; want refused credentials, naming the user and mechanism", err)
			}
			wpub := kafkax.NewPublisher(wrong)
			t.Cleanup(func() { _ = wpub.Close() })
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			if err := wpub.Publish(pctx, topic, event("thing.created", "b", nil)); !refused(err) {
				t.Errorf("publish with a wrong password = %v; want SASL authentication failed", err)
			}
			logs := &logRecorder{}
			wconsumer := kafkax.NewConsumer(wrong, "g2", topic, nil, rec.handle, slog.New(logs))
			t.Cleanup(func() { _ = wconsumer.Close() })
			run(t, wconsumer.Run)
			eventually(t, "the consumer to log the refused connection", func() bool {
				return logs.has("fetch event: ")
			})
			if n := len(rec.handled()); n != 1 {
				t.Errorf("handled %d events; want the one of the right consumer only", n)
			}

			// Plain TCP against the TLS listener fails too.
			noTLS := c
			noTLS.TLS = nil
			pctx2, cancel2 := context.WithTimeout(ctx, 3*time.Second)
			defer cancel2()
			if err := noTLS.Ping(pctx2); err == nil {
				t.Errorf("ping without TLS succeeded; want an error")
			}
		})
	}
}

// TestProvision: refused credentials stop a component's start with the
// reason; an unreachable cluster does not, and the topics are created once
// it answers.
func TestProvision(t *testing.T) {
	ctx := context.Background()
	log := slog.New(slog.DiscardHandler)

	k := kafkatest.StartSecure(t, kafkax.SASLScramSHA256)
	wrong, err := k.Config("not-the-password").Cluster()
	if err != nil {
		t.Fatal(err)
	}
	if err := wrong.Provision(ctx, log, topic); err == nil || !kafkax.Refused(err) {
		t.Errorf("provision with a wrong password = %v; want refused credentials", err)
	}

	r := kafkatest.StartRestartable(t)
	r.Stop()
	c := kafkax.Cluster{Brokers: r.Brokers, Layout: func(string) kafkax.Layout { return kafkax.Layout{Partitions: 2} }}
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := c.Provision(pctx, log, topic); err != nil {
		t.Fatalf("provision while Kafka is down = %v; want nil (retried in the background)", err)
	}
	r.Start()
	eventually(t, "the topic provisioned once Kafka answers", func() bool { return partitions(t, c, topic) == 2 })
}
