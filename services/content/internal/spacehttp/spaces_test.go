package spacehttp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/google/go-cmp/cmp"
)

func spaceID(s spaceBody) string { return s.ID }

func TestSpaceLifecycle(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	sp := e.createSpace(admin, "org1", `{"title":"Handbook","emoji":"📘"}`)
	if sp.Title != "Handbook" || sp.Organization != "org1" || sp.Visibility != "private" || sp.EditMode != "live" || !sp.Permissions.Admin {
		t.Errorf("created %+v", sp)
	}
	e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "getSpaceById", 200)
	var got spaceBody
	e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"title":"Guide","editMode":"locked","defaultLevel":"read"}`, "updateSpaceById", 200).Decode(t, &got)
	if got.Title != "Guide" || got.EditMode != "locked" || got.DefaultLevel == nil || *got.DefaultLevel != "read" || got.Permissions.Edit {
		t.Errorf("patched %+v", got)
	}
	// A locked space refuses content changes, a rename among them.
	if r := e.do(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"title":"Nope"}`); r.Status != 403 {
		t.Errorf("rename locked: %d %s", r.Status, r.Body)
	}

	e.ok(admin, "DELETE", "/v1/spaces/"+sp.ID, "", "deleteSpaceById", 205)
	e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "getSpaceById", 200).Decode(t, &got)
	if got.DeletedAt == nil {
		t.Fatal("deleted space has no deletedAt")
	}
	var l paging.List[spaceBody]
	e.ok(admin, "GET", "/v1/orgs/org1/spaces", "", listOrgSpaces, 200).Decode(t, &l)
	if l.Count != 0 || len(l.Items) != 0 {
		t.Errorf("deleted space listed: %+v", l)
	}
	if r := e.do(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"emoji":"x"}`); r.Status != 409 {
		t.Errorf("patch deleted: %d %s", r.Status, r.Body)
	}
	e.ok(admin, "DELETE", "/v1/spaces/"+sp.ID, "", "", 205) // idempotent
	e.clock.add(6 * 24 * time.Hour)
	var restored spaceBody
	e.ok(admin, "POST", "/v1/spaces/"+sp.ID+"/restore", "", "restoreSpace", 200).Decode(t, &restored)
	if restored.DeletedAt != nil {
		t.Errorf("restored space still deleted: %+v", restored)
	}
	e.ok(admin, "GET", "/v1/orgs/org1/spaces", "", listOrgSpaces, 200).Decode(t, &l)
	if l.Count != 1 {
		t.Errorf("restored space not listed: %+v", l)
	}
}

func TestRestoreWindowAndPurge(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	old := e.createSpace(admin, "org1", `{"title":"Old"}`)
	recent := e.createSpace(admin, "org1", `{"title":"Recent"}`)
	e.ok(admin, "DELETE", "/v1/spaces/"+old.ID, "", "", 205)
	e.clock.add(5 * 24 * time.Hour)
	e.ok(admin, "DELETE", "/v1/spaces/"+recent.ID, "", "", 205)
	e.clock.add(2*24*time.Hour + time.Minute) // old: 7 days and a minute ago; recent: 2 days

	r := e.do(admin, "POST", "/v1/spaces/"+old.ID+"/restore", "")
	if r.Status != 410 || !strings.Contains(string(r.Body), "7 days") {
		t.Errorf("restore after 7 days: %d %s", r.Status, r.Body)
	}
	n, err := e.svc.Purge(context.Background())
	if err != nil || n != 1 {
		t.Fatalf("Purge() = %d, %v; want 1", n, err)
	}
	if r := e.do(admin, "GET", "/v1/spaces/"+old.ID, ""); r.Status != 404 {
		t.Errorf("purged space: %d %s", r.Status, r.Body)
	}
	e.ok(admin, "POST", "/v1/spaces/"+recent.ID+"/restore", "", "restoreSpace", 200)
}

func TestSpacePermissions(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	reader := e.member("rex", "org1", roles.Read)
	editor := e.member("eve", "org1", roles.Edit)
	outsider := e.member("oz", "org2", roles.Admin)
	sp := e.createSpace(admin, "org1", `{"title":"Open"}`)
	hidden := e.createSpace(admin, "org1", `{"title":"Hidden"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+hidden.ID, `{"defaultLevel":null}`, "updateSpaceById", 200)

	for _, tc := range []struct {
		name         string
		u            user
		method, path string
		body         string
		want         int
	}{
		{"reader cannot create", reader, "POST", "/v1/orgs/org1/spaces", `{}`, 403},
		{"reader cannot rename", reader, "PATCH", "/v1/spaces/" + sp.ID, `{"title":"x"}`, 403},
		{"editor renames", editor, "PATCH", "/v1/spaces/" + sp.ID, `{"title":"Renamed"}`, 200},
		{"editor cannot lock", editor, "PATCH", "/v1/spaces/" + sp.ID, `{"editMode":"locked"}`, 403},
		{"editor cannot delete", editor, "DELETE", "/v1/spaces/" + sp.ID, ``, 403},
		{"reader cannot see a no-access space", reader, "GET", "/v1/spaces/" + hidden.ID, ``, 404},
		{"other organization never reads", outsider, "GET", "/v1/spaces/" + sp.ID, ``, 404},
		{"other organization cannot list", outsider, "GET", "/v1/orgs/org1/spaces", ``, 404},
		{"other organization cannot delete", outsider, "DELETE", "/v1/spaces/" + sp.ID, ``, 404},
		{"reader cannot duplicate", reader, "POST", "/v1/spaces/" + sp.ID + "/duplicate", ``, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if r := e.do(tc.u, tc.method, tc.path, tc.body); r.Status != tc.want {
				t.Errorf("%s %s: %d, want %d: %s", tc.method, tc.path, r.Status, tc.want, r.Body)
			}
		})
	}
	var l paging.List[spaceBody]
	e.ok(reader, "GET", "/v1/orgs/org1/spaces", "", listOrgSpaces, 200).Decode(t, &l)
	if diff := cmp.Diff([]string{sp.ID}, ids(l.Items, spaceID)); diff != "" || l.Count != 1 {
		t.Errorf("reader's list (-want +got), count %d:\n%s", l.Count, diff)
	}
	if l.Items[0].Permissions.Edit || !l.Items[0].Permissions.View {
		t.Errorf("reader's permissions: %+v", l.Items[0].Permissions)
	}
}

