package config_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
	"github.com/google/go-cmp/cmp"
)

type kafka struct {
	Brokers []string `env:"KAFKA_BROKERS, default=127.0.0.1:9092"`
}

type serviceConfig struct {
	Addr        string        `env:"ADDR, default=:8080"`
	MongoURI    string        `env:"MONGO_URI, default=mongodb://127.0.0.1:27017" secret:"true"`
	TokenSecret string        `env:"INTERNAL_TOKEN_SECRET" secret:"true"`
	Timeout     time.Duration `env:"TIMEOUT, default=5s"`
	Kafka       kafka
	internal    string
}

func TestLoadMap(t *testing.T) {
	var got serviceConfig
	err := config.LoadMap(context.Background(), &got, map[string]string{
		"ADDR": ":9000", "KAFKA_BROKERS": "a:1,b:2", "INTERNAL_TOKEN_SECRET": "s3cret",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := serviceConfig{
		Addr: ":9000", MongoURI: "mongodb://127.0.0.1:27017", TokenSecret: "s3cret",
		Timeout: 5 * time.Second, Kafka: kafka{Brokers: []string{"a:1", "b:2"}},
	}
	if diff := cmp.Diff(got, want, cmp.AllowUnexported(serviceConfig{})); diff != "" {
		t.Errorf("LoadMap (-got +want):\n%s", diff)
	}
}

func TestLoadMapReportsBadValue(t *testing.T) {
	var c serviceConfig
	err := config.LoadMap(context.Background(), &c, map[string]string{"TIMEOUT": "soon"})
	if err == nil || !strings.Contains(err.Error(), `"soon"`) {
		t.Errorf("LoadMap with TIMEOUT=soon = %v, want an error quoting the value", err)
	}
}

func TestProblems(t *testing.T) {
	var none config.Problems
	if err := none.Err(); err != nil {
		t.Errorf("no problems: Err() = %v, want nil", err)
	}
	var p config.Problems
	p.Addf("ADDR %q is not a host:port", "x")
	p.Addf("INTERNAL_TOKEN_SECRET must be at least %d bytes", 32)
	want := `invalid configuration: ADDR "x" is not a host:port; INTERNAL_TOKEN_SECRET must be at least 32 bytes`
	if err := p.Err(); err == nil || err.Error() != want {
		t.Errorf("Err() = %v, want %s", err, want)
	}
}

func TestDescribeMasksSecrets(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  any
		want map[string]string
	}{
		{"secrets set", &serviceConfig{
			Addr: ":8080", MongoURI: "mongodb://admin:pw@db", TokenSecret: "s3cret", Timeout: time.Second,
			Kafka: kafka{Brokers: []string{"k:9092"}}, internal: "hidden",
		}, map[string]string{
			"ADDR": ":8080", "MONGO_URI": "****", "INTERNAL_TOKEN_SECRET": "****", "TIMEOUT": "1s", "KAFKA_BROKERS": "[k:9092]",
		}},
		{"empty secret shows it is unset", serviceConfig{MongoURI: "m"}, map[string]string{
			"ADDR": "", "MONGO_URI": "****", "INTERNAL_TOKEN_SECRET": "", "TIMEOUT": "0s", "KAFKA_BROKERS": "[]",
		}},
		{"not a struct", "text", map[string]string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := config.Describe(tc.cfg)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Describe (-got +want):\n%s", diff)
			}
		})
	}
}

func TestProblemChecks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		check func(p *config.Problems)
		want  config.Problems
	}{
		{"required set", func(p *config.Problems) { p.Require("ADDR", ":1") }, nil},
		{"required empty", func(p *config.Problems) { p.Require("ADDR", "") }, config.Problems{"ADDR is required"}},
		{"http URL", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "http://x") }, nil},
		{"https URL with path", func(p *config.Problems) { p.HTTPURL("APP_URL", "https://x.test/app") }, nil},
		{"URL without scheme", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "x.test") },
			config.Problems{"PUBLIC_URL must be an absolute http(s) URL"}},
		{"URL of another scheme", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "ftp://x.test") },
			config.Problems{"PUBLIC_URL must be an absolute http(s) URL"}},
		{"URL without host", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "http:///path") },
			config.Problems{"PUBLIC_URL must be an absolute http(s) URL"}},
		{"empty URL", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "") },
			config.Problems{"PUBLIC_URL must be an absolute http(s) URL"}},
		{"unparsable URL", func(p *config.Problems) { p.HTTPURL("PUBLIC_URL", "http://[::1") },
			config.Problems{"PUBLIC_URL must be an absolute http(s) URL"}},
		{"log levels in any case", func(p *config.Problems) {
			for _, l := range []string{"debug", "INFO", "Warn", "error"} {
				p.LogLevel("LOG_LEVEL", l)
			}
		}, nil},
		{"unknown log level", func(p *config.Problems) { p.LogLevel("LOG_LEVEL", "loud") },
			config.Problems{"LOG_LEVEL must be one of debug, info, warn, error"}},
		{"empty log level", func(p *config.Problems) { p.LogLevel("LOG_LEVEL", "") },
			config.Problems{"LOG_LEVEL must be one of debug, info, warn, error"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got config.Problems
			tc.check(&got)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("problems (-got +want):\n%s", diff)
			}
		})
	}
}
