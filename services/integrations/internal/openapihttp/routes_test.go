package openapihttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/jobs/jobsmongo"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/integrations/internal/openapi"
	"github.com/docspub/platform/services/integrations/internal/openapihttp"
	"github.com/docspub/platform/services/integrations/internal/openapimongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var callers = map[string]map[string]string{
	"admin":  {"o1": "admin"},
	"reader": {"o1": "read"},
	"other":  {"o2": "admin"},
	"admin2": {"o2": "admin"},
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: callers[user]}
}

type env struct {
	t     testing.TB
	api   *apitest.Client
	svc   *openapi.Service
	store *openapimongo.Store
}

// newEnv wires the real routes, service, store (FerretDB) and a running job
// worker; guard decides which fetches may leave.
func newEnv(t testing.TB, guard urlguard.Guard, fetchTimeout time.Duration) *env {
	t.Helper()
	return newEnvWorking(t, guard, fetchTimeout, true)
}

// newEnvWorking is newEnv with the job worker running or not.
func newEnvWorking(t testing.TB, guard urlguard.Guard, fetchTimeout time.Duration, work bool) *env {
	t.Helper()
	return newEnvConfig(t, openapi.Config{Guard: guard, FetchTimeout: fetchTimeout}, work)
}

// newEnvConfig is newEnvWorking with the service's whole configuration.
func newEnvConfig(t testing.TB, cfg openapi.Config, work bool) *env {
	t.Helper()
	db := mongotest.DB(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := mongox.EnsureIndexes(ctx, db.Database, append(openapimongo.Indexes(), jobsmongo.Indexes("jobs")...)...); err != nil {
		t.Fatal(err)
	}
	queue := jobsmongo.NewQueue(db, "jobs", jobsmongo.WithLease(5*time.Second))
	store := openapimongo.NewStore(db, nil)
	svc := openapi.New(store, queue, cfg, "https://api.test", "https://app.test", logx.ForTest(t))
	w := queue.NewWorker(map[string]jobs.Handler{openapi.JobKind: svc.Handler}, 2, logx.ForTest(t))
	w.SetPoll(20 * time.Millisecond)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if work {
			_ = w.Run(ctx)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "integrations")
	openapihttp.Register(e.Group("/v1", internaltoken.Require(signer)), svc)
	openapihttp.RegisterInternal(e.Group("/internal/v1", internaltoken.Require(signer),
		internaltoken.RequireService(integrationsapi.Sites)), svc)
	return &env{t: t, api: apitest.New(t, e, signer), svc: svc, store: store}
}

func (e *env) expect(want int, op, user, method, path, body string) []byte {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, want, op).Body
}

// processed waits until the spec's processing is complete and returns it.
func (e *env) processed(slug string, within time.Duration) map[string]any {
	e.t.Helper()
	var spec map[string]any
	waittest.Until(e.t, "spec "+slug+" processed", within, func() bool {
		r := e.api.Do(as("admin"), http.MethodGet, "/v1/orgs/o1/openapi/"+slug, "")
		_ = json.Unmarshal(r.Body, &spec)
		return spec["processingState"] == "complete"
	})
	return spec
}

const v31 = `{"openapi":"3.1.0","info":{"title":"Pets","version":"1.0.0"},"paths":{"/pets":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Pet"}}}}}}}},"components":{"schemas":{"Pet":{"type":"object","properties":{"name":{"type":"string"},"friend":{"$ref":"#/components/schemas/Pet"}}}}}}`

const v30yaml = `openapi: 3.0.3
info:
  title: Shop
  version: "2"
paths:
  /orders:
    get:
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema:
                $ref: '#/components/schemas/Order'
components:
  schemas:
    Order:
      type: object
      properties:
        id: {type: string}
`

const v20 = `{"swagger":"2.0","info":{"title":"Old","version":"0.1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","schema":{"$ref":"#/definitions/X"}}}}}},"definitions":{"X":{"type":"string"}}}`

// docs serves documents by path; /slow never answers within the test.
func docs(t testing.TB, bodies map[string]string) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/slow" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, b)
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv, &hits
}

