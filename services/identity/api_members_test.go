package identity

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/golang-jwt/jwt/v5"
	"go.mongodb.org/mongo-driver/v2/bson"
)

type memberJSON struct {
	ID   string  `json:"id"`
	Role *string `json:"role"`
	User struct {
		DisplayName string `json:"displayName"`
		Email       string `json:"email"`
	} `json:"user"`
	SSO        bool    `json:"sso"`
	Teams      int     `json:"teams"`
	LastSeenAt *string `json:"lastSeenAt"`
}

func TestMembers(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, reader, _ := e.seed(org, "rex@acme.test", roles.Read)
	_, editor, _ := e.seed(org, "eve@acme.test", roles.Edit)
	_, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	m := "/v1/orgs/" + org + "/members/"

	b := e.must(http.StatusOK, reader, "GET", m+admin, "")
	contracttest.ValidateOperation(t, "getMemberInOrganizationById", http.StatusOK, b)
	if got := apitest.Decode[memberJSON](t, b); got.ID != admin || *got.Role != "admin" || got.User.Email != "ada@acme.test" {
		t.Errorf("member = %+v", got)
	}

	e.api.Run(e.t, as, []row{
		{Name: "non-member reads member", User: outsider, Method: "GET", Path: m + admin, Want: 404},
		{Name: "non-member lists members", User: outsider, Method: "GET", Path: "/v1/orgs/" + org + "/members", Want: 404},
		{Name: "unknown member", User: admin, Method: "GET", Path: m + "nobody", Want: 404},
		{Name: "read member changes a role", User: reader, Method: "PATCH", Path: m + editor, Body: `{"role":"admin"}`, Want: 403},
		{Name: "read member removes another", User: reader, Method: "DELETE", Path: m + editor, Want: 403},
		{Name: "read member sets SSO", User: reader, Method: "POST", Path: m + editor + "/sso", Want: 403},
		{Name: "role unknown", User: admin, Method: "PATCH", Path: m + editor, Body: `{"role":"owner"}`, Want: 400, Field: "role"},
		{Name: "role wrong type", User: admin, Method: "PATCH", Path: m + editor, Body: `{"role":1}`, Want: 400, Field: "role"},
		{Name: "last admin cannot be demoted", User: admin, Method: "PATCH", Path: m + admin, Body: `{"role":"read"}`, Want: 409},
		{Name: "last admin cannot leave", User: admin, Method: "DELETE", Path: m + admin, Want: 409},
		{Name: "bad order", User: admin, Method: "GET", Path: "/v1/orgs/" + org + "/members?order=up", Want: 400, Field: "order"},
		{Name: "bad sort", User: admin, Method: "GET", Path: "/v1/orgs/" + org + "/members?sort=age", Want: 400, Field: "sort"},
		{Name: "bad role filter", User: admin, Method: "GET", Path: "/v1/orgs/" + org + "/members?role=boss", Want: 400, Field: "role"},
		{Name: "limit above 1000", User: admin, Method: "GET", Path: "/v1/orgs/" + org + "/members?limit=1001", Want: 400, Field: "limit"},
		{Name: "bad page cursor", User: admin, Method: "GET", Path: "/v1/orgs/" + org + "/members?page=zzz", Want: 400, Field: "page"},
	})

	b = e.must(http.StatusOK, admin, "PATCH", m+editor, `{"role":null}`)
	contracttest.ValidateOperation(t, "updateMemberInOrganizationById", http.StatusOK, b)
	if got := apitest.Decode[memberJSON](t, b); got.Role != nil {
		t.Errorf("role after demotion to guest = %v", *got.Role)
	}
	// A guest sees the organization but not the member list.
	e.api.Run(e.t, as, []row{{Name: "guest lists members", User: editor, Method: "GET", Path: "/v1/orgs/" + org + "/members", Want: 403}})

	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?role=guest", "")
	if l := apitest.Decode[paging.List[memberJSON]](t, b); l.Count != 1 || l.Items[0].ID != editor {
		t.Errorf("guests = %+v", l)
	}

	b = e.must(http.StatusOK, admin, "POST", m+reader+"/sso", "")
	contracttest.ValidateOperation(t, "setUserAsSSOMemberForOrganization", http.StatusOK, b)
	if !apitest.Decode[memberJSON](t, b).SSO {
		t.Error("sso not set")
	}

	// A second admin lets the first one step down; then a member leaves by themselves.
	e.must(http.StatusOK, admin, "PATCH", m+reader, `{"role":"admin"}`)
	e.must(http.StatusOK, admin, "PATCH", m+admin, `{"role":"edit"}`)
	b = e.must(http.StatusNoContent, editor, "DELETE", m+editor, "")
	contracttest.ValidateOperation(t, "removeMemberFromOrganizationById", http.StatusNoContent, b)
	e.api.Run(e.t, as, []row{{Name: "removed member is gone", User: editor, Method: "GET", Path: "/v1/orgs/" + org, Want: 404}})
	e.must(http.StatusNoContent, reader, "DELETE", m+admin, "")
	b = e.must(http.StatusOK, reader, "GET", "/v1/orgs/"+org+"/members", "")
	if l := apitest.Decode[paging.List[memberJSON]](t, b); l.Count != 1 || l.Items[0].ID != reader {
		t.Errorf("members left = %+v", l)
	}
}

