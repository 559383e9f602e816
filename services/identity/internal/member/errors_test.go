package member

import (
	"errors"
	"fmt"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// TestErrorsAreValues: identity's errors are told apart by identity, not by
// status, and each is still its status' kind for the HTTP edge.
func TestErrorsAreValues(t *testing.T) {
	t.Parallel()
	notFound := []error{organization.ErrOrganizationNotFound, ErrMemberNotFound, ErrUserNotFound}
	for i, a := range notFound {
		for j, b := range notFound {
			if got := errors.Is(fmt.Errorf("wrapped: %w", a), b); got != (i == j) {
				t.Errorf("errors.Is(%q, %q) = %v, want %v", a, b, got, i == j)
			}
		}
		if !errors.Is(a, apierr.ErrNotFound) {
			t.Errorf("errors.Is(%q, apierr.ErrNotFound) = false", a)
		}
	}
}