func TestProcessingOutcomes(t *testing.T) {
	srv, _ := docs(t, map[string]string{"/v31.json": v31, "/v30.yaml": v30yaml, "/v20.json": v20,
		"/broken.yaml": "openapi: 3.0.0\ninfo: [this is not: valid\n", "/notopenapi.json": `{"hello":"world"}`})
	e := newEnv(t, urlguard.Guard{AllowPrivate: true}, 500*time.Millisecond)
	for _, tc := range []struct {
		slug, path, wantCode string
	}{
		{"v31", "/v31.json", ""},
		{"v30-yaml", "/v30.yaml", ""},
		{"v20", "/v20.json", ""},
		{"missing", "/nothing-here.json", openapi.ErrFetch},
		{"slow", "/slow", openapi.ErrFetchTimeout},
		{"broken", "/broken.yaml", openapi.ErrParse},
		{"not-openapi", "/notopenapi.json", openapi.ErrParse},
	} {
		t.Run(tc.slug, func(t *testing.T) {
			body := fmt.Sprintf(`{"slug":%q,"source":{"url":%q}}`, tc.slug, srv.URL+tc.path)
			created := e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", body)
			if got := apitest.Decode[map[string]any](t, created)["processingState"]; got != "pending" {
				t.Fatalf("created spec is %v, want pending", got)
			}
			start := time.Now()
			spec := e.processed(tc.slug, 20*time.Second)
			raw, _ := json.Marshal(spec)
			if err := contracttest.Check("OpenAPISpec", raw); err != nil {
				t.Error(err)
			}
			got, _ := spec["lastProcessErrorCode"].(string)
			if got != tc.wantCode {
				t.Fatalf("lastProcessErrorCode %q, want %q (spec %s)", got, tc.wantCode, raw)
			}
			if spec["lastProcessedAt"] == nil {
				t.Fatalf("no lastProcessedAt: %s", raw)
			}
			if tc.wantCode == openapi.ErrFetchTimeout && time.Since(start) > 10*time.Second {
				t.Fatalf("timeout took %s", time.Since(start))
			}
			if (tc.wantCode == "") != (spec["lastVersion"] != nil) {
				t.Fatalf("lastVersion %v with error code %q", spec["lastVersion"], tc.wantCode)
			}
		})
	}
}

