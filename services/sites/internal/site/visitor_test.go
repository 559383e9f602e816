package site

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVisitorSpace: a visitor is shown the allow-listed fields of a space
// only, its activity counts zero; whatever else content's view holds
// (member-only fields, fields content adds later) is left out.
func TestVisitorSpace(t *testing.T) {
	t.Parallel()
	in := `{"object":"space","id":"s1","title":"Guide","emoji":"","visibility":"private","organization":"o1",
		"revision":"r1","createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-02T00:00:00Z","editMode":"live",
		"defaultLevel":"inherit","mergeRules":{"type":"inherit"},"comments":4,"changeRequests":9,
		"changeRequestsOpen":2,"changeRequestsDraft":1,"parent":"col1",
		"gitSync":{"url":"https://token@git.example.com/private.git","installationId":"i1"},
		"visitorAuth":{"backend":"custom"},"imports":[{"id":"x"}],"somethingNew":"secret",
		"urls":{"location":"http://gw/v1/spaces/s1","app":"http://app/s/s1","published":"http://gw/sites/o1/x","internal":"http://x"},
		"permissions":{"view":true}}`
	out, err := visitorSpace(json.RawMessage(in))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"object": "space", "id": "s1", "title": "Guide", "emoji": "", "visibility": "private",
		"organization": "o1", "revision": "r1", "createdAt": "2025-01-01T00:00:00Z", "updatedAt": "2025-01-02T00:00:00Z",
		"editMode": "live", "defaultLevel": "inherit", "mergeRules": map[string]any{"type": "inherit"},
		"comments": 0.0, "changeRequests": 0.0, "changeRequestsOpen": 0.0, "changeRequestsDraft": 0.0,
		"urls":        map[string]any{"location": "http://gw/v1/spaces/s1", "app": "http://app/s/s1", "published": "http://gw/sites/o1/x"},
		"permissions": map[string]any{"view": true}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("visitorSpace (-got +want):\n%s", diff)
	}
	if _, err := visitorSpace(json.RawMessage(`[]`)); err == nil {
		t.Error("a view that is not an object is an error")
	}
}
