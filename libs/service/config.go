package service

import (
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
)

// Base is the configuration every service has, under the same environment
// variables: each service's Config embeds it, and its Validate calls Check.
type Base struct {
	MongoURI string `env:"MONGO_URI, default=mongodb://127.0.0.1:27017"`
	// MongoReadURI, when set, is a second client's for the stores' reads
	// (see mongox.DB.Reads), for a server whose writers share one
	// connection (as `make run`'s do: deployments/local sets it), so that
	// reads do not queue behind writes. Unset, one client of MONGO_URI
	// serves reads and writes, as it should on MongoDB.
	MongoReadURI        string        `env:"MONGO_READ_URI"`
	Kafka               kafkax.Config // KAFKA_BROKERS, KAFKA_TLS*, KAFKA_SASL_*, KAFKA_TOPIC*
	InternalTokenSecret string        `env:"INTERNAL_TOKEN_SECRET" secret:"true"` // ≥32 bytes; required without INTERNAL_TOKEN_KEYS
	// InternalTokenKeys is the rotating key set (INTERNAL_TOKEN_KEYS, INTERNAL_TOKEN_KEY_ID).
	InternalTokenKeys internaltoken.Keys
	LogLevel          string `env:"LOG_LEVEL, default=info"`
	// Discovery is DISCOVERY (static|consul), CONSUL_HTTP_ADDR, CONSUL_HTTP_TOKEN
	// and ADVERTISE_ADDR: with consul the instance registers itself.
	Discovery discovery.Config
}

// Check records the problems of the base configuration in p.
func (b Base) Check(p *config.Problems) {
	p.Require("MONGO_URI", b.MongoURI)
	b.Kafka.Check(p)
	b.InternalTokenKeys.Check(p, b.InternalTokenSecret)
	p.LogLevel("LOG_LEVEL", b.LogLevel)
	b.Discovery.Check(p)
}

// URLs are where the platform answers, for the services that link to it.
type URLs struct {
	PublicURL string `env:"PUBLIC_URL, default=http://127.0.0.1:8080"`  // gateway URL, base of urls.location
	AppURL    string `env:"APP_URL, default=http://127.0.0.1:8080/app"` // base of urls.app
}

// Check records the problems of the URLs in p.
func (u URLs) Check(p *config.Problems) {
	p.HTTPURL("PUBLIC_URL", u.PublicURL)
	p.HTTPURL("APP_URL", u.AppURL)
}
