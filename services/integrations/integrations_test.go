package integrations

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/config"
)

func TestConfigDefaultsAndProblems(t *testing.T) {
	t.Parallel()
	var cfg Config
	if err := config.LoadMap(context.Background(), &cfg, map[string]string{"INTERNAL_TOKEN_SECRET": strings.Repeat("s", 32)}); err != nil {
		t.Fatal(err)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if cfg.Addr != "127.0.0.1:8085" || cfg.Database != "integrations" || cfg.GitMaxBytes != 256<<20 || cfg.Workers != 2 || cfg.ParseTimeout != 20*time.Second ||
		cfg.GitMaxInflatedBytes != 1<<30 || cfg.GitMaxObjects != 100_000 || cfg.GitMaxObjectBytes != 100<<20 || cfg.TenantJobs != 1 || cfg.TenantRest != 1 {
		t.Fatalf("defaults %+v", cfg)
	}
	if s := fmt.Sprint(config.Describe(cfg)); strings.Contains(s, strings.Repeat("s", 32)) {
		t.Fatalf("the secret is shown: %s", s)
	}
	bad := cfg
	bad.InternalTokenSecret, bad.FetchTimeout, bad.GitMaxBytes, bad.Workers, bad.ContentURL = "short", 0, 1, 0, "ftp://x"
	bad.ParseTimeout, bad.TenantJobs, bad.TenantRest = time.Hour, -1, 11
	bad.GitMaxObjects, bad.GitMaxObjectBytes = 1, 2<<30
	err := bad.Validate()
	for _, want := range []string{"INTERNAL_TOKEN_SECRET", "OPENAPI_FETCH_TIMEOUT", "OPENAPI_PARSE_TIMEOUT", "JOB_TENANT_LIMIT", "JOB_TENANT_REST", "GIT_MAX_BYTES", "JOB_WORKERS", "CONTENT_URL",
		"GIT_MAX_OBJECTS", "GIT_MAX_OBJECT_BYTES"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
}
