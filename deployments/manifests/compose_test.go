package manifests

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/compose-spec/compose-go/v2/loader"
	"github.com/compose-spec/compose-go/v2/types"
)

// loadCompose loads the compose file with compose-go, the loader docker
// compose itself uses: schema validation, interpolation, path resolution.
func loadCompose(t *testing.T, file string) (*types.Project, error) {
	t.Helper()
	return loadComposeWith(t, file, types.Mapping{})
}

// loadComposeWith loads the compose file as loadCompose does, with env as
// the shell's environment.
func loadComposeWith(t *testing.T, file string, env types.Mapping) (*types.Project, error) {
	t.Helper()
	abs, err := filepath.Abs(file)
	if err != nil {
		t.Fatal(err)
	}
	return loader.LoadWithContext(context.Background(), types.ConfigDetails{
		WorkingDir:  filepath.Dir(abs),
		ConfigFiles: []types.ConfigFile{{Filename: abs}},
		Environment: env,
	}, func(o *loader.Options) { o.SetProjectName("docspub", true) })
}

func TestComposeLoaderRefusesUnknownFields(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "compose.yaml")
	if err := os.WriteFile(bad, []byte("services:\n  a:\n    image: x\n    helthcheck: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := loadCompose(t, bad); err == nil {
		t.Error("a misspelt field loaded")
	}
}

// The compose stack runs the real infrastructure and every component built
// from the Dockerfile with its build arguments, each with a healthcheck, waiting for what it needs.
func TestComposeRunsTheWholeStack(t *testing.T) {
	p, err := loadCompose(t, filepath.Join(root, "deployments/compose/compose.yaml"))
	if err != nil {
		t.Fatalf("load compose.yaml: %v", err)
	}
	repo, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mongo", "kafka", "redis", "consul", "otel-collector", "jaeger"} {
		if _, err := p.GetService(name); err != nil {
			t.Errorf("no %s: %v", name, err)
		}
	}
	if mongo, err := p.GetService("mongo"); err == nil && !slices.Contains(mongo.Command, "--replSet") {
		t.Errorf("mongo command %v, want a replica set (transactions)", mongo.Command)
	}
	if kafka, err := p.GetService("kafka"); err == nil {
		if roles := kafka.Environment["KAFKA_PROCESS_ROLES"]; roles == nil || *roles != "broker,controller" {
			t.Errorf("kafka KAFKA_PROCESS_ROLES = %v, want broker,controller (KRaft)", roles)
		}
		// The data volume is where the image writes, and topics are
		// provisioned by the components, not auto-created.
		dirs := kafka.Environment["KAFKA_LOG_DIRS"]
		mounted := false
		for _, v := range kafka.Volumes {
			mounted = mounted || (dirs != nil && v.Target == *dirs)
		}
		if !mounted {
			t.Errorf("kafka writes to %v, where no volume is mounted", ptrValue(dirs))
		}
		if auto := kafka.Environment["KAFKA_AUTO_CREATE_TOPICS_ENABLE"]; auto == nil || *auto != "false" {
			t.Errorf("kafka KAFKA_AUTO_CREATE_TOPICS_ENABLE = %v, want false (the components provision their topics)", ptrValue(auto))
		}
	}
	for _, name := range infrastructure {
		if s, err := p.GetService(name); err == nil && name != "otel-collector" && s.HealthCheck == nil {
			t.Errorf("%s has no healthcheck", name)
		}
	}
	for _, c := range components(t) {
		t.Run(c.name, func(t *testing.T) {
			s, err := p.GetService(c.name)
			if err != nil {
				t.Fatalf("no compose service %s", c.name)
			}
			if s.Build == nil || s.Build.Context != repo || s.Build.Dockerfile != dockerfile {
				t.Fatalf("build %+v, want context %s and dockerfile %s", s.Build, repo, dockerfile)
			}
			checkBuildArgs(t, s.Build.Args, c)
			want := []string{"CMD", "/probe", "http://127.0.0.1:" + strconv.Itoa(c.port) + "/readyz"}
			if s.HealthCheck == nil || !slices.Equal(s.HealthCheck.Test, want) {
				t.Errorf("healthcheck %+v, want %v", s.HealthCheck, want)
			}
			env := func(k string) string {
				if v := s.Environment[k]; v != nil {
					return *v
				}
				return ""
			}
			if got := env(c.addrVar); got != "0.0.0.0:"+strconv.Itoa(c.port) {
				t.Errorf("%s = %q", c.addrVar, got)
			}
			if env("DISCOVERY") != "consul" || env("OTEL_TRACES_EXPORTER") != "otlp" || !strings.HasPrefix(env("OTEL_EXPORTER_OTLP_ENDPOINT"), "http://otel-collector:") {
				t.Errorf("DISCOVERY %q, OTEL_TRACES_EXPORTER %q, endpoint %q: want consul and OTLP to the collector",
					env("DISCOVERY"), env("OTEL_TRACES_EXPORTER"), env("OTEL_EXPORTER_OTLP_ENDPOINT"))
			}
			if len(env("INTERNAL_TOKEN_SECRET")) < 32 {
				t.Error("INTERNAL_TOKEN_SECRET shorter than 32 bytes")
			}
			needs := []string{"consul", "kafka"}
			if c.name == "gateway" {
				needs = append(needs, "redis")
			} else {
				needs = append(needs, "mongo")
			}
			for _, dep := range needs {
				if d, ok := s.DependsOn[dep]; !ok || d.Condition != types.ServiceConditionHealthy {
					t.Errorf("depends_on %s = %+v, want condition service_healthy", dep, d)
				}
			}
			if !s.ReadOnly || !slices.Equal(s.CapDrop, []string{"ALL"}) {
				t.Errorf("read_only %v, cap_drop %v; want a read-only root and no capabilities", s.ReadOnly, s.CapDrop)
			}
		})
	}
}
