package manifests

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/config"
	"github.com/docspub/platform/libs/consultest"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/libs/otlptest"
	"github.com/docspub/platform/libs/porttest"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/insights"
	"github.com/docspub/platform/services/integrations"
	"github.com/docspub/platform/services/sites"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// starter starts a component from its environment, as its command does:
// the configuration parsed from env, validated, then Run.
type starter struct {
	// cfg is a zero Config of the component, for the variables it reads.
	cfg   any
	start func(ctx context.Context, env map[string]string, log *slog.Logger) error
}

func starterOf[C service.Config](run func(context.Context, C, *slog.Logger) error) starter {
	var zero C
	return starter{cfg: zero, start: func(ctx context.Context, env map[string]string, log *slog.Logger) error {
		var cfg C
		if err := config.LoadMap(ctx, &cfg, env); err != nil {
			return err
		}
		if err := cfg.Validate(); err != nil {
			return err
		}
		var tel service.Telemetry
		if err := config.LoadMap(ctx, &tel, env); err != nil {
			return err
		}
		if _, err := otelx.Sampler(tel.Sampler, tel.SamplerArg); err != nil {
			return err
		}
		return run(ctx, cfg, log)
	}}
}

// starters are the components' commands, by name.
var starters = map[string]starter{
	"gateway":      starterOf(gateway.Run),
	"identity":     starterOf(identity.Run),
	"content":      starterOf(content.Run),
	"sites":        starterOf(sites.Run),
	"insights":     starterOf(insights.Run),
	"integrations": starterOf(integrations.Run),
}

// envVar is a variable a configuration reads.
type envVar struct {
	name, def  string
	hasDefault bool
}

// envVars lists the variables that a configuration type reads (its `env`
// tags, nested structs included), with the Telemetry every command reads.
func envVars(cfg any) []envVar {
	var out []envVar
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			return
		}
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("env")
			if tag == "" {
				walk(f.Type)
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			v := envVar{name: name}
			for _, o := range strings.Split(opts, ",") {
				if d, ok := strings.CutPrefix(strings.TrimSpace(o), "default="); ok {
					v.def, v.hasDefault = d, true
				}
			}
			out = append(out, v)
		}
	}
	walk(reflect.TypeOf(cfg))
	walk(reflect.TypeOf(service.Telemetry{}))
	return out
}

// loopback matches an address on this machine: a default that is only
// right for `make run`.
var loopback = regexp.MustCompile(`(^|[/@,=])(127\.0\.0\.1|localhost)([:/]|$)`)

// podIP stands for the pod's address (the downward API's status.podIP).
const podIP = "pod-ip.test"

// renderEnv is the environment the container of d gets: its ConfigMap,
// its variables with $(VAR) expanded, the downward API, and the Secret
// references filled from secrets (Secret name → key → value). A
// reference to a key the fixture lacks is an error unless optional.
func renderEnv(t *testing.T, ix objects, d *appsv1.Deployment, ctr corev1.Container, secrets map[string]map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{}
	for k, v := range configMap(t, ix, ctr).Data {
		env[k] = v
	}
	expand := regexp.MustCompile(`\$\(([A-Z_0-9]+)\)`)
	for _, e := range ctr.Env {
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = expand.ReplaceAllStringFunc(e.Value, func(m string) string { return env[m[2:len(m)-1]] })
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "status.podIP":
			env[e.Name] = podIP
		case e.ValueFrom.ResourceFieldRef != nil:
			q := ctr.Resources.Limits[corev1.ResourceName(strings.TrimPrefix(e.ValueFrom.ResourceFieldRef.Resource, "limits."))]
			env[e.Name] = strconv.FormatInt(q.Value(), 10)
		case e.ValueFrom.SecretKeyRef != nil:
			ref := e.ValueFrom.SecretKeyRef
			v, ok := secrets[ref.Name][ref.Key]
			if ok {
				env[e.Name] = v
			} else if ref.Optional == nil || !*ref.Optional {
				t.Errorf("%s: %s refers to %s/%s, which the operator's Secret (the fixture) does not have", d.Name, e.Name, ref.Name, ref.Key)
			}
		default:
			t.Errorf("%s: %s comes from %+v, which this test does not render", d.Name, e.Name, e.ValueFrom)
		}
	}
	return env
}

// checkComplete: every variable the component reads whose default points
// at this machine is set, by the overlay or the operator's Secret; in prod,
// what the overlay itself sets (cm) never points at the pod. It derives
// from the code's configuration, so a variable added later is checked too.
func checkComplete(t *testing.T, overlay, name string, cfg any, env, cm map[string]string) {
	t.Helper()
	for _, v := range envVars(cfg) {
		if !v.hasDefault || !loopback.MatchString(v.def) {
			continue
		}
		if strings.HasSuffix(v.name, "_ADDR") && v.name != "CONSUL_HTTP_ADDR" {
			continue // listen addresses: checked against the container port
		}
		if v.name == "CONSUL_HTTP_ADDR" && env["DISCOVERY"] != "consul" {
			continue
		}
		_, ok := env[v.name]
		switch {
		case !ok:
			t.Errorf("%s %s: %s is not set; its default %s only works on a laptop", overlay, name, v.name, v.def)
		case overlay == "prod" && loopback.MatchString(cm[v.name]):
			t.Errorf("%s %s: %s = %s points at the pod itself", overlay, name, v.name, cm[v.name])
		}
	}
}

