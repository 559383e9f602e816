package openapihttp_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/urlguard"
)

// bigSpec is an OpenAPI 3.1 document of at least size bytes: paths whose
// responses $ref component schemas with a dozen properties each. Its
// info.version is VERSION, for the server to vary.
func bigSpec(size int) []byte {
	paths, schemas := map[string]any{}, map[string]any{}
	for i := 0; ; i++ {
		name := fmt.Sprintf("Thing%05d", i)
		props := map[string]any{}
		for j := range 12 {
			props[fmt.Sprintf("field%02d", j)] = map[string]any{"type": "string", "description": "A field of " + name + " that says something useful about it."}
		}
		props["next"] = map[string]any{"$ref": "#/components/schemas/" + name}
		schemas[name] = map[string]any{"type": "object", "properties": props}
		paths[fmt.Sprintf("/things%05d/{id}", i)] = map[string]any{"get": map[string]any{
			"operationId": "get" + name, "summary": "Read a " + name,
			"parameters": []any{map[string]any{"name": "id", "in": "path", "required": true, "schema": map[string]any{"type": "string"}}},
			"responses": map[string]any{"200": map[string]any{"description": "ok", "content": map[string]any{
				"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/" + name}}}}}}}
		if i%200 == 199 {
			b, _ := json.Marshal(map[string]any{"openapi": "3.1.0", "info": map[string]any{"title": "Big", "version": "VERSION"},
				"paths": paths, "components": map[string]any{"schemas": schemas}})
			if len(b) >= size {
				return b
			}
		}
	}
}

// BenchmarkProcess5MB processes a 5 MB spec fetched over HTTP (fetch,
// parse with $refs resolved, digest, a new version stored in GridFS), five
// times with a new info.version each, and reports the p50 and the heap
// still held after the runs (after a GC).
func BenchmarkProcess5MB(b *testing.B) {
	spec := bigSpec(5 << 20)
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write(bytes.Replace(spec, []byte("VERSION"), []byte(fmt.Sprint(n.Add(1))), 1))
	}))
	defer srv.Close()
	e := newEnvWorking(b, urlguard.Guard{AllowPrivate: true}, time.Minute, false)
	body := fmt.Sprintf(`{"slug":"big","source":{"url":%q}}`, srv.URL+"/big.json")
	var created struct{ ID string }
	if err := json.Unmarshal(e.expect(201, "", "admin", "POST", "/v1/orgs/o1/openapi", body), &created); err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	debug.FreeOSMemory()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 5
	var took []time.Duration
	for b.Loop() {
		for i := range runs {
			if i > 0 {
				e.expect(200, "", "admin", "PUT", "/v1/orgs/o1/openapi/big", fmt.Sprintf(`{"source":{"url":%q}}`, srv.URL+"/big.json"))
			}
			start := time.Now()
			if err := e.svc.Process(b.Context(), created.ID); err != nil {
				b.Fatal(err)
			}
			took = append(took, time.Since(start))
		}
	}
	runtime.GC()
	debug.FreeOSMemory()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	var spec0 map[string]any
	_ = json.Unmarshal(e.expect(200, "", "admin", "GET", "/v1/orgs/o1/openapi/big", ""), &spec0)
	if spec0["lastProcessErrorCode"] != nil || spec0["lastVersion"] == nil {
		b.Fatalf("spec after processing: %v", spec0)
	}
	slices.Sort(took)
	b.ReportMetric(float64(len(spec))/(1<<20), "spec-MiB")
	b.ReportMetric(float64(took[len(took)/2].Milliseconds()), "p50-ms")
	b.ReportMetric((float64(after.HeapAlloc)-float64(before.HeapAlloc))/(1<<20), "heap-held-MiB")
	b.ReportMetric(float64(after.HeapAlloc)/(1<<20), "heap-MiB")
}
