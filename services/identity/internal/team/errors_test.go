package team

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// TestErrTeamNotFoundIsItsOwn: a missing team is a 404, and no other
// context's not-found.
func TestErrTeamNotFoundIsItsOwn(t *testing.T) {
	t.Parallel()
	if !errors.Is(ErrTeamNotFound, apierr.ErrNotFound) {
		t.Error("ErrTeamNotFound is not a 404")
	}
	for _, other := range []error{member.ErrMemberNotFound, organization.ErrOrganizationNotFound} {
		if errors.Is(ErrTeamNotFound, other) || errors.Is(other, ErrTeamNotFound) {
			t.Errorf("ErrTeamNotFound and %q match", other)
		}
	}
}