// syncBuffer is a log sink shared by the components' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestOverlayConfigurationStartsEveryComponent renders each overlay and
// starts every component in-process with exactly the environment its
// Deployment gives it (ConfigMap, Secret references filled from a fixture,
// cluster hosts and ports pointed at embedded servers on loopback): each
// must become ready and answer with URLs on the configured public host. In
// prod, Kafka requires SCRAM-SHA-512 over TLS, as a managed cluster does.
func TestOverlayConfigurationStartsEveryComponent(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the components do not start")
	}
	for _, overlay := range []string{"dev", "prod"} {
		t.Run(overlay, func(t *testing.T) { startOverlay(t, overlay) })
	}
}

func startOverlay(t *testing.T, overlay string) {
	ix := index(build(t, "k8s/overlays/"+overlay))
	mongo, err := embedded.StartMongo(t.TempDir(), "", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mongo.Close)
	rds, err := embedded.StartRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rds.Close)
	otlp := otlptest.Start(t)

	infra := map[string]string{"MONGO_URI": mongo.URI, "REDIS_URL": "redis://" + rds.Addr() + "/0",
		"OTEL_EXPORTER_OTLP_ENDPOINT": otlp.URL,
		// content's file bytes: a real S3 protocol server in the test.
		"BLOB_URL": blobtest.S3(t), "BLOB_ACCESS_KEY_ID": blobtest.Credentials.AccessKeyID,
		"BLOB_SECRET_ACCESS_KEY": blobtest.Credentials.SecretAccessKey}
	internal := map[string]string{"INTERNAL_TOKEN_SECRET": "fixture-internal-token-secret-0123456789"}
	hosts := map[string]string{"otel-collector:4318": strings.TrimPrefix(otlp.URL, "http://")}
	switch overlay {
	case "prod":
		k := kafkatest.StartSecure(t, kafkax.SASLScramSHA512)
		for key, v := range k.Env() {
			infra[key] = v
		}
		// Rotation in progress: the set signs with k2 and still accepts k1.
		internal["INTERNAL_TOKEN_KEYS"] = "k1:fixture-key-one-0123456789abcdef0123,k2:fixture-key-two-0123456789abcdef0123"
		internal["INTERNAL_TOKEN_KEY_ID"] = "k2"
	default:
		k := kafkatest.Start(t)
		infra["KAFKA_BROKERS"] = strings.Join(k.Brokers, ",")
	}
	secrets := map[string]map[string]string{"docspub-infra": infra, "docspub-internal": internal}
	// Each component's own Secret: its MongoDB URI and Kafka user (one
	// user for all in the fixture).
	for _, c := range components(t) {
		own := map[string]string{"MONGO_URI": infra["MONGO_URI"]}
		for _, k := range []string{"KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"} {
			if v, ok := infra[k]; ok {
				own[k] = v
			}
		}
		secrets["docspub-"+c.name] = own
	}

	cs := components(t)
	ports := map[int]int{} // container port → loopback port
	free := porttest.Free(t, len(cs)+1)
	for i, c := range cs {
		p := free[i]
		ports[c.port] = p
		for _, from := range []string{"0.0.0.0", c.name, podIP} {
			hosts[fmt.Sprintf("%s:%d", from, c.port)] = "127.0.0.1:" + strconv.Itoa(p)
		}
	}
	// The gateway's readers' listener.
	hosts[fmt.Sprintf("0.0.0.0:%d", readersPort)] = "127.0.0.1:" + strconv.Itoa(free[len(cs)])
	envs := map[string]map[string]string{}
	for _, c := range cs {
		d, ok := ix["Deployment/"+c.name].(*appsv1.Deployment)
		if !ok {
			t.Fatalf("no Deployment %s", c.name)
		}
		env := renderEnv(t, ix, d, d.Spec.Template.Spec.Containers[0], secrets)
		checkComplete(t, overlay, c.name, starters[c.name].cfg, env, configMap(t, ix, d.Spec.Template.Spec.Containers[0]).Data)
		envs[c.name] = env
	}
	if envs["gateway"]["DISCOVERY"] == "consul" || envs["content"]["DISCOVERY"] == "consul" {
		agent := consultest.Start(t)
		hosts["consul:8500"] = agent.Addr
	}
	var pairs []string
	for from, to := range hosts {
		pairs = append(pairs, from, to)
	}
	rewrite := strings.NewReplacer(pairs...)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	logs := &syncBuffer{}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("components' logs:\n%s", logs.String())
		}
	})
	migrateOverlay(t, ix, overlay, cs, secrets, rewrite)
	for _, c := range cs {
		env := map[string]string{}
		for k, v := range envs[c.name] {
			env[k] = rewrite.Replace(v)
		}
		// ADMIN_ADDR is served by the command (service.Main), not by Run.
		log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn})).With("component", c.name)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := starters[c.name].start(ctx, env, log); err != nil && ctx.Err() == nil {
				t.Errorf("%s %s stopped: %v", overlay, c.name, err)
			}
		}()
	}
	for _, c := range cs {
		base := "http://127.0.0.1:" + strconv.Itoa(ports[c.port])
		waittest.Until(t, c.name+" ready", time.Minute, func() bool {
			resp, err := http.Get(base + "/readyz")
			if err != nil {
				return false
			}
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		})
	}
	// The gateway's readers' listener serves too.
	readers := "http://127.0.0.1:" + strconv.Itoa(free[len(cs)])
	waittest.Until(t, "the gateway's readers' listener", time.Minute, func() bool {
		resp, err := http.Get(readers + "/healthz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	checkPublicURLs(t, ctx, overlay, envs, "http://127.0.0.1:"+strconv.Itoa(ports[8080]))

	if overlay == "prod" {
		// Wrong Kafka credentials stop every component's start, saying so.
		for _, c := range cs {
			env := map[string]string{}
			for k, v := range envs[c.name] {
				env[k] = rewrite.Replace(v)
			}
			env["KAFKA_SASL_PASSWORD"] = "not-the-password"
			env[c.addrVar] = "127.0.0.1:0"
			sctx, stop := context.WithTimeout(ctx, 30*time.Second)
			err := starters[c.name].start(sctx, env, slog.New(slog.DiscardHandler))
			stop()
			if err == nil || !kafkax.Refused(err) || !strings.Contains(err.Error(), "as user") {
				t.Errorf("%s with a wrong Kafka password: %v; want a start refused for the credentials, naming the user", c.name, err)
			}
		}
	}
}

// checkPublicURLs drives the started platform through its gateway with a
// user bootstrapped in identity's database, and checks that each service
// answers with URLs on the public host its configuration names.
func checkPublicURLs(t *testing.T, ctx context.Context, overlay string, envs map[string]map[string]string, gw string) {
	t.Helper()
	if overlay == "prod" {
		for name, env := range envs {
			if u := env["PUBLIC_URL"]; u != "" && u != prodPublicURL {
				t.Errorf("prod %s: PUBLIC_URL %s; want %s, the Ingress's API host", name, u, prodPublicURL)
			}
		}
	}
	client, err := mongox.Connect(ctx, envs["identity"]["MONGO_URI"])
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = client.Disconnect(context.Background()) }()
	admin, err := identity.Bootstrap(ctx, client.Database(envs["identity"]["IDENTITY_DB"]), identity.BootstrapInput{
		OrganizationTitle: "Config", UserDisplayName: "Admin", UserEmail: "admin@config.example", Role: roles.Admin})
	if err != nil {
		t.Fatal(err)
	}
	org := "/v1/orgs/" + admin.OrganizationID
	do := func(method, path string, body any) (int, map[string]any) {
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequestWithContext(ctx, method, gw+path, r)
		req.Header.Set("Authorization", "Bearer "+admin.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, nil
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	location := func(m map[string]any) string {
		urls, _ := m["urls"].(map[string]any)
		s, _ := urls["location"].(string)
		return s
	}
	for _, step := range []struct {
		service, method, path string
		body                  any
		want                  int
	}{
		{"identity", http.MethodGet, org, nil, http.StatusOK},
		// content and sites learn the member from identity's events: retried until they have.
		{"content", http.MethodPost, org + "/collections", map[string]any{"title": "Config"}, http.StatusCreated},
		{"sites", http.MethodPost, org + "/sites", map[string]any{"title": "Config"}, http.StatusCreated},
	} {
		var (
			status int
			body   map[string]any
		)
		waittest.Until(t, step.method+" "+step.path, time.Minute, func() bool {
			status, body = do(step.method, step.path, step.body)
			return status == step.want
		})
		public := envs[step.service]["PUBLIC_URL"]
		if loc := location(body); public == "" || !strings.HasPrefix(loc, strings.TrimRight(public, "/")+"/") {
			t.Errorf("%s %s: urls.location %q; want it on %s's PUBLIC_URL %q", step.method, step.path, loc, step.service, public)
		}
		if u, err := url.Parse(location(body)); err == nil && loopback.MatchString(u.Host) && overlay == "prod" {
			t.Errorf("prod %s answers with a loopback URL %s", step.service, location(body))
		}
	}
}

// prodPublicURL is the public base URL of the prod overlay: its Ingress's
// API host.
const prodPublicURL = "https://docs.example.com"