// TestGitBookSpaceID: an admin records the GitBook space a space was
// migrated from (our extension); the space shows it until cleared, and
// an editor cannot change it.
func TestGitBookSpaceID(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	editor := e.member("eve", "org1", roles.Edit)
	sp := e.createSpace(admin, "org1", `{"title":"Docs"}`)
	if sp.GitBookSpaceID != "" {
		t.Errorf("a new space has GitBook space %q", sp.GitBookSpaceID)
	}
	var got spaceBody
	e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"gitbookSpaceId":"NkEGS7hzeqa35sMXQZ4X"}`, "updateSpaceById", 200).Decode(t, &got)
	if got.GitBookSpaceID != "NkEGS7hzeqa35sMXQZ4X" {
		t.Errorf("patched: %+v", got)
	}
	e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"title":"Renamed"}`, "updateSpaceById", 200)
	e.ok(editor, "PATCH", "/v1/spaces/"+sp.ID, `{"emoji":"1f600"}`, "updateSpaceById", 200)
	e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "getSpaceById", 200).Decode(t, &got)
	if got.GitBookSpaceID != "NkEGS7hzeqa35sMXQZ4X" || got.Title != "Renamed" {
		t.Errorf("read after PATCHes naming other fields: %+v", got)
	}
	if r := e.do(editor, "PATCH", "/v1/spaces/"+sp.ID, `{"gitbookSpaceId":"other"}`); r.Status != 403 {
		t.Errorf("an editor set it: %d %s", r.Status, r.Body)
	}
	r := e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"gitbookSpaceId":""}`, "updateSpaceById", 200)
	if strings.Contains(string(r.Body), "gitbookSpaceId") {
		t.Errorf("cleared, the space still shows it: %s", r.Body)
	}
}

// TestSpaceLanguage: an admin sets the language a space is written in
// (one of the API's TranslationLanguage codes); the space shows it until
// cleared; another value is a 400 naming the field.
func TestSpaceLanguage(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	editor := e.member("eve", "org1", roles.Edit)
	sp := e.createSpace(admin, "org1", `{"title":"Docs"}`)
	r := e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"language":"pt-br"}`, "updateSpaceById", 200)
	if !strings.Contains(string(r.Body), `"language":"pt-br"`) {
		t.Errorf("patched: %s", r.Body)
	}
	e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"title":"Renamed"}`, "updateSpaceById", 200)
	if r := e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "getSpaceById", 200); !strings.Contains(string(r.Body), `"language":"pt-br"`) {
		t.Errorf("read after a rename: %s", r.Body)
	}
	if r := e.do(editor, "PATCH", "/v1/spaces/"+sp.ID, `{"language":"fr"}`); r.Status != 403 {
		t.Errorf("an editor set it: %d %s", r.Status, r.Body)
	}
	for _, body := range []string{`{"language":"klingon"}`, `{"language":7}`} {
		if r := e.do(admin, "PATCH", "/v1/spaces/"+sp.ID, body); r.Status != 400 || !strings.Contains(string(r.Body), "language") {
			t.Errorf("PATCH %s = %d %s, want a 400 naming language", body, r.Status, r.Body)
		}
	}
	if r := e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"language":""}`, "updateSpaceById", 200); strings.Contains(string(r.Body), `"language"`) {
		t.Errorf("cleared, the space still shows it: %s", r.Body)
	}
}

