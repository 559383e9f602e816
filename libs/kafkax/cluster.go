package kafkax

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/backoff"
	"github.com/docspub/platform/libs/config"
	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"
)

// SASL mechanisms of KAFKA_SASL_MECHANISM.
const (
	SASLPlain       = "PLAIN"
	SASLScramSHA256 = "SCRAM-SHA-256"
	SASLScramSHA512 = "SCRAM-SHA-512"
)

// Config is how a component reaches its Kafka cluster and how the topics it
// provisions are laid out, from the environment. Every producer, consumer
// and the outbox relay of a component share it.
type Config struct {
	Brokers []string `env:"KAFKA_BROKERS, default=127.0.0.1:9092"`
	// TLS turns TLS on; the brokers' certificates are checked against
	// the system roots, or against TLSCAFile when set.
	TLS       bool   `env:"KAFKA_TLS, default=false"`
	TLSCAFile string `env:"KAFKA_TLS_CA_FILE"`
	// TLSCertFile and TLSKeyFile are the client certificate (mutual TLS).
	TLSCertFile string `env:"KAFKA_TLS_CERT_FILE"`
	TLSKeyFile  string `env:"KAFKA_TLS_KEY_FILE"`
	// SASLMechanism is empty (no SASL), PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512.
	SASLMechanism string `env:"KAFKA_SASL_MECHANISM"`
	SASLUsername  string `env:"KAFKA_SASL_USERNAME"`
	SASLPassword  string `env:"KAFKA_SASL_PASSWORD" secret:"true"`
	// ProvisionTopics makes the component create the topics it produces and
	// consumes at start-up when they do not exist (an idempotent admin
	// call), so that the cluster's auto-creation can stay off.
	ProvisionTopics bool `env:"KAFKA_TOPIC_PROVISION, default=true"`
	// TopicPartitions and TopicReplicationFactor lay out a provisioned
	// topic; 0 leaves it to the broker's defaults (num.partitions,
	// default.replication.factor).
	TopicPartitions        int `env:"KAFKA_TOPIC_PARTITIONS, default=0"`
	TopicReplicationFactor int `env:"KAFKA_TOPIC_REPLICATION_FACTOR, default=0"`
	// Topics overrides the layout per topic:
	// "insights.visits=12:3,content.events=6" (partitions[:replication factor]).
	Topics string `env:"KAFKA_TOPICS"`
}

