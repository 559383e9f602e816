package invite

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// TestErrorsAreItsOwn: a missing link is a 404 and disabled links a 403,
// and neither is another context's error of the same status.
func TestErrorsAreItsOwn(t *testing.T) {
	t.Parallel()
	if !errors.Is(ErrNotFound, apierr.ErrNotFound) || !errors.Is(ErrLinksDisabled, apierr.ErrForbidden) {
		t.Error("the statuses of ErrNotFound or ErrLinksDisabled changed")
	}
	if errors.Is(ErrNotFound, member.ErrMemberNotFound) || errors.Is(organization.ErrOrganizationNotFound, ErrNotFound) {
		t.Error("ErrNotFound matches the members' or organizations' not-found errors")
	}
}

func TestInputRole(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		in      Input
		want    roles.Role
		wantErr bool
	}{
		{"role", Input{Role: nullable.Field[string]{Set: true, Value: "admin"}}, roles.Admin, false},
		{"level", Input{Level: nullable.Field[string]{Set: true, Value: "read"}}, roles.Read, false},
		{"null is a guest", Input{Role: nullable.Field[string]{Set: true, Null: true}}, roles.Guest, false},
		{"missing", Input{}, roles.Guest, true},
		{"unknown", Input{Role: nullable.Field[string]{Set: true, Value: "owner"}}, roles.Guest, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := tc.in.role()
			if got != tc.want || (err != nil) != tc.wantErr {
				t.Errorf("role() = %q, %v; want %q, error %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
