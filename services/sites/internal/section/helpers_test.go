package section_test

import (
	"encoding/json"
	"testing"

	"github.com/docspub/platform/services/sites/internal/site"
)

func jsonUnmarshal(raw []byte, v any) error { return json.Unmarshal(raw, v) }

// siteSpaceIDOf reads a site space's id from its wire shape.
func siteSpaceIDOf(t *testing.T, v site.SiteSpaceView) string {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var ss struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &ss); err != nil || ss.ID == "" {
		t.Fatalf("site space without id: %s", raw)
	}
	return ss.ID
}
