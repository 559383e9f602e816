package access_test

import (
	"testing"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/google/go-cmp/cmp"
)

func TestCan(t *testing.T) {
	t.Parallel()
	admin := access.Membership{Member: true, Role: roles.Admin}
	creator := access.Membership{Member: true, Role: roles.Create}
	reader := access.Membership{Member: true, Role: roles.Read}
	guest := access.Membership{Member: true, Role: roles.Guest}
	stranger := access.Membership{}
	for _, tc := range []struct {
		name string
		m    access.Membership
		a    access.Action
		want bool
	}{
		{"admin administers", admin, access.AdminOrganization, true},
		{"creator does not administer", creator, access.AdminOrganization, false},
		{"creator creates content", creator, access.CreateContent, true},
		{"reader does not create content", reader, access.CreateContent, false},
		{"reader lists members", reader, access.ListMembers, true},
		{"guest views the organization", guest, access.ViewOrganization, true},
		{"guest does not list members", guest, access.ListMembers, false},
		{"stranger sees nothing", stranger, access.ViewOrganization, false},
		{"unknown action", admin, access.Action("nope"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.m.Can(tc.a); got != tc.want {
				t.Errorf("Can(%s) = %v, want %v", tc.a, got, tc.want)
			}
		})
	}
}

func TestTeamPermissions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		m      access.Membership
		inTeam access.TeamRole
		want   access.TeamPermissions
	}{
		{"admin", access.Membership{Member: true, Role: roles.Admin}, access.NotInTeam, access.TeamPermissions{Admin: true, View: true}},
		{"owner", access.Membership{Member: true, Role: roles.Read}, access.TeamOwner, access.TeamPermissions{Admin: true, View: true}},
		{"team member", access.Membership{Member: true, Role: roles.Edit}, access.TeamMember, access.TeamPermissions{View: true}},
		{"guest in team", access.Membership{Member: true}, access.TeamMember, access.TeamPermissions{View: true}},
		{"guest outside", access.Membership{Member: true}, access.NotInTeam, access.TeamPermissions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.m.Team(tc.inTeam), tc.want); diff != "" {
				t.Errorf("Team(%q) (-got +want):\n%s", tc.inTeam, diff)
			}
		})
	}
}

func TestCanInTeam(t *testing.T) {
	t.Parallel()
	admin := access.Membership{Member: true, Role: roles.Admin}
	reader := access.Membership{Member: true, Role: roles.Read}
	guest := access.Membership{Member: true, Role: roles.Guest}
	for _, tc := range []struct {
		name   string
		m      access.Membership
		a      access.Action
		inTeam access.TeamRole
		want   bool
	}{
		{"owner manages", reader, access.ManageTeam, access.TeamOwner, true},
		{"member does not manage", reader, access.ManageTeam, access.TeamMember, false},
		{"admin manages any team", admin, access.ManageTeam, access.NotInTeam, true},
		{"guest member views", guest, access.ViewTeam, access.TeamMember, true},
		{"guest outside does not view", guest, access.ViewTeam, access.NotInTeam, false},
		{"owner does not delete", reader, access.DeleteTeam, access.TeamOwner, false},
		{"admin deletes", admin, access.DeleteTeam, access.NotInTeam, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := tc.m.CanInTeam(tc.a, tc.inTeam); got != tc.want {
				t.Errorf("CanInTeam(%s, %q) = %v, want %v", tc.a, tc.inTeam, got, tc.want)
			}
		})
	}
}