func TestSpaceLimits(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	sp := e.createSpace(admin, "org1", `{}`)
	long := strings.Repeat("a", 51)
	for _, tc := range []struct {
		method, path, body, field string
	}{
		{"POST", "/v1/orgs/org1/spaces", `{"title":"` + long + `"}`, "title"},
		{"POST", "/v1/orgs/org1/spaces", `{"emoji":"` + long + `"}`, "emoji"},
		{"POST", "/v1/orgs/org1/spaces", `{"editMode":"frozen"}`, "editMode"},
		{"POST", "/v1/orgs/org1/spaces", `{"parent":"nope"}`, "parent"},
		{"POST", "/v1/orgs/org1/spaces", `{"title":5}`, "title"},
		{"POST", "/v1/orgs/org1/spaces", `{"title":"line\nbreak"}`, "title"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"title":"\u001b[31mred"}`, "title"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"title":"\u2066isolated\u2069"}`, "title"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"title":"` + long + `"}`, "title"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"defaultLevel":"owner"}`, "defaultLevel"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"visibility":"secret"}`, "visibility"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"visibility":"in-collection"}`, "visibility"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"gitbookSpaceId":"../x"}`, "gitbookSpaceId"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"gitbookSpaceId":"` + strings.Repeat("a", 65) + `"}`, "gitbookSpaceId"},
		{"PATCH", "/v1/spaces/" + sp.ID, `{"gitbookSpaceId":5}`, "gitbookSpaceId"},
		{"POST", "/v1/spaces/" + sp.ID + "/move", `{}`, "parent"},
		{"POST", "/v1/spaces/" + sp.ID + "/move", `{"position":{"before":{"type":"page"}}}`, "position.before.type"},
		{"POST", "/v1/spaces/" + sp.ID + "/move", `{"position":{"before":{"type":"space","space":"` + sp.ID + `"}}}`, "position.before"},
		{"POST", "/v1/spaces/" + sp.ID + "/transfer", `{}`, "organization"},
		{"POST", "/v1/spaces/" + sp.ID + "/transfer", `{"organization":"org9"}`, "organization"},
		{"GET", "/v1/orgs/org1/spaces?limit=1001", ``, "limit"},
		{"GET", "/v1/orgs/org1/spaces?page=zzz", ``, "page"},
	} {
		t.Run(tc.method+" "+tc.body, func(t *testing.T) {
			r := e.do(admin, tc.method, tc.path, tc.body)
			if r.Status != 400 || !strings.Contains(string(r.Body), tc.field) {
				t.Errorf("%s %s %s: %d %s; want 400 naming %s", tc.method, tc.path, tc.body, r.Status, r.Body, tc.field)
			}
		})
	}
}