func TestVersionsAndSameContent(t *testing.T) {
	srv, hits := docs(t, map[string]string{"/a.json": v31, "/b.yaml": v30yaml})
	e := newEnv(t, urlguard.Guard{AllowPrivate: true}, 5*time.Second)
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"pets","source":{"url":"`+srv.URL+`/a.json"}}`)
	first := e.processed("pets", 20*time.Second)
	v1 := first["lastVersion"].(string)

	// The same content again makes no new version.
	before := hits.Load()
	e.expect(200, "createOrUpdateOpenAPISpecBySlug", "admin", "PUT", "/v1/orgs/o1/openapi/pets", `{"source":{"url":"`+srv.URL+`/a.json"}}`)
	waittest.Until(t, "refetch", 20*time.Second, func() bool { return hits.Load() > before })
	if again := e.processed("pets", 20*time.Second); again["lastVersion"] != v1 {
		t.Fatalf("same content made version %v, want %s", again["lastVersion"], v1)
	}
	list := apitest.Decode[map[string]any](t, e.expect(200, "", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions", ""))
	if list["count"].(float64) != 1 {
		t.Fatalf("versions after the same content twice: %v", list)
	}

	// New content (a text source, YAML) makes a second version.
	text, _ := json.Marshal(v30yaml)
	e.expect(200, "createOrUpdateOpenAPISpecBySlug", "admin", "PUT", "/v1/orgs/o1/openapi/pets", `{"source":{"text":`+string(text)+`}}`)
	waittest.Until(t, "second version", 20*time.Second, func() bool {
		s := e.processed("pets", 20*time.Second)
		return s["lastVersion"] != v1
	})
	latest := apitest.Decode[map[string]any](t, e.expect(200, "getOpenAPISpecVersionById", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions/latest", ""))
	for _, f := range []string{"object", "id", "url", "urls"} {
		if latest[f] == nil {
			t.Fatalf("version lacks %s: %v", f, latest)
		}
	}
	raw := apitest.Decode[map[string]any](t, e.expect(200, "getOpenAPISpecVersionRawContent", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions/latest/content/raw", ""))
	if raw["text"] != v30yaml || raw["format"] != "yaml" {
		t.Fatalf("raw content %v", raw)
	}
	content := apitest.Decode[map[string]any](t, e.expect(200, "getOpenAPISpecVersionContentById", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions/"+v1+"/content", ""))
	if fs, _ := content["filesystem"].(map[string]any); fs["openapi"] != "3.1.0" {
		t.Fatalf("content of the first version %v", content)
	}
	list = apitest.Decode[map[string]any](t, e.expect(200, "listOpenAPISpecVersions", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions?limit=1", ""))
	if list["count"].(float64) != 2 || list["next"] == nil {
		t.Fatalf("versions page: %v", list)
	}
	e.expect(200, "", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions/"+v1, "")
	e.expect(404, "", "admin", "GET", "/v1/orgs/o1/openapi/pets/versions/nope", "")
	e.expect(404, "", "other", "GET", "/v1/orgs/o1/openapi/pets/versions/latest", "")
}

func TestCRUDAndBadInput(t *testing.T) {
	e := newEnv(t, urlguard.Guard{}, 5*time.Second)
	spec := `{"openapi":"3.0.0","info":{"title":"T","version":"1"},"paths":{}}`
	text, _ := json.Marshal(spec)
	body := `{"slug":"api","source":{"text":` + string(text) + `}}`
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", body)
	e.expect(409, "", "admin", "POST", "/v1/orgs/o1/openapi", body)
	e.expect(200, "listOpenAPISpecs", "reader", "GET", "/v1/orgs/o1/openapi", "")
	e.expect(200, "getOpenAPISpecBySlug", "reader", "GET", "/v1/orgs/o1/openapi/api", "")
	e.expect(404, "", "other", "GET", "/v1/orgs/o1/openapi/api", "")
	e.expect(403, "", "reader", "PUT", "/v1/orgs/o1/openapi/api", `{"source":{"text":"x"}}`)
	patched := e.expect(200, "", "admin", "PATCH", "/v1/orgs/o1/openapi/api", `{"visibility":"public"}`)
	contracttest.Validate(t, "OpenAPISpec", patched)
	e.expect(200, "createOrUpdateOpenAPISpecBySlug", "admin", "PUT", "/v1/orgs/o1/openapi/new-one", `{"source":{"text":`+string(text)+`}}`)

	long := strings.Repeat("a", 101)
	for _, tc := range []struct{ name, method, path, body, field string }{
		{"slug pattern", "POST", "/v1/orgs/o1/openapi", `{"slug":"Not OK","source":{"text":"x"}}`, "slug"},
		{"slug length", "POST", "/v1/orgs/o1/openapi", `{"slug":"` + long + `","source":{"text":"x"}}`, "slug"},
		{"slug missing", "POST", "/v1/orgs/o1/openapi", `{"source":{"text":"x"}}`, "slug"},
		{"source missing", "POST", "/v1/orgs/o1/openapi", `{"slug":"a"}`, "source"},
		{"both sources", "POST", "/v1/orgs/o1/openapi", `{"slug":"a","source":{"url":"https://example.com/x","text":"x"}}`, "source"},
		{"empty text", "POST", "/v1/orgs/o1/openapi", `{"slug":"a","source":{"text":""}}`, "source.text"},
		{"url too long", "POST", "/v1/orgs/o1/openapi", `{"slug":"a","source":{"url":"https://example.com/` + strings.Repeat("x", 2048) + `"}}`, "source.url"},
		{"private address", "POST", "/v1/orgs/o1/openapi", `{"slug":"a","source":{"url":"http://127.0.0.1:8080/spec.json"}}`, "source.url"},
		{"metadata address", "PUT", "/v1/orgs/o1/openapi/api", `{"source":{"url":"http://169.254.169.254/latest"}}`, "source.url"},
		{"not http", "POST", "/v1/orgs/o1/openapi", `{"slug":"a","source":{"url":"file:///etc/passwd"}}`, "source.url"},
		{"visibility", "PATCH", "/v1/orgs/o1/openapi/api", `{"visibility":"everyone"}`, "visibility"},
		{"source type", "PUT", "/v1/orgs/o1/openapi/api", `{"source":"x"}`, "source"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := e.expect(400, "", "admin", tc.method, tc.path, tc.body)
			if msg := apitest.ErrorMessage(t, b); !strings.HasPrefix(msg, tc.field) {
				t.Fatalf("error %q does not name %s", msg, tc.field)
			}
		})
	}
	e.expect(205, "deleteOpenAPISpecBySlug", "admin", "DELETE", "/v1/orgs/o1/openapi/api", "")
	e.expect(404, "", "admin", "GET", "/v1/orgs/o1/openapi/api", "")
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", body) // the slug is free again
}

func TestPendingProcessingIsBoundedPerOrganization(t *testing.T) {
	e := newEnvWorking(t, urlguard.Guard{}, time.Second, false) // nothing gets processed
	for i := range openapi.MaxPendingPerOrg {
		e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", fmt.Sprintf(`{"slug":"s%d","source":{"text":"x"}}`, i))
	}
	r := e.api.Do(as("admin"), "POST", "/v1/orgs/o1/openapi", `{"slug":"one-more","source":{"text":"x"}}`)
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("over the pending bound: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	apitest.ErrorMessage(t, r.Body)
	e.expect(429, "", "admin", "PUT", "/v1/orgs/o1/openapi/s0", `{"source":{"text":"y"}}`)
	e.expect(201, "createOpenAPISpec", "admin2", "POST", "/v1/orgs/o2/openapi", `{"slug":"theirs","source":{"text":"x"}}`)
}
