package access

import (
	"testing"

	"github.com/docspub/platform/libs/roles"
)

func TestTable(t *testing.T) {
	for _, tc := range []struct {
		role roles.Role
		want []Action
	}{
		{roles.Read, []Action{View}}, {roles.Edit, []Action{View}}, {roles.Create, []Action{View, Edit}},
		{roles.Admin, []Action{View, Edit, Manage}}, {roles.Guest, nil},
	} {
		for _, a := range []Action{View, Edit, Manage} {
			want := false
			for _, w := range tc.want {
				want = want || w == a
			}
			if got := Allows(tc.role, a); got != want {
				t.Errorf("Allows(%q, %s) = %v, want %v", tc.role, a, got, want)
			}
		}
	}
}
