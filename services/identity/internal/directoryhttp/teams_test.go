package directoryhttp_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/roles"
)

type teamJSON struct {
	ID          string          `json:"id"`
	Title       string          `json:"title"`
	Members     int             `json:"members"`
	Permissions map[string]bool `json:"permissions"`
}

type teamMemberJSON struct {
	Organization memberJSON `json:"organization"`
	Team         struct {
		Role string `json:"role"`
	} `json:"team"`
}

func TestTeams(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, owner, _ := e.seed(org, "oli@acme.test", roles.Edit)
	_, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	teams := "/v1/orgs/" + org + "/teams"

	e.run([]row{
		{name: "title required", user: admin, method: "PUT", path: teams, body: `{}`, want: 400, field: "title"},
		{name: "title empty", user: admin, method: "PUT", path: teams, body: `{"title":""}`, want: 400, field: "title"},
		{name: "title too long", user: admin, method: "PUT", path: teams, body: `{"title":"` + strings.Repeat("t", 65) + `"}`, want: 400, field: "title"},
		{name: "members not in org", user: admin, method: "PUT", path: teams, body: `{"title":"Docs","members":["` + outsider + `"]}`, want: 400, field: "members"},
		{name: "members wrong type", user: admin, method: "PUT", path: teams, body: `{"title":"Docs","members":"x"}`, want: 400, field: "members"},
		{name: "read member creates", user: reader, method: "PUT", path: teams, body: `{"title":"Docs"}`, want: 403},
		{name: "non-member creates", user: outsider, method: "PUT", path: teams, body: `{"title":"Docs"}`, want: 404},
	})
	if n := decode[list[teamJSON]](t, e.must(http.StatusOK, admin, "GET", teams, "")).Count; n != 0 {
		t.Fatalf("a refused create left %d teams", n)
	}

	b := e.must(http.StatusCreated, admin, "PUT", teams, `{"title":"Docs","members":["`+reader+`","oli@acme.test"]}`)
	contracttest.ValidateOperation(t, "createOrganizationTeam", http.StatusCreated, b)
	team := decode[teamJSON](t, b)
	if team.Members != 2 || !team.Permissions["admin"] {
		t.Errorf("created team = %+v", team)
	}
	tp := teams + "/" + team.ID
	e.must(http.StatusCreated, admin, "PUT", teams, `{"title":"Support"}`)

	// Make oli the team's owner: owners manage their team, not others.
	e.must(http.StatusNoContent, admin, "PUT", tp+"/members/"+owner, `{"role":"owner"}`)
	e.run([]row{
		{name: "bad team role", user: admin, method: "PUT", path: tp + "/members/" + owner, body: `{"role":"boss"}`, want: 400, field: "role"},
		{name: "add non-member", user: admin, method: "PUT", path: tp + "/members/" + outsider, want: 404},
		{name: "owner renames", user: owner, method: "PATCH", path: tp, body: `{"title":"Documentation"}`, want: 200},
		{name: "rename needs title", user: owner, method: "PATCH", path: tp, body: `{}`, want: 400, field: "title"},
		{name: "reader renames", user: reader, method: "PATCH", path: tp, body: `{"title":"Mine"}`, want: 403},
		{name: "reader changes members", user: reader, method: "PUT", path: tp + "/members", body: `{"add":["` + admin + `"]}`, want: 403},
		{name: "owner deletes team", user: owner, method: "DELETE", path: tp, want: 403},
		{name: "non-member reads team", user: outsider, method: "GET", path: tp, want: 404},
		{name: "unknown team", user: admin, method: "GET", path: teams + "/nope", want: 404},
	})

	b = e.must(http.StatusOK, owner, "GET", tp, "")
	contracttest.ValidateOperation(t, "getTeamInOrganizationById", http.StatusOK, b)
	if got := decode[teamJSON](t, b); got.Title != "Documentation" || !got.Permissions["admin"] {
		t.Errorf("team as owner = %+v", got)
	}
	if p := decode[teamJSON](t, e.must(http.StatusOK, reader, "GET", tp, "")).Permissions; p["admin"] || !p["view"] {
		t.Errorf("reader's team permissions = %v", p)
	}

	// Bulk: an unknown user anywhere refuses the whole update.
	e.run([]row{
		{name: "unknown user in add", user: owner, method: "PUT", path: tp + "/members", body: `{"add":["` + admin + `","nobody@x.test"]}`, want: 400, field: "add[1]"},
		{name: "unknown user in remove", user: owner, method: "PUT", path: tp + "/members", body: `{"remove":["nobody"]}`, want: 400, field: "remove[0]"},
		{name: "bad membership role", user: owner, method: "PUT", path: tp + "/members", body: `{"memberships":{"` + admin + `":{"role":"boss"}}}`, want: 400, field: "memberships"},
	})
	members := func() map[string]string {
		t.Helper()
		b := e.must(http.StatusOK, reader, "GET", tp+"/members", "")
		contracttest.ValidateOperation(t, "listTeamMembersInOrganizationById", http.StatusOK, b)
		out := map[string]string{}
		for _, it := range decode[list[teamMemberJSON]](t, b).Items {
			out[it.Organization.ID] = it.Team.Role
		}
		return out
	}
	if got := members(); len(got) != 2 || got[admin] != "" {
		t.Fatalf("after refused updates: %v", got)
	}

	// A user both added and removed is removed; memberships set roles.
	b = e.must(http.StatusNoContent, owner, "PUT", tp+"/members",
		`{"add":["ada@acme.test","`+reader+`"],"remove":["`+reader+`"],"memberships":{"`+admin+`":{"role":"owner"}}}`)
	contracttest.ValidateOperation(t, "updateMembersInOrganizationTeam", http.StatusNoContent, b)
	got := members()
	if len(got) != 2 || got[admin] != "owner" || got[owner] != "owner" {
		t.Errorf("after bulk update: %v", got)
	}

	// Member teams, owner filter, title filter.
	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members/"+owner+"/teams?title=DOC", "")
	contracttest.ValidateOperation(t, "listTeamsForOrganizationMember", http.StatusOK, b)
	mt := decode[list[struct {
		Team   teamJSON `json:"team"`
		Member struct {
			Role string `json:"role"`
		} `json:"member"`
	}]](t, b)
	if mt.Count != 1 || mt.Items[0].Team.ID != team.ID || mt.Items[0].Member.Role != "owner" {
		t.Errorf("member teams = %+v", mt)
	}
	titles := func(query string) []string {
		t.Helper()
		b := e.must(http.StatusOK, reader, "GET", teams+query, "")
		contracttest.ValidateOperation(t, "listTeamsInOrganizationById", http.StatusOK, b)
		var out []string
		for _, it := range decode[list[teamJSON]](t, b).Items {
			out = append(out, it.Title)
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"Documentation", "Support"}},
		{"?title=sup", []string{"Support"}},
		{"?owner=" + owner, []string{"Documentation"}},
		{"?owner=" + admin, []string{"Documentation", "Support"}},
		{"?owner=" + reader, nil},
	} {
		if got := titles(tc.query); !slices.Equal(got, tc.want) {
			t.Errorf("teams%s = %v, want %v", tc.query, got, tc.want)
		}
	}

	// Removing a member from the organization removes them from its teams.
	b = e.must(http.StatusNoContent, admin, "DELETE", tp+"/members/"+admin, "")
	contracttest.ValidateOperation(t, "deleteMemberFromOrganizationTeamById", http.StatusNoContent, b)
	e.must(http.StatusNoContent, admin, "DELETE", "/v1/orgs/"+org+"/members/"+owner, "")
	if got := members(); len(got) != 0 {
		t.Errorf("team members after org removal: %v", got)
	}
	b = e.must(http.StatusNoContent, admin, "DELETE", tp, "")
	contracttest.ValidateOperation(t, "removeTeamFromOrganizationById", http.StatusNoContent, b)
	e.run([]row{{name: "deleted team", user: admin, method: "GET", path: tp, want: 404}})
}
