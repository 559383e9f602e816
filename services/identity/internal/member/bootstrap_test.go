package member

import (
	"strings"
	"testing"
)

// TestBootstrapRefusesHiddenCharacters: what the identity-admin command sets
// follows the API's single-line text rules; nothing is written when it fails.
func TestBootstrapRefusesHiddenCharacters(t *testing.T) {
	t.Parallel()
	s := New(nil, nil, nil, nil, "")
	for _, tc := range []struct {
		name  string
		in    BootstrapInput
		field string
	}{
		{"organization title", BootstrapInput{OrganizationTitle: "Acme\u202eDocs", UserEmail: "ada@acme.test", Role: "admin"}, "organizationTitle"},
		{"display name", BootstrapInput{OrganizationTitle: "Acme", UserDisplayName: "Ada\x00", UserEmail: "ada@acme.test", Role: "admin"}, "displayName"},
		{"e-mail", BootstrapInput{OrganizationTitle: "Acme", UserEmail: "ada\n@acme.test", Role: "admin"}, "email"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Bootstrap(t.Context(), tc.in)
			if err == nil || !strings.HasPrefix(err.Error(), tc.field+":") {
				t.Errorf("Bootstrap = %v, want a problem with %s", err, tc.field)
			}
		})
	}
}
