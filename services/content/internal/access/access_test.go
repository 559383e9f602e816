package access

import (
	"encoding/json"
	"testing"

	"github.com/docspub/platform/libs/roles"
)

func TestLevel(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		role   roles.Role
		member bool
		chain  []DefaultLevel
		want   roles.Role
	}{
		{"non-member", roles.Admin, false, nil, roles.Guest},
		{"guest", roles.Guest, true, nil, roles.Guest},
		{"all inherit gives the role", roles.Edit, true, []DefaultLevel{Inherit, Inherit}, roles.Edit},
		{"space level caps the role", roles.Edit, true, []DefaultLevel{"read"}, roles.Read},
		{"default level never raises", roles.Read, true, []DefaultLevel{"edit"}, roles.Read},
		{"collection level applies through inherit", roles.Create, true, []DefaultLevel{Inherit, "comment"}, roles.Comment},
		{"nearest level wins", roles.Create, true, []DefaultLevel{"edit", "read"}, roles.Edit},
		{"no access", roles.Edit, true, []DefaultLevel{NoAccess}, roles.Guest},
		{"admins always admin", roles.Admin, true, []DefaultLevel{NoAccess}, roles.Admin},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Level(tc.role, tc.member, tc.chain); got != tc.want {
				t.Errorf("Level(%q, %v, %v) = %q, want %q", tc.role, tc.member, tc.chain, got, tc.want)
			}
		})
	}
}

func TestTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		action Action
		want   roles.Role
	}{
		{View, roles.Read}, {Comment, roles.Comment}, {Edit, roles.Edit}, {Review, roles.Review},
		{Merge, roles.Review}, {Create, roles.Create}, {Admin, roles.Admin}, {Configure, roles.Admin},
	}
	for _, tc := range cases {
		if got := MinLevel(tc.action); got != tc.want {
			t.Errorf("MinLevel(%s) = %q, want %q", tc.action, got, tc.want)
		}
		// Every level at or above the minimum allows it; every level below refuses.
		for _, r := range roles.All {
			if got, want := Allows(r, tc.action), r.AtLeast(tc.want); got != want {
				t.Errorf("Allows(%s, %s) = %v, want %v", r, tc.action, got, want)
			}
		}
	}
	if Allows(roles.Guest, View) {
		t.Error("no access allows view")
	}
}

func TestDefaultLevelJSON(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]DefaultLevel{`null`: NoAccess, `"inherit"`: Inherit, `"edit"`: "edit"} {
		var d DefaultLevel
		if err := json.Unmarshal([]byte(in), &d); err != nil || d != want {
			t.Errorf("unmarshal %s = %q, %v; want %q", in, d, err, want)
		}
		out, _ := json.Marshal(d)
		if string(out) != in {
			t.Errorf("marshal %q = %s, want %s", d, out, in)
		}
	}
	var d DefaultLevel
	if err := json.Unmarshal([]byte(`"owner"`), &d); err == nil {
		t.Error("unmarshal owner: no error")
	}
}

func TestCommentPermissions(t *testing.T) {
	t.Parallel()
	if p := ForComment(roles.Comment, "u1", "u1"); !p.Edit || !p.Delete || !p.Reply {
		t.Errorf("author with comment level: %+v", p)
	}
	if p := ForComment(roles.Edit, "u2", "u1"); p.Edit || p.Delete {
		t.Errorf("other editor: %+v", p)
	}
	if p := ForComment(roles.Admin, "u3", "u1"); p.Edit || !p.Delete {
		t.Errorf("admin: %+v", p)
	}
	if p := ForComment(roles.Read, "u1", "u1"); p.Edit || p.Reply {
		t.Errorf("reader: %+v", p)
	}
}
