// Package eventtest checks the events of a libs/internalapi package
// against their goldens: one JSON file per event type and schema version
// (testdata/events/<type>.v<version>.json), the envelope as its
// constructor builds it from fixed inputs, id and time fixed.
//
// Golden fails when an event's encoding differs from its golden. Run the
// test with -update to write the goldens of new types or versions, and to
// rewrite a golden whose version did not change only when the change is
// compatible: every field of the golden is still there with the same value
// (a consumer still on the golden's struct reads the new encoding). An
// incompatible change needs a version bump: the previous golden is kept
// and must still decode with the consumers' decoders (Goldens).
package eventtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
)

var update = flag.Bool("update", false, "write the goldens of new events and of compatible changes")

// Dir is where a package's goldens are, relative to its directory.
const Dir = "testdata/events"

// ID and At are the id and time of every golden event.
var (
	ID = "0123456789abcdef0123456789abcdef"
	At = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
)

// Name is the golden file name of ev: <type>.v<version>.json.
func Name(ev envelope.Event) string {
	return fmt.Sprintf("%s.v%d.json", ev.Type, ev.SchemaVersion())
}

// Encode is ev as its golden holds it: id and time fixed, indented.
func Encode(ev envelope.Event) ([]byte, error) {
	ev.ID, ev.OccurredAt, ev.Trace = ID, At, nil
	raw, err := envelope.Marshal(ev)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, raw, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}

// Golden compares each of evs with its golden in Dir (see the package doc).
func Golden(t *testing.T, evs ...envelope.Event) {
	t.Helper()
	for _, ev := range evs {
		got, err := Encode(ev)
		if err != nil {
			t.Errorf("encode %s: %v", ev.Type, err)
			continue
		}
		path := filepath.Join(Dir, Name(ev))
		want, err := os.ReadFile(path)
		switch {
		case err != nil && *update && os.IsNotExist(err):
			write(t, path, got)
		case err != nil:
			t.Errorf("%s: %v (run the test with -update to write it)", path, err)
		case bytes.Equal(got, want):
		case !Compatible(want, got):
			t.Errorf("%s changed incompatibly: bump its version and keep this golden\n got: %s\nwant: %s", path, got, want)
		case *update:
			write(t, path, got)
		default:
			t.Errorf("%s changed (compatibly: run with -update to accept it)\n got: %s\nwant: %s", path, got, want)
		}
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", path)
}

// Compatible reports whether the JSON now holds every field of the JSON
// was with the same value (objects may gain fields; arrays and values are
// compared whole, with the same rule inside their objects).
func Compatible(was, now []byte) bool {
	var a, b any
	if json.Unmarshal(was, &a) != nil || json.Unmarshal(now, &b) != nil {
		return false
	}
	return within(a, b)
}

func within(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !within(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !within(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// Goldens reads every golden of fsys (a package's embedded Dir), every
// version, as the events consumers receive.
func Goldens(t testing.TB, fsys fs.FS) []envelope.Event {
	t.Helper()
	names, err := fs.Glob(fsys, Dir+"/*.json")
	if err != nil || len(names) == 0 {
		t.Fatalf("no goldens in %s (%v)", Dir, err)
	}
	out := make([]envelope.Event, 0, len(names))
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			t.Fatal(err)
		}
		var ev envelope.Event
		if err := json.Unmarshal(b, &ev); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := Name(ev); filepath.Base(name) != want {
			t.Errorf("%s holds an event of %s", name, want)
		}
		out = append(out, ev)
	}
	return out
}

// Catalogue checks that every type of c has a golden of its current
// version, and that every golden is of a declared type at a version up to
// its current one.
func Catalogue(t *testing.T, c envelope.Catalogue, fsys fs.FS) {
	t.Helper()
	have := map[string]bool{}
	for _, ev := range Goldens(t, fsys) {
		have[Name(ev)] = true
		if err := c.Check(ev); err != nil {
			t.Errorf("golden %s: %v", Name(ev), err)
		}
	}
	for _, typ := range c.Types() {
		name := fmt.Sprintf("%s.v%d.json", typ, c[typ])
		if !have[name] {
			t.Errorf("no golden %s/%s", Dir, name)
		}
	}
}
