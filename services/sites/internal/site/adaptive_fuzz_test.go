package site

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// FuzzValidateAdaptiveSchema: whatever the bytes, the check answers a 4xx
// or a schema within the limits that it accepts again unchanged; it never
// panics and never fails with anything but a client error. The seed corpus
// is in testdata/fuzz/FuzzValidateAdaptiveSchema.
func FuzzValidateAdaptiveSchema(f *testing.F) {
	f.Add([]byte(DefaultAdaptiveSchema))
	f.Add([]byte(withClaims(3)))
	f.Add([]byte(nestedGroups(limits.AdaptiveSchemaDepth)))
	f.Fuzz(func(t *testing.T, raw []byte) {
		got, err := ValidateAdaptiveSchema(json.RawMessage(raw))
		if err != nil {
			var e *apierr.Error
			if !errors.As(err, &e) || e.Status < 400 || e.Status >= 500 {
				t.Fatalf("ValidateAdaptiveSchema(%q) = %v, want a 4xx", raw, err)
			}
			return
		}
		if len(got) > limits.AdaptiveSchemaBytes || !json.Valid(got) {
			t.Fatalf("accepted %q as %d bytes: %s", raw, len(got), got)
		}
		again, err := ValidateAdaptiveSchema(got)
		if err != nil || !bytes.Equal(again, got) {
			t.Fatalf("the normalized schema %s is not accepted as it is: %s, %v", got, again, err)
		}
	})
}