// Check records the configuration's problems in p.
func (c Config) Check(p *config.Problems) {
	if len(c.Brokers) == 0 {
		p.Addf("KAFKA_BROKERS is required")
	}
	if !c.TLS && (c.TLSCAFile != "" || c.TLSCertFile != "" || c.TLSKeyFile != "") {
		p.Addf("KAFKA_TLS_CA_FILE, KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE need KAFKA_TLS=true")
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		p.Addf("KAFKA_TLS_CERT_FILE and KAFKA_TLS_KEY_FILE go together")
	}
	switch strings.ToUpper(c.SASLMechanism) {
	case "":
		if c.SASLUsername != "" || c.SASLPassword != "" {
			p.Addf("KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD need KAFKA_SASL_MECHANISM")
		}
	case SASLPlain, SASLScramSHA256, SASLScramSHA512:
		if c.SASLUsername == "" || c.SASLPassword == "" {
			p.Addf("KAFKA_SASL_MECHANISM %s needs KAFKA_SASL_USERNAME and KAFKA_SASL_PASSWORD", c.SASLMechanism)
		}
	default:
		p.Addf("KAFKA_SASL_MECHANISM must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
	}
	if c.TopicPartitions < 0 {
		p.Addf("KAFKA_TOPIC_PARTITIONS must not be negative")
	}
	if c.TopicReplicationFactor < 0 {
		p.Addf("KAFKA_TOPIC_REPLICATION_FACTOR must not be negative")
	}
	if _, err := parseLayouts(c.Topics); err != nil {
		p.Addf("KAFKA_TOPICS: %v", err)
	}
}

// Layout is how a provisioned topic is laid out; zero fields take the
// broker's defaults.
type Layout struct {
	Partitions        int
	ReplicationFactor int
}

// parseLayouts reads "topic=partitions[:replication],...".
func parseLayouts(s string) (map[string]Layout, error) {
	out := map[string]Layout{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, spec, ok := strings.Cut(item, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("%q is not topic=partitions[:replication factor]", item)
		}
		parts, repl, hasRepl := strings.Cut(spec, ":")
		var l Layout
		var err error
		if l.Partitions, err = strconv.Atoi(parts); err != nil || l.Partitions < 1 {
			return nil, fmt.Errorf("partitions of %s must be a positive number", name)
		}
		if hasRepl {
			if l.ReplicationFactor, err = strconv.Atoi(repl); err != nil || l.ReplicationFactor < 1 {
				return nil, fmt.Errorf("replication factor of %s must be a positive number", name)
			}
		}
		out[name] = l
	}
	return out, nil
}

// Cluster is a Kafka cluster as the component reaches it: brokers, TLS and
// SASL. Its zero value but Brokers is plain TCP.
type Cluster struct {
	Brokers []string
	TLS     *tls.Config
	SASL    sasl.Mechanism
	User    string // the SASL user, for errors
	// Layout, when set, is the layout of every topic the component
	// creates when missing (EnsureTopics); nil when provisioning is off.
	Layout func(topic string) Layout
}

// Plain is the cluster reached at brokers over plain TCP without SASL,
// with provisioning off (tests, the local runner's embedded Kafka).
func Plain(brokers []string) Cluster { return Cluster{Brokers: brokers} }

// Cluster loads the TLS material and the SASL credentials of c. The error
// names the file or the setting that is wrong.
func (c Config) Cluster() (Cluster, error) {
	var p config.Problems
	c.Check(&p)
	if err := p.Err(); err != nil {
		return Cluster{}, err
	}
	cl := Cluster{Brokers: c.Brokers, User: c.SASLUsername}
	if c.TLS {
		tc := &tls.Config{MinVersion: tls.VersionTLS12}
		if c.TLSCAFile != "" {
			pem, err := os.ReadFile(c.TLSCAFile)
			if err != nil {
				return Cluster{}, fmt.Errorf("KAFKA_TLS_CA_FILE: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return Cluster{}, fmt.Errorf("KAFKA_TLS_CA_FILE: no PEM certificate in %s", c.TLSCAFile)
			}
			tc.RootCAs = pool
		}
		if c.TLSCertFile != "" {
			cert, err := tls.LoadX509KeyPair(c.TLSCertFile, c.TLSKeyFile)
			if err != nil {
				return Cluster{}, fmt.Errorf("KAFKA_TLS_CERT_FILE/KAFKA_TLS_KEY_FILE: %w", err)
			}
			tc.Certificates = []tls.Certificate{cert}
		}
		cl.TLS = tc
	}
	switch strings.ToUpper(c.SASLMechanism) {
	case SASLPlain:
		cl.SASL = plain.Mechanism{Username: c.SASLUsername, Password: c.SASLPassword}
	case SASLScramSHA256, SASLScramSHA512:
		algo := scram.SHA256
		if strings.ToUpper(c.SASLMechanism) == SASLScramSHA512 {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, c.SASLUsername, c.SASLPassword)
		if err != nil {
			return Cluster{}, fmt.Errorf("KAFKA_SASL_MECHANISM: %w", err)
		}
		cl.SASL = m
	}
	if c.ProvisionTopics {
		layouts, _ := parseLayouts(c.Topics) // checked above
		def := Layout{Partitions: c.TopicPartitions, ReplicationFactor: c.TopicReplicationFactor}
		cl.Layout = func(topic string) Layout {
			if l, ok := layouts[topic]; ok {
				return l
			}
			return def
		}
	}
	return cl, nil
}

// dialTimeout bounds connecting to one broker (TCP, TLS and SASL).
const dialTimeout = 5 * time.Second

// Transport returns the transport of writers and admin clients.
func (c Cluster) Transport() *kafka.Transport {
	return &kafka.Transport{
		Dial:        (&net.Dialer{Timeout: dialTimeout}).DialContext,
		DialTimeout: dialTimeout,
		MetadataTTL: metadataTTL,
		TLS:         c.TLS,
		SASL:        c.SASL,
	}
}

// Dialer returns the dialer of readers (kafka.ReaderConfig.Dialer).
func (c Cluster) Dialer() *kafka.Dialer {
	return &kafka.Dialer{Timeout: dialTimeout, DualStack: true, TLS: c.TLS, SASLMechanism: c.SASL}
}

// EnsureTopics creates those of topics that do not exist yet, laid out by
// c.Layout; an existing topic is left as it is. Without Layout it
// does nothing. It is safe to call from every replica at once.
func (c Cluster) EnsureTopics(ctx context.Context, topics ...string) error {
	if c.Layout == nil || len(topics) == 0 {
		return nil
	}
	req := &kafka.CreateTopicsRequest{}
	for _, t := range topics {
		l := c.Layout(t)
		tc := kafka.TopicConfig{Topic: t, NumPartitions: -1, ReplicationFactor: -1}
		if l.Partitions > 0 {
			tc.NumPartitions = l.Partitions
		}
		if l.ReplicationFactor > 0 {
			tc.ReplicationFactor = l.ReplicationFactor
		}
		req.Topics = append(req.Topics, tc)
	}
	t := c.Transport()
	defer t.CloseIdleConnections() // its pool would refresh metadata forever
	client := &kafka.Client{Addr: kafka.TCP(c.Brokers...), Transport: t, Timeout: 10 * time.Second}
	res, err := client.CreateTopics(ctx, req)
	if err != nil {
		return fmt.Errorf("provision topics %s: %w", strings.Join(topics, ", "), err)
	}
	var errs []error
	for _, t := range topics {
		if err := res.Errors[t]; err != nil && !errors.Is(err, kafka.TopicAlreadyExists) {
			errs = append(errs, fmt.Errorf("provision topic %s: %w", t, err))
		}
	}
	return errors.Join(errs...)
}

// Ping asks the cluster for its metadata: it fails when the brokers cannot
// be reached, refuse the TLS handshake or the SASL credentials, which a
// component checks at start-up so that such a mistake stops it with a
// clear error rather than leaving its consumers retrying in the background.
func (c Cluster) Ping(ctx context.Context) error {
	t := c.Transport()
	defer t.CloseIdleConnections() // its pool would refresh metadata forever
	client := &kafka.Client{Addr: kafka.TCP(c.Brokers...), Transport: t, Timeout: 10 * time.Second}
	if _, err := client.Metadata(ctx, &kafka.MetadataRequest{Topics: []string{}}); err != nil {
		if c.SASL != nil && errors.Is(err, io.ErrUnexpectedEOF) {
			// Brokers close the connection on refused credentials, some
			// without an error code first.
			return fmt.Errorf("reach kafka at %s %s: %w (%w)", strings.Join(c.Brokers, ","), c.describe(), errCredentialsRefused, err)
		}
		return fmt.Errorf("reach kafka at %s %s: %w", strings.Join(c.Brokers, ","), c.describe(), err)
	}
	return nil
}

// describe says how the cluster is reached, for errors: "as user u
// (SCRAM-SHA-512) over TLS".
func (c Cluster) describe() string {
	var b strings.Builder
	if c.SASL != nil {
		if c.User != "" {
			fmt.Fprintf(&b, "as user %s ", c.User)
		}
		fmt.Fprintf(&b, "(SASL %s) ", c.SASL.Name())
	}
	if c.TLS != nil {
		b.WriteString("over TLS")
	} else {
		b.WriteString("over plain TCP")
	}
	return b.String()
}

// Refused reports whether err is the cluster refusing the component's TLS
// handshake or SASL credentials (as opposed to being unreachable or busy),
// which retrying cannot cure.
func Refused(err error) bool {
	var (
		unknownCA *x509.UnknownAuthorityError
		hostname  x509.HostnameError
		verify    *tls.CertificateVerificationError
		header    tls.RecordHeaderError
	)
	return errors.Is(err, kafka.SASLAuthenticationFailed) || errors.Is(err, kafka.UnsupportedSASLMechanism) ||
		errors.Is(err, kafka.IllegalSASLState) || errors.Is(err, errCredentialsRefused) ||
		errors.As(err, &unknownCA) || errors.As(err, &hostname) || errors.As(err, &verify) || errors.As(err, &header)
}

// errCredentialsRefused marks a connection the broker closed during
// authentication.
var errCredentialsRefused = errors.New("the broker closed the connection, were the credentials refused?")

// Provision pings the cluster and creates the missing topics. When the
// cluster refuses the credentials or the TLS handshake, or refuses to
// create a topic, it returns the error (the component should not start).
// When the cluster is only unreachable, it logs a warning and keeps trying
// in the background until ctx is done: producers and consumers retry
// meanwhile.
func (c Cluster) Provision(ctx context.Context, log *slog.Logger, topics ...string) error {
	try := func(ctx context.Context) error {
		tctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := c.Ping(tctx); err != nil {
			return err
		}
		return c.EnsureTopics(tctx, topics...)
	}
	err := try(ctx)
	if err == nil || Refused(err) || !unreachable(err) {
		return err
	}
	if c.Layout == nil {
		log.Warn("kafka unreachable at start; producers and consumers retry", "err", err)
		return nil
	}
	log.Warn("kafka unreachable at start; topics are provisioned once it answers", "err", err)
	go func() {
		for attempt := 1; ; attempt++ {
			if !sleep(ctx, backoff.Wait(attempt, time.Second, 30*time.Second)) {
				return
			}
			err := try(ctx)
			if err == nil {
				log.Info("kafka reached; topics provisioned", "topics", strings.Join(topics, ","))
				return
			}
			if ctx.Err() != nil {
				return
			}
			log.Warn("provision kafka topics", "err", err, "attempt", attempt)
		}
	}()
	return nil
}

// unreachable reports whether err is a network failure or a timeout rather
// than an answer of the cluster.
func unreachable(err error) bool {
	var nerr net.Error
	var kerr kafka.Error
	if errors.As(err, &kerr) {
		return kerr.Temporary()
	}
	return errors.As(err, &nerr) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF)
}