func TestMembersPaging(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	var emails []string
	for i := range 9 {
		emails = append(emails, fmt.Sprintf(`"user%02d@acme.test"`, i))
	}
	b := e.must(http.StatusOK, admin, "POST", "/v1/orgs/"+org+"/invites", `{"emails":[`+strings.Join(emails, ",")+`],"role":"read"}`)
	if r := apitest.Decode[member.InviteUsersResult](t, b); r.Invited != 9 || len(r.Users) != 9 {
		t.Fatalf("invited = %+v", r)
	}
	// Inviting the same e-mails again adds nobody.
	b = e.must(http.StatusOK, admin, "POST", "/v1/orgs/"+org+"/invites", `{"emails":["user00@acme.test"]}`)
	if r := apitest.Decode[member.InviteUsersResult](t, b); r.Invited != 0 {
		t.Errorf("re-invite added %d", r.Invited)
	}

	collect := func(query string) ([]string, int) {
		t.Helper()
		var ids []string
		page, pages, count := "", 0, 0
		for {
			q := query + "&limit=4"
			if page != "" {
				q += "&page=" + page
			}
			b := e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members?"+q, "")
			contracttest.ValidateOperation(t, "listMembersInOrganizationById", http.StatusOK, b)
			l := apitest.Decode[paging.List[memberJSON]](t, b)
			count = l.Count
			for _, it := range l.Items {
				ids = append(ids, it.User.DisplayName)
			}
			pages++
			if l.Next == nil {
				break
			}
			page = l.Next.Page
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
		return ids, count
	}

	names, count := collect("sort=name&order=asc")
	want := []string{"ada"}
	for i := range 9 {
		want = append(want, fmt.Sprintf("user%02d", i))
	}
	if count != 10 || !slices.Equal(names, want) {
		t.Errorf("by name asc: %v (count %d), want %v", names, count, want)
	}
	names, _ = collect("sort=name&order=desc")
	slices.Reverse(want)
	if !slices.Equal(names, want) {
		t.Errorf("by name desc: %v, want %v", names, want)
	}
	names, count = collect("sort=joinedAt")
	if count != 10 || len(names) != 10 || names[9] != "ada" {
		t.Errorf("by joinedAt desc: %v (count %d); the first member should come last", names, count)
	}
	names, count = collect("search=USER0&sort=name&order=asc")
	if count != 9 || len(names) != 9 {
		t.Errorf("search: %v (count %d)", names, count)
	}

	// Only members seen (pinged) are listed by lastSeenAt.
	b = e.must(http.StatusOK, admin, "POST", "/v1/orgs/"+org+"/ping", "")
	contracttest.ValidateOperation(t, "updateOrganizationMemberLastSeenAt", http.StatusOK, b)
	names, count = collect("sort=lastSeenAt")
	if count != 1 || !slices.Equal(names, []string{"ada"}) {
		t.Errorf("by lastSeenAt: %v (count %d)", names, count)
	}
}

func TestPing(t *testing.T) {
	e := newEnv(t)
	org, admin, _ := e.seed("", "ada@acme.test", roles.Admin)
	_, outsider, _ := e.seed("", "oz@other.test", roles.Admin)
	b := e.must(http.StatusOK, admin, "POST", "/v1/orgs/"+org+"/ping", "")
	raw := apitest.Decode[member.PingResult](t, b).ServiceVisitorClaims
	var claims member.VisitorClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(*jwt.Token) (any, error) { return member.ClaimsKey(apitest.Secret), nil },
		jwt.WithValidMethods([]string{"HS256"}), jwt.WithIssuer(member.ClaimsIssuer), jwt.WithExpirationRequired())
	if err != nil {
		t.Fatalf("claims: %v", err)
	}
	if claims.Subject != admin || claims.Organization != org || claims.Email != "ada@acme.test" || claims.Role == nil || *claims.Role != "admin" {
		t.Errorf("claims = %+v", claims)
	}
	b = e.must(http.StatusOK, admin, "GET", "/v1/orgs/"+org+"/members/"+admin, "")
	if apitest.Decode[memberJSON](t, b).LastSeenAt == nil {
		t.Error("lastSeenAt not set by ping")
	}
	e.api.Run(e.t, as, []row{{Name: "non-member pings", User: outsider, Method: "POST", Path: "/v1/orgs/" + org + "/ping", Want: 404}})
}

// Two admins demoting each other at the same time leave the organization with one admin.
func TestConcurrentDemotionsKeepAnAdmin(t *testing.T) {
	for range 5 {
		e := newEnv(t)
		org, a, _ := e.seed("", "ada@acme.test", roles.Admin)
		_, b, _ := e.seed(org, "bea@acme.test", roles.Admin)
		var wg sync.WaitGroup
		codes := make([]int, 2)
		for i, pair := range [][2]string{{a, b}, {b, a}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				codes[i] = e.api.Do(as(pair[0]), "PATCH", "/v1/orgs/"+org+"/members/"+pair[1], `{"role":"read"}`).Status
			}()
		}
		wg.Wait()
		n, err := e.db.Collection("members").CountDocuments(context.Background(), bson.M{"organization": org, "role": "admin"})
		if err != nil {
			t.Fatal(err)
		}
		if n != 1 {
			t.Fatalf("admins left: %d (answers %v), want 1", n, codes)
		}
	}
}
