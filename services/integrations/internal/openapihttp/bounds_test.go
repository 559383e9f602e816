package openapihttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/integrations/internal/openapi"
	"go.yaml.in/yaml/v3"
)

// refChain is issue 19's slow spec: n component schemas, each referring
// to the next one (about 80 bytes per link: 40,000 links make 3 MB).
func refChain(n int) string {
	var b strings.Builder
	b.WriteString(`{"openapi":"3.0.3","info":{"title":"Chain","version":"1"},"paths":{"/x":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/S0"}}}}}}}},"components":{"schemas":{`)
	for i := range n {
		fmt.Fprintf(&b, `"S%d":{"type":"object","properties":{"next":{"$ref":"#/components/schemas/S%d"}}},`, i, i+1)
	}
	fmt.Fprintf(&b, `"S%d":{"type":"string"}}}}`, n)
	return b.String()
}

// TestProcessingIsBounded: issue 19's reproductions end their processing
// quickly with an error that names the limit.
func TestProcessingIsBounded(t *testing.T) {
	chain := refChain(40_000)
	if len(chain) < 3_000_000 {
		t.Fatalf("the chain spec has %d bytes, want 3 MB", len(chain))
	}
	srv, _ := docs(t, map[string]string{"/chain.json": chain,
		"/huge.json": `{"openapi":"3.0.0","x":"` + strings.Repeat("x", openapi.MaxSpecBytes) + `"}`})
	e := newEnv(t, urlguard.Guard{AllowPrivate: true}, 10*time.Second)
	for _, tc := range []struct{ slug, path, code, message string }{
		{"chain", "/chain.json", openapi.ErrParse, "a chain of $refs is longer than 500"},
		{"huge", "/huge.json", openapi.ErrFetch, fmt.Sprintf("the source is larger than %d bytes", openapi.MaxSpecBytes)},
	} {
		t.Run(tc.slug, func(t *testing.T) {
			start := time.Now()
			e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi",
				fmt.Sprintf(`{"slug":%q,"source":{"url":%q}}`, tc.slug, srv.URL+tc.path))
			spec := e.processed(tc.slug, 30*time.Second)
			took := time.Since(start)
			errs, _ := spec["lastProcessedErrors"].([]any)
			if spec["lastProcessErrorCode"] != tc.code || len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]), tc.message) {
				t.Fatalf("spec %v, want %s saying %q", spec, tc.code, tc.message)
			}
			t.Logf("%s failed in %s", tc.slug, took)
			if took > 10*time.Second {
				t.Errorf("the %s spec took %s to fail", tc.slug, took)
			}
		})
	}
}

// TestParseTimeout: a parse that outlasts the parse timeout ends the
// processing with an error naming it.
func TestParseTimeout(t *testing.T) {
	srv, _ := docs(t, map[string]string{"/big.json": string(bigSpec(1 << 20))})
	e := newEnvConfig(t, openapi.Config{Guard: urlguard.Guard{AllowPrivate: true}, FetchTimeout: 10 * time.Second,
		ParseTimeout: time.Millisecond}, true)
	e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"big","source":{"url":"`+srv.URL+`/big.json"}}`)
	spec := e.processed("big", 30*time.Second)
	if spec["lastProcessErrorCode"] != openapi.ErrParse || !strings.Contains(fmt.Sprint(spec["lastProcessedErrors"]), "took longer than 1ms to parse") {
		t.Fatalf("spec %v, want PARSE_ERROR naming the timeout", spec)
	}
}

// TestContentIsTheStoredRendering: a YAML version's content is its JSON
// rendering, made once when the version was; a JSON version's is itself.
func TestContentIsTheStoredRendering(t *testing.T) {
	srv, _ := docs(t, map[string]string{"/a.yaml": v30yaml, "/b.json": v31})
	e := newEnv(t, urlguard.Guard{AllowPrivate: true}, 5*time.Second)
	for _, tc := range []struct{ slug, path, want string }{
		{"yaml", "/a.yaml", `{"openapi":"3.0.3","info":{"title":"Shop","version":"2"},"paths":{"/orders":{"get":{"responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Order"}}}}}}}},"components":{"schemas":{"Order":{"type":"object","properties":{"id":{"type":"string"}}}}}}`},
		{"json", "/b.json", v31},
	} {
		t.Run(tc.slug, func(t *testing.T) {
			e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"`+tc.slug+`","source":{"url":"`+srv.URL+tc.path+`"}}`)
			if spec := e.processed(tc.slug, 20*time.Second); spec["lastVersion"] == nil {
				t.Fatalf("no version: %v", spec)
			}
			body := e.expect(200, "", "reader", "GET", "/v1/orgs/o1/openapi/"+tc.slug+"/versions/latest/content", "")
			var got struct {
				Filesystem json.RawMessage
				URLs       map[string]any
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("content %s: %v", body, err)
			}
			if string(got.Filesystem) != tc.want {
				t.Fatalf("filesystem\n got %s\nwant %s", got.Filesystem, tc.want)
			}
			if got.URLs["source"] != srv.URL+tc.path || got.URLs["public"] != nil {
				t.Fatalf("urls %v", got.URLs)
			}
		})
	}
}

