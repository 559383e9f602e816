package organization

import (
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/nullable"
)

func TestIDsFitPathParameters(t *testing.T) {
	t.Parallel()
	pattern := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) // the spec's path-parameter pattern
	if id := ids.New(); len(id) != 22 || !pattern.MatchString(id) {
		t.Fatalf("id %q", id)
	}
}

func TestOrganizationPatch(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		patch Patch
		field string // "" = valid
	}{
		{"title ok", Patch{Title: nullable.Of("Acme")}, ""},
		{"title padded", Patch{Title: nullable.Of(" Acme ")}, "title"},
		{"hostname ok", Patch{Hostname: nullable.Of("acme-docs")}, ""},
		{"hostname dash end", Patch{Hostname: nullable.Of("acme-")}, "hostname"},
		{"hostname null clears", Patch{Hostname: nullable.Field[string]{Set: true, Null: true}}, ""},
		{"domain", Patch{EmailDomains: nullable.Of([]string{"acme.test"})}, ""},
		{"bad domain", Patch{EmailDomains: nullable.Of([]string{"acme"})}, "emailDomains[0]"},
		{"logo ftp", Patch{Logo: nullable.Of("ftp://x.test/l.png")}, "logo"},
		{"ai null", Patch{AI: nullable.Field[bool]{Set: true, Null: true}}, "ai"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var o Organization
			_, err := tc.patch.apply(&o)
			switch {
			case tc.field == "" && err != nil:
				t.Errorf("apply: %v", err)
			case tc.field != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.field)):
				t.Errorf("apply: %v, want a problem with %s", err, tc.field)
			}
		})
	}
}
