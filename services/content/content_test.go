package content_test

import (
	"github.com/docspub/platform/libs/kafkax"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const secret = "0123456789abcdef0123456789abcdef-test"

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  content.Config
		want []string
	}{
		{"valid", content.Config{Base: libservice.Base{MongoURI: "m", Kafka: kafkax.Config{Brokers: []string{"k"}}, InternalTokenSecret: secret, LogLevel: "info"},
			URLs: libservice.URLs{PublicURL: "http://x", AppURL: "http://x/app"},
			Addr: ":1", Database: "d", PurgeInterval: 60e9, BlobURL: "file:///tmp/blobs"}, nil},
		{"s3 redirect", content.Config{Base: libservice.Base{MongoURI: "m", Kafka: kafkax.Config{Brokers: []string{"k"}}, InternalTokenSecret: secret, LogLevel: "info"},
			URLs: libservice.URLs{PublicURL: "http://x", AppURL: "http://x/app"},
			Addr: ":1", Database: "d", PurgeInterval: 60e9, BlobURL: "s3://docs?region=us-east-1", BlobAccessKeyID: "a", BlobSecretAccessKey: "b", BlobRedirect: true}, nil},
		{"blob store wrong", content.Config{Base: libservice.Base{MongoURI: "m", Kafka: kafkax.Config{Brokers: []string{"k"}}, InternalTokenSecret: secret, LogLevel: "info"},
			URLs: libservice.URLs{PublicURL: "http://x", AppURL: "http://x/app"},
			Addr: ":1", Database: "d", PurgeInterval: 60e9, BlobURL: "file:///tmp/blobs", BlobAccessKeyID: "a", BlobRedirect: true, StorageQuota: -1},
			[]string{"BLOB_ACCESS_KEY_ID", "BLOB_REDIRECT", "STORAGE_QUOTA_BYTES"}},
		{"everything wrong", content.Config{Base: libservice.Base{InternalTokenSecret: "short", LogLevel: "loud"},
			URLs: libservice.URLs{PublicURL: "nope"}},
			[]string{"CONTENT_ADDR", "MONGO_URI", "CONTENT_DB", "KAFKA_BROKERS", "INTERNAL_TOKEN_SECRET", "PUBLIC_URL", "APP_URL", "PURGE_INTERVAL", "LOG_LEVEL", "BLOB_URL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err != nil) != (len(tc.want) > 0) {
				t.Fatalf("Validate() = %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}
