package saml

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/team"
)

// TestErrNotFoundIsItsOwn: a missing provider is a 404, and no other
// context's not-found.
func TestErrNotFoundIsItsOwn(t *testing.T) {
	t.Parallel()
	if !errors.Is(ErrNotFound, apierr.ErrNotFound) {
		t.Error("ErrNotFound is not a 404")
	}
	for _, other := range []error{team.ErrTeamNotFound, organization.ErrOrganizationNotFound} {
		if errors.Is(ErrNotFound, other) || errors.Is(other, ErrNotFound) {
			t.Errorf("ErrNotFound and %q match", other)
		}
	}
}