func TestSpacePagingIsKeyset(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	var want []string
	for i := range 7 {
		want = append(want, e.createSpace(admin, "org1", fmt.Sprintf(`{"title":"S%d"}`, i)).ID)
	}
	var got []string
	path := "/v1/orgs/org1/spaces?limit=3"
	for pages := 0; pages < 5; pages++ {
		var l paging.List[spaceBody]
		e.ok(admin, "GET", path, "", listOrgSpaces, 200).Decode(t, &l)
		if l.Count != 7 {
			t.Errorf("count %d, want 7", l.Count)
		}
		got = append(got, ids(l.Items, spaceID)...)
		if l.Next == nil {
			break
		}
		path = "/v1/orgs/org1/spaces?limit=3&page=" + l.Next.Page
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("paged spaces (-want +got):\n%s", diff)
	}
}

func TestDuplicateAndTransferSpace(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	e.member("ada", "org2", roles.Admin)
	admin.roles["org2"] = "admin"
	halfAdmin := user{id: "hal", roles: map[string]string{"org1": "admin", "org2": "edit"}}
	sp := e.createSpace(admin, "org1", `{"title":"Source","emoji":"📘"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+sp.ID, `{"visibility":"unlisted"}`, "updateSpaceById", 200)

	var cp spaceBody
	e.ok(admin, "POST", "/v1/spaces/"+sp.ID+"/duplicate", "", "duplicateSpace", 201).Decode(t, &cp)
	if cp.ID == sp.ID || cp.Title != "Source (copy)" || cp.Visibility != "unlisted" {
		t.Errorf("duplicate %+v", cp)
	}

	if r := e.do(halfAdmin, "POST", "/v1/spaces/"+sp.ID+"/transfer", `{"organization":"org2"}`); r.Status != 403 {
		t.Errorf("transfer by a non-admin of the target: %d %s", r.Status, r.Body)
	}
	var moved spaceBody
	e.ok(admin, "POST", "/v1/spaces/"+sp.ID+"/transfer", `{"organization":"org2"}`, "", 200).Decode(t, &moved)
	if moved.Organization != "org2" {
		t.Errorf("transferred %+v", moved)
	}
	var l paging.List[spaceBody]
	e.ok(admin, "GET", "/v1/orgs/org2/spaces", "", listOrgSpaces, 200).Decode(t, &l)
	if diff := cmp.Diff([]string{sp.ID}, ids(l.Items, spaceID)); diff != "" {
		t.Errorf("org2 spaces (-want +got):\n%s", diff)
	}
	org1Only := user{id: "rex", roles: map[string]string{"org1": "admin"}}
	if r := e.do(org1Only, "GET", "/v1/spaces/"+sp.ID, ""); r.Status != 404 {
		t.Errorf("org1 member reads the transferred space: %d", r.Status)
	}
}

func TestMemberSpaces(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	reader := e.member("rex", "org1", roles.Read)
	a := e.createSpace(admin, "org1", `{"title":"A"}`)
	b := e.createSpace(admin, "org1", `{"title":"B"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+b.ID, `{"defaultLevel":null}`, "", 200)
	c := e.createSpace(admin, "org1", `{"title":"C"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+c.ID, `{"defaultLevel":"comment"}`, "", 200)

	type item struct {
		Permission string    `json:"permission"`
		Space      spaceBody `json:"space"`
	}
	var l paging.List[item]
	e.ok(admin, "GET", "/v1/orgs/org1/members/rex/spaces?order=asc", "", "listSpacesForOrganizationMember", 200).Decode(t, &l)
	got := map[string]string{}
	for _, it := range l.Items {
		got[it.Space.ID] = it.Permission
	}
	if diff := cmp.Diff(map[string]string{a.ID: "read", c.ID: "read"}, got); diff != "" || l.Count != 2 {
		t.Errorf("rex's spaces (-want +got), count %d:\n%s", l.Count, diff)
	}
	e.ok(admin, "GET", "/v1/orgs/org1/members/ada/spaces", "", "listSpacesForOrganizationMember", 200).Decode(t, &l)
	if l.Count != 3 || l.Items[0].Permission != "admin" || l.Items[0].Space.ID != c.ID {
		t.Errorf("ada's spaces, newest first: %+v", l)
	}
	if r := e.do(reader, "GET", "/v1/orgs/org1/members/ada/spaces", ""); r.Status != 403 {
		t.Errorf("reader lists another member's spaces: %d", r.Status)
	}
	if r := e.do(admin, "GET", "/v1/orgs/org1/members/nobody/spaces", ""); r.Status != 404 {
		t.Errorf("unknown member: %d", r.Status)
	}
}
