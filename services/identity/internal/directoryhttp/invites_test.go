package directoryhttp_test

import (
	"net/http"
	"testing"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/roles"
)

func TestInviteLinks(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, newcomer, _ := e.seed("", "nia@else.test", roles.Admin)
	links := "/v1/orgs/" + org + "/link-invites"

	e.run([]row{
		{name: "role required", user: admin, method: "POST", path: links, body: `{}`, want: 400, field: "role"},
		{name: "role unknown", user: admin, method: "POST", path: links, body: `{"role":"boss"}`, want: 400, field: "role"},
		{name: "reader creates", user: reader, method: "POST", path: links, body: `{"role":"read"}`, want: 403},
		{name: "reader lists", user: reader, method: "GET", path: links, want: 403},
	})
	b := e.must(http.StatusCreated, admin, "POST", links, `{"role":"edit"}`)
	contracttest.Validate(t, "OrganizationInviteLink", b)
	inv := decode[struct {
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
	if r := decode[map[string]any](t, b)["role"]; r != "comment" {
		t.Errorf("role after patch = %v", r)
	}
	if l := decode[list[idOnly]](t, e.must(http.StatusOK, admin, "GET", links, "")); l.Count != 1 || l.Items[0].ID != inv.ID {
		t.Errorf("invites = %+v", l)
	}

	// Joining: a non-member holding the link becomes a member with its role.
	e.run([]row{
		{name: "newcomer cannot read the link", user: newcomer, method: "GET", path: link, want: 404},
		{name: "unknown invite", user: newcomer, method: "POST", path: "/v1/orgs/" + org + "/invites/nope", want: 404},
		{name: "join", user: newcomer, method: "POST", path: "/v1/orgs/" + org + "/invites/" + inv.ID, want: 200},
		{name: "join again", user: newcomer, method: "POST", path: "/v1/orgs/" + org + "/invites/" + inv.ID, want: 200},
	})
	b = e.must(http.StatusOK, newcomer, "GET", "/v1/orgs/"+org+"/members/"+newcomer, "")
	if r := decode[memberJSON](t, b).Role; r == nil || *r != "comment" {
		t.Errorf("joined role = %v", r)
	}

	// Disabled invite links refuse joining.
	_, late, _ := e.seed("", "lou@else.test", roles.Admin)
	e.must(http.StatusOK, admin, "PATCH", "/v1/orgs/"+org, `{"inviteLinks":false}`)
	e.run([]row{{name: "links disabled", user: late, method: "POST", path: "/v1/orgs/" + org + "/invites/" + inv.ID, want: 403}})

	b = e.must(http.StatusResetContent, admin, "DELETE", link, "")
	contracttest.ValidateOperation(t, "deleteOrganizationInviteById", http.StatusResetContent, b)
	e.run([]row{{name: "deleted invite", user: admin, method: "GET", path: link, want: 404}})
}

func TestInviteUsersValidation(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	p := "/v1/orgs/" + org + "/invites"
	e.run([]row{
		{name: "no emails", user: admin, method: "POST", path: p, body: `{"emails":[]}`, want: 400, field: "emails"},
		{name: "not an e-mail", user: admin, method: "POST", path: p, body: `{"emails":["nope"]}`, want: 400, field: "emails[0]"},
		{name: "bad entry role", user: admin, method: "POST", path: p, body: `{"emails":[{"email":"a@b.test","role":"boss"}]}`, want: 400, field: "emails[0].role"},
		{name: "reader invites", user: reader, method: "POST", path: p, body: `{"emails":["a@b.test"]}`, want: 403},
		{name: "invite with role", user: admin, method: "POST", path: p, body: `{"emails":[{"email":"Kim@B.test","role":null},"lee@b.test"],"role":"create"}`, want: 200},
	})
	b := e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?role=create", "")
	if l := decode[list[memberJSON]](t, b); l.Count != 1 || l.Items[0].User.Email != "lee@b.test" {
		t.Errorf("create members = %+v", l)
	}
	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?role=guest", "")
	if l := decode[list[memberJSON]](t, b); l.Count != 1 || l.Items[0].User.Email != "Kim@B.test" {
		t.Errorf("guests = %+v", l)
	}
}
