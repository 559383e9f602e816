package identity

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/paging"
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

	e.api.Run(e.t, as, []row{
		{Name: "title required", User: admin, Method: "PUT", Path: teams, Body: `{}`, Want: 400, Field: "title"},
		{Name: "title empty", User: admin, Method: "PUT", Path: teams, Body: `{"title":""}`, Want: 400, Field: "title"},
		{Name: "title too long", User: admin, Method: "PUT", Path: teams, Body: `{"title":"` + strings.Repeat("t", 65) + `"}`, Want: 400, Field: "title"},
		{Name: "members not in org", User: admin, Method: "PUT", Path: teams, Body: `{"title":"Docs","members":["` + outsider + `"]}`, Want: 400, Field: "members"},
		{Name: "members wrong type", User: admin, Method: "PUT", Path: teams, Body: `{"title":"Docs","members":"x"}`, Want: 400, Field: "members"},
		{Name: "read member creates", User: reader, Method: "PUT", Path: teams, Body: `{"title":"Docs"}`, Want: 403},
		{Name: "non-member creates", User: outsider, Method: "PUT", Path: teams, Body: `{"title":"Docs"}`, Want: 404},
	})
	if n := apitest.Decode[paging.List[teamJSON]](t, e.must(http.StatusOK, admin, "GET", teams, "")).Count; n != 0 {
		t.Fatalf("a refused create left %d teams", n)
	}

	b := e.must(http.StatusCreated, admin, "PUT", teams, `{"title":"Docs","members":["`+reader+`","oli@acme.test"]}`)
	contracttest.ValidateOperation(t, "createOrganizationTeam", http.StatusCreated, b)
	team := apitest.Decode[teamJSON](t, b)
	if team.Members != 2 || !team.Permissions["admin"] {
		t.Errorf("created team = %+v", team)
	}
	tp := teams + "/" + team.ID
	e.must(http.StatusCreated, admin, "PUT", teams, `{"title":"Support"}`)

	// Make oli the team's owner: owners manage their team, not others.
	e.must(http.StatusNoContent, admin, "PUT", tp+"/members/"+owner, `{"role":"owner"}`)
	e.api.Run(e.t, as, []row{
		{Name: "bad team role", User: admin, Method: "PUT", Path: tp + "/members/" + owner, Body: `{"role":"boss"}`, Want: 400, Field: "role"},
		{Name: "add non-member", User: admin, Method: "PUT", Path: tp + "/members/" + outsider, Want: 404},
		{Name: "owner renames", User: owner, Method: "PATCH", Path: tp, Body: `{"title":"Documentation"}`, Want: 200},
		{Name: "rename needs title", User: owner, Method: "PATCH", Path: tp, Body: `{}`, Want: 400, Field: "title"},
		{Name: "reader renames", User: reader, Method: "PATCH", Path: tp, Body: `{"title":"Mine"}`, Want: 403},
		{Name: "reader changes members", User: reader, Method: "PUT", Path: tp + "/members", Body: `{"add":["` + admin + `"]}`, Want: 403},
		{Name: "owner deletes team", User: owner, Method: "DELETE", Path: tp, Want: 403},
		{Name: "non-member reads team", User: outsider, Method: "GET", Path: tp, Want: 404},
		{Name: "unknown team", User: admin, Method: "GET", Path: teams + "/nope", Want: 404},
	})

	b = e.must(http.StatusOK, owner, "GET", tp, "")
	contracttest.ValidateOperation(t, "getTeamInOrganizationById", http.StatusOK, b)
	if got := apitest.Decode[teamJSON](t, b); got.Title != "Documentation" || !got.Permissions["admin"] {
		t.Errorf("team as owner = %+v", got)
	}
	if p := apitest.Decode[teamJSON](t, e.must(http.StatusOK, reader, "GET", tp, "")).Permissions; p["admin"] || !p["view"] {
		t.Errorf("reader's team permissions = %v", p)
	}

	// Bulk: an unknown user anywhere refuses the whole update.
	e.api.Run(e.t, as, []row{
		{Name: "unknown user in add", User: owner, Method: "PUT", Path: tp + "/members", Body: `{"add":["` + admin + `","nobody@x.test"]}`, Want: 400, Field: "add[1]"},
		{Name: "unknown user in remove", User: owner, Method: "PUT", Path: tp + "/members", Body: `{"remove":["nobody"]}`, Want: 400, Field: "remove[0]"},
		{Name: "bad membership role", User: owner, Method: "PUT", Path: tp + "/members", Body: `{"memberships":{"` + admin + `":{"role":"boss"}}}`, Want: 400, Field: "memberships"},
	})
	members := func() map[string]string {
		t.Helper()
		b := e.must(http.StatusOK, reader, "GET", tp+"/members", "")
		contracttest.ValidateOperation(t, "listTeamMembersInOrganizationById", http.StatusOK, b)
		out := map[string]string{}
		for _, it := range apitest.Decode[paging.List[teamMemberJSON]](t, b).Items {
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
	mt := apitest.Decode[paging.List[struct {
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
		for _, it := range apitest.Decode[paging.List[teamJSON]](t, b).Items {
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
	e.api.Run(e.t, as, []row{{Name: "deleted team", User: admin, Method: "GET", Path: tp, Want: 404}})
}