// TestContentOfAnOlderVersion: a YAML version stored before renderings
// were (none stored with it) is rendered when read.
func TestContentOfAnOlderVersion(t *testing.T) {
	e := newEnv(t, urlguard.Guard{}, 5*time.Second)
	text, _ := json.Marshal(v30yaml)
	created := e.expect(201, "createOpenAPISpec", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"old","source":{"text":`+string(text)+`}}`)
	var spec struct{ ID string }
	if err := json.Unmarshal(created, &spec); err != nil {
		t.Fatal(err)
	}
	e.processed("old", 20*time.Second)
	v := openapi.Version{ID: "before", Spec: spec.ID, Organization: "o1", Digest: "d", Format: "yaml", Size: int64(len(v30yaml)), CreatedAt: time.Now()}
	if err := e.store.InsertVersion(t.Context(), v, []byte(v30yaml), nil); err != nil {
		t.Fatal(err)
	}
	latest := e.expect(200, "", "admin", "GET", "/v1/orgs/o1/openapi/old/versions/latest/content", "")
	older := e.expect(200, "", "admin", "GET", "/v1/orgs/o1/openapi/old/versions/before/content", "")
	fs := func(b []byte) []byte {
		var c struct{ Filesystem json.RawMessage }
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("content %s: %v", b, err)
		}
		return c.Filesystem
	}
	if !bytes.Equal(fs(latest), fs(older)) || !bytes.HasPrefix(fs(older), []byte(`{"openapi":"3.0.3"`)) {
		t.Fatalf("content of the older version\n%s\nof the latest\n%s", older, latest)
	}
}

// BenchmarkContent2MBYAML reads the content of a 2 MB YAML spec's version:
// the bytes it allocates per read.
func BenchmarkContent2MBYAML(b *testing.B) {
	var v any
	if err := json.Unmarshal(bigSpec(2<<20), &v); err != nil {
		b.Fatal(err)
	}
	var y bytes.Buffer
	enc := yaml.NewEncoder(&y)
	if err := enc.Encode(v); err != nil {
		b.Fatal(err)
	}
	text := y.String()
	srv, _ := docs(b, map[string]string{"/big.yaml": text})
	e := newEnv(b, urlguard.Guard{AllowPrivate: true}, time.Minute)
	e.expect(201, "", "admin", "POST", "/v1/orgs/o1/openapi", `{"slug":"big","source":{"url":"`+srv.URL+`/big.yaml"}}`)
	if spec := e.processed("big", 2*time.Minute); spec["lastVersion"] == nil {
		b.Fatalf("no version: %v", spec)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := e.api.Do(as("admin"), "GET", "/v1/orgs/o1/openapi/big/versions/latest/content", "")
		if r.Status != 200 {
			b.Fatalf("content: %d", r.Status)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(text))/(1<<20), "yaml-MiB")
}
