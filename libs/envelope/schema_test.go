package envelope_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/docspub/platform/libs/envelope"
	"github.com/google/go-cmp/cmp"
)

// thing is a payload at version 2; thingV1 the same at version 1, whose
// name was one field.
type thing struct {
	First string `json:"first"`
	Last  string `json:"last"`
}

var thingSchema = envelope.Schema[thing]{Current: 2, Previous: func(data json.RawMessage) (thing, error) {
	var v1 struct {
		Name string `json:"name"`
	}
	err := json.Unmarshal(data, &v1)
	return thing{First: v1.Name}, err
}}

func TestSchemaDecode(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		ev      envelope.Event
		want    thing
		wantErr error
	}{
		{"current", envelope.NewVersion("thing.created", 2, "o", "t", thing{"a", "b"}), thing{"a", "b"}, nil},
		{"previous", envelope.NewVersion("thing.created", 1, "o", "t", map[string]string{"name": "a"}), thing{First: "a"}, nil},
		{"no version is 1", envelope.Event{Type: "thing.created", Data: json.RawMessage(`{"name":"a"}`)}, thing{First: "a"}, nil},
		{"newer", envelope.NewVersion("thing.created", 3, "o", "t", thing{"a", "b"}), thing{}, envelope.ErrUnknown},
		{"not JSON", envelope.Event{Type: "thing.created", Version: 2, Data: json.RawMessage(`{`)}, thing{}, envelope.ErrBadData},
		{"bad previous", envelope.Event{Type: "thing.created", Version: 1, Data: json.RawMessage(`[]`)}, thing{}, envelope.ErrBadData},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := thingSchema.Decode(tc.ev)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("Decode error %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(got, tc.want); tc.wantErr == nil && diff != "" {
				t.Errorf("Decode (-got +want):\n%s", diff)
			}
		})
	}
	old := envelope.Schema[thing]{Current: 3}
	if _, err := old.Decode(envelope.NewVersion("thing.created", 1, "o", "t", nil)); !errors.Is(err, envelope.ErrBadData) {
		t.Errorf("version 1 with current 3: error %v, want ErrBadData", err)
	}
}

func TestCatalogueCheck(t *testing.T) {
	t.Parallel()
	c := envelope.Catalogue{"thing.created": 2, "thing.deleted": 1}
	for _, tc := range []struct {
		ev   envelope.Event
		want error
	}{
		{envelope.Event{Type: "thing.created"}, nil},
		{envelope.Event{Type: "thing.created", Version: 2}, nil},
		{envelope.Event{Type: "thing.created", Version: 3}, envelope.ErrUnknown},
		{envelope.Event{Type: "thing.moved", Version: 1}, envelope.ErrUnknown},
	} {
		if err := c.Check(tc.ev); !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
			t.Errorf("Check(%s v%d) = %v, want %v", tc.ev.Type, tc.ev.Version, err, tc.want)
		}
	}
	if diff := cmp.Diff(c.Types(), []string{"thing.created", "thing.deleted"}); diff != "" {
		t.Errorf("Types (-got +want):\n%s", diff)
	}
}

// An envelope written before events carried a version (in an outbox or a
// topic) reads as version 1, and is written back without one.
func TestEnvelopeWithoutVersion(t *testing.T) {
	t.Parallel()
	stored := `{"id":"e1","type":"thing.updated","occurredAt":"2026-01-02T03:04:05Z","organization":"o1","subject":"s1","data":{"id":"s1"}}`
	var ev envelope.Event
	if err := json.Unmarshal([]byte(stored), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Version != 0 || ev.SchemaVersion() != 1 {
		t.Errorf("version %d, schema version %d; want 0 and 1", ev.Version, ev.SchemaVersion())
	}
	b, err := envelope.Marshal(ev)
	if err != nil || string(b) != stored {
		t.Errorf("re-encoded %s (%v), want %s", b, err, stored)
	}
	if v := envelope.New("thing.updated", "o1", "s1", nil); v.Version != 1 {
		t.Errorf("New's version = %d, want 1", v.Version)
	}
}
