package manifests

import (
	"context"
	"io/fs"
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	appsv1 "k8s.io/api/apps/v1"
)

// clientAddressVars are the gateway's settings of who a request's client
// is (gateway/internal/clientip).
var clientAddressVars = []string{"TRUSTED_PROXIES", "TRUSTED_HOPS", "PROXY_PROTOCOL"}

// clientAddressFile is each overlay's one place for clientAddressVars.
const clientAddressFile = "gateway/client-address.env"

// TestClientAddressSetInOnePlace: in k8s/, the client-address settings are
// written in each overlay's client-address.env and nowhere else; each
// overlay's gateway gets a valid combination of them; prod trusts
// X-Forwarded-For from no range as wide as a /8 (every pod could claim a
// client address).
func TestClientAddressSetInOnePlace(t *testing.T) {
	setting := regexp.MustCompile(`(^|[\s"'-])(` + strings.Join(clientAddressVars, "|") + `)\s*[=:]`)
	err := filepath.WalkDir(filepath.Join(root, "k8s"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(filepath.Join(root, "k8s"), path)
		if strings.HasSuffix(filepath.ToSlash(rel), "/"+clientAddressFile) {
			return nil
		}
		for i, line := range strings.Split(readFile(t, path), "\n") {
			if l := strings.TrimSpace(line); !strings.HasPrefix(l, "#") && setting.MatchString(l) {
				t.Errorf("k8s/%s:%d sets %q: client-address settings belong in %s", rel, i+1, l, clientAddressFile)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, overlay := range []string{"dev", "prod"} {
		readFile(t, filepath.Join(root, "k8s/overlays", overlay, clientAddressFile))
		ix := index(build(t, "k8s/overlays/"+overlay))
		d, ok := ix["Deployment/gateway"].(*appsv1.Deployment)
		if !ok {
			t.Fatalf("%s: no gateway Deployment", overlay)
		}
		data := configMap(t, ix, d.Spec.Template.Spec.Containers[0]).Data
		checkClientAddress(t, overlay, data)
		if overlay != "prod" {
			continue
		}
		if data["TRUSTED_PROXIES"] == "" && data["TRUSTED_HOPS"] == "" {
			t.Error("prod gateway has neither TRUSTED_PROXIES nor TRUSTED_HOPS: behind its Ingress every reader would be one address")
		}
		for _, s := range strings.Split(data["TRUSTED_PROXIES"], ",") {
			if pfx, err := netip.ParsePrefix(strings.TrimSpace(s)); err == nil && pfx.Bits() <= 8 {
				t.Errorf("TRUSTED_PROXIES trusts %s: every pod could claim a client address", s)
			}
		}
	}
}

// checkClientAddress loads the client-address settings of env as the
// gateway does and reports their problems.
func checkClientAddress(t *testing.T, where string, env map[string]string) {
	t.Helper()
	var cfg gateway.Config
	if err := config.LoadMap(context.Background(), &cfg, env); err != nil {
		t.Errorf("%s: gateway configuration: %v", where, err)
		return
	}
	err := cfg.Validate()
	if err == nil {
		return
	}
	for _, problem := range strings.FieldsFunc(err.Error(), func(r rune) bool { return r == ';' || r == '\n' }) {
		problem = strings.TrimSpace(strings.TrimPrefix(problem, "invalid configuration:"))
		for _, name := range clientAddressVars {
			if strings.HasPrefix(problem, name) {
				t.Errorf("%s: %s", where, problem)
			}
		}
	}
}

// TestComposeClientAddressFromTheShell: compose's gateway takes the
// client-address settings from the shell (or .env), valid when unset.
func TestComposeClientAddressFromTheShell(t *testing.T) {
	for _, shell := range []types.Mapping{{}, {"TRUSTED_HOPS": "2"}, {"TRUSTED_PROXIES": "172.18.0.1", "PROXY_PROTOCOL": "true"}} {
		want := maps.Clone(shell) // the loader adds to shell
		p, err := loadComposeWith(t, filepath.Join(root, "deployments/compose/compose.yaml"), shell)
		if err != nil {
			t.Fatalf("load compose.yaml: %v", err)
		}
		s, err := p.GetService("gateway")
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for k, v := range s.Environment {
			if v != nil {
				env[k] = *v
			}
		}
		for k, v := range want {
			if env[k] != v {
				t.Errorf("with %s=%s in the shell, the gateway gets %s=%q", k, v, k, env[k])
			}
		}
		checkClientAddress(t, "compose", env)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
