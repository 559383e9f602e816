package identity

import (
	"net/http"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
)

func TestInviteLinks(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, newcomer, _ := e.seed("", "nia@else.test", roles.Admin)
	links := "/v1/orgs/" + org + "/link-invites"

	e.api.Run(e.t, as, []row{
		{Name: "role required", User: admin, Method: "POST", Path: links, Body: `{}`, Want: 400, Field: "role"},
		{Name: "role unknown", User: admin, Method: "POST", Path: links, Body: `{"role":"boss"}`, Want: 400, Field: "role"},
		{Name: "reader creates", User: reader, Method: "POST", Path: links, Body: `{"role":"read"}`, Want: 403},
		{Name: "reader lists", User: reader, Method: "GET", Path: links, Want: 403},
	})
	b := e.must(http.StatusCreated, admin, "POST", links, `{"role":"edit"}`)
	contracttest.Validate(t, "OrganizationInviteLink", b)
	inv := apitest.Decode[struct {
		ID        string `json:"id"`
		Role      string `json:"role"`
		Redundant bool   `json:"redundant"`
	}](t, b)
	if inv.Role != "edit" || inv.Redundant {
		t.Errorf("invite = %+v", inv)
	}
	link := links + "/" + inv.ID
	b = e.must(http.StatusOK, admin, "GET", link, "")
	contracttest.ValidateOperation(t, "getOrganizationInviteLink", http.StatusOK, b)
	b = e.must(http.StatusOK, admin, "PATCH", link, `{"level":"comment"}`)
	contracttest.ValidateOperation(t, "updateOrganizationInviteById", http.StatusOK, b)
	if r := apitest.Decode[map[string]any](t, b)["role"]; r != "comment" {
		t.Errorf("role after patch = %v", r)
	}
	if l := apitest.Decode[paging.List[idOnly]](t, e.must(http.StatusOK, admin, "GET", links, "")); l.Count != 1 || l.Items[0].ID != inv.ID {
		t.Errorf("invites = %+v", l)
	}

	// Joining: a non-member holding the link becomes a member with its role.
	e.api.Run(e.t, as, []row{
		{Name: "newcomer cannot read the link", User: newcomer, Method: "GET", Path: link, Want: 404},
		{Name: "unknown invite", User: newcomer, Method: "POST", Path: "/v1/orgs/" + org + "/invites/nope", Want: 404},
		{Name: "join", User: newcomer, Method: "POST", Path: "/v1/orgs/" + org + "/invites/" + inv.ID, Want: 200},
		{Name: "join again", User: newcomer, Method: "POST", Path: "/v1/orgs/" + org + "/invites/" + inv.ID, Want: 200},
	})
	b = e.must(http.StatusOK, newcomer, "GET", "/v1/orgs/"+org+"/members/"+newcomer, "")
	if r := apitest.Decode[memberJSON](t, b).Role; r == nil || *r != "comment" {
		t.Errorf("joined role = %v", r)
	}

	// Disabled invite links refuse joining.
	_, late, _ := e.seed("", "lou@else.test", roles.Admin)
	e.must(http.StatusOK, admin, "PATCH", "/v1/orgs/"+org, `{"inviteLinks":false}`)
	e.api.Run(e.t, as, []row{{Name: "links disabled", User: late, Method: "POST", Path: "/v1/orgs/" + org + "/invites/" + inv.ID, Want: 403}})

	b = e.must(http.StatusResetContent, admin, "DELETE", link, "")
	contracttest.ValidateOperation(t, "deleteOrganizationInviteById", http.StatusResetContent, b)
	e.api.Run(e.t, as, []row{{Name: "deleted invite", User: admin, Method: "GET", Path: link, Want: 404}})
}

func TestInviteUsersValidation(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	p := "/v1/orgs/" + org + "/invites"
	e.api.Run(e.t, as, []row{
		{Name: "no emails", User: admin, Method: "POST", Path: p, Body: `{"emails":[]}`, Want: 400, Field: "emails"},
		{Name: "not an e-mail", User: admin, Method: "POST", Path: p, Body: `{"emails":["nope"]}`, Want: 400, Field: "emails[0]"},
		{Name: "bad entry role", User: admin, Method: "POST", Path: p, Body: `{"emails":[{"email":"a@b.test","role":"boss"}]}`, Want: 400, Field: "emails[0].role"},
		{Name: "reader invites", User: reader, Method: "POST", Path: p, Body: `{"emails":["a@b.test"]}`, Want: 403},
		{Name: "invite with role", User: admin, Method: "POST", Path: p, Body: `{"emails":[{"email":"Kim@B.test","role":null},"lee@b.test"],"role":"create"}`, Want: 200},
	})
	b := e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?role=create", "")
	if l := apitest.Decode[paging.List[memberJSON]](t, b); l.Count != 1 || l.Items[0].User.Email != "lee@b.test" {
		t.Errorf("create members = %+v", l)
	}
	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?role=guest", "")
	if l := apitest.Decode[paging.List[memberJSON]](t, b); l.Count != 1 || l.Items[0].User.Email != "Kim@B.test" {
		t.Errorf("guests = %+v", l)
	}
}
