package spacehttp_test

import (
	"strings"
	"testing"

	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/google/go-cmp/cmp"
)

func collectionID(c collectionBody) string { return c.ID }

func TestCollectionLifecycle(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	top := e.createCollection(admin, "org1", `{"title":"Product"}`)
	sub := e.createCollection(admin, "org1", `{"title":"API","parent":"`+top.ID+`"}`)
	if sub.Parent != top.ID {
		t.Errorf("sub-collection parent %q", sub.Parent)
	}
	e.ok(admin, "GET", "/v1/collections/"+top.ID, "", "getCollectionById", 200)
	var patched struct {
		Title        string  `json:"title"`
		Description  string  `json:"description"`
		DefaultLevel *string `json:"defaultLevel"`
	}
	e.ok(admin, "PATCH", "/v1/collections/"+top.ID, `{"title":"Products","description":"All of them","defaultLevel":"comment"}`,
		"updateCollectionById", 200).Decode(t, &patched)
	if patched.Title != "Products" || patched.Description != "All of them" || patched.DefaultLevel == nil || *patched.DefaultLevel != "comment" {
		t.Errorf("patched %+v", patched)
	}

	var l paging.List[collectionBody]
	e.ok(admin, "GET", "/v1/orgs/org1/collections", "", "listCollectionsInOrganizationById", 200).Decode(t, &l)
	if diff := cmp.Diff([]string{top.ID, sub.ID}, ids(l.Items, collectionID)); diff != "" {
		t.Errorf("nested list (-want +got):\n%s", diff)
	}
	e.ok(admin, "GET", "/v1/orgs/org1/collections?nested=false", "", "listCollectionsInOrganizationById", 200).Decode(t, &l)
	if diff := cmp.Diff([]string{top.ID}, ids(l.Items, collectionID)); diff != "" {
		t.Errorf("top list (-want +got):\n%s", diff)
	}

	sp := e.createSpace(admin, "org1", `{"title":"Reference","parent":"`+sub.ID+`"}`)
	var sl paging.List[spaceBody]
	e.ok(admin, "GET", "/v1/collections/"+sub.ID+"/spaces", "", "listSpacesInCollectionById", 200).Decode(t, &sl)
	if diff := cmp.Diff([]string{sp.ID}, ids(sl.Items, spaceID)); diff != "" {
		t.Errorf("collection spaces (-want +got):\n%s", diff)
	}
	if r := e.do(admin, "DELETE", "/v1/collections/"+sub.ID, ""); r.Status != 409 {
		t.Errorf("delete non-empty: %d %s", r.Status, r.Body)
	}
	e.ok(admin, "DELETE", "/v1/spaces/"+sp.ID, "", "", 205)
	e.ok(admin, "DELETE", "/v1/collections/"+sub.ID, "", "deleteCollectionById", 205)
	if r := e.do(admin, "GET", "/v1/collections/"+sub.ID, ""); r.Status != 404 {
		t.Errorf("deleted collection: %d", r.Status)
	}
	// The deleted space's collection is gone: restoring brings it back at the top.
	var restored spaceBody
	e.ok(admin, "POST", "/v1/spaces/"+sp.ID+"/restore", "", "restoreSpace", 200).Decode(t, &restored)
	if restored.Parent != "" {
		t.Errorf("restored into a deleted collection: %+v", restored)
	}
}

func TestMoveWithPositionChangesOrder(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	col := e.createCollection(admin, "org1", `{"title":"Guides"}`)
	var s []spaceBody
	for _, title := range []string{"A", "B", "C", "D"} {
		s = append(s, e.createSpace(admin, "org1", `{"title":"`+title+`","parent":"`+col.ID+`"}`))
	}
	order := func() []string {
		var l paging.List[spaceBody]
		e.ok(admin, "GET", "/v1/collections/"+col.ID+"/spaces", "", "listSpacesInCollectionById", 200).Decode(t, &l)
		return ids(l.Items, func(s spaceBody) string { return s.Title })
	}
	move := func(id, body string) {
		t.Helper()
		e.ok(admin, "POST", "/v1/spaces/"+id+"/move", body, "moveSpace", 200)
	}
	move(s[3].ID, `{"position":{"before":{"type":"space","space":"`+s[0].ID+`"}}}`)
	if diff := cmp.Diff([]string{"D", "A", "B", "C"}, order()); diff != "" {
		t.Errorf("D before A (-want +got):\n%s", diff)
	}
	move(s[0].ID, `{"position":{"after":{"type":"space","space":"`+s[2].ID+`"}}}`)
	if diff := cmp.Diff([]string{"D", "B", "C", "A"}, order()); diff != "" {
		t.Errorf("A after C (-want +got):\n%s", diff)
	}
	move(s[2].ID, `{"position":{"after":{"type":"space","space":"`+s[3].ID+`"},"before":{"type":"space","space":"`+s[1].ID+`"}}}`)
	if diff := cmp.Diff([]string{"D", "C", "B", "A"}, order()); diff != "" {
		t.Errorf("C between D and B (-want +got):\n%s", diff)
	}
	// Many moves into one gap renumber the siblings and keep the order exact.
	for range 25 {
		move(s[0].ID, `{"position":{"before":{"type":"space","space":"`+s[1].ID+`"}}}`)
		move(s[1].ID, `{"position":{"before":{"type":"space","space":"`+s[0].ID+`"}}}`)
	}
	if diff := cmp.Diff([]string{"D", "C", "B", "A"}, order()); diff != "" {
		t.Errorf("after 50 moves (-want +got):\n%s", diff)
	}
	// Out of the collection to the top, then back in before B.
	var sp spaceBody
	e.ok(admin, "POST", "/v1/spaces/"+s[3].ID+"/move", `{"parent":null}`, "moveSpace", 200).Decode(t, &sp)
	if sp.Parent != "" {
		t.Errorf("moved to top: %+v", sp)
	}
	move(s[3].ID, `{"parent":"`+col.ID+`","position":{"before":{"type":"space","space":"`+s[1].ID+`"}}}`)
	if diff := cmp.Diff([]string{"C", "D", "B", "A"}, order()); diff != "" {
		t.Errorf("back before B (-want +got):\n%s", diff)
	}
	if r := e.do(admin, "POST", "/v1/spaces/"+s[3].ID+"/move", `{"parent":null,"position":{"before":{"type":"space","space":"`+s[1].ID+`"}}}`); r.Status != 400 {
		t.Errorf("position outside the destination: %d %s", r.Status, r.Body)
	}
}

func TestMoveCollection(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	a := e.createCollection(admin, "org1", `{"title":"A"}`)
	b := e.createCollection(admin, "org1", `{"title":"B"}`)
	child := e.createCollection(admin, "org1", `{"title":"Child","parent":"`+a.ID+`"}`)
	var moved collectionBody
	e.ok(admin, "POST", "/v1/collections/"+b.ID+"/move", `{"position":{"before":{"type":"collection","collection":"`+a.ID+`"}}}`, "moveCollection", 200).Decode(t, &moved)
	var l paging.List[collectionBody]
	e.ok(admin, "GET", "/v1/orgs/org1/collections?nested=false", "", "listCollectionsInOrganizationById", 200).Decode(t, &l)
	if diff := cmp.Diff([]string{b.ID, a.ID}, ids(l.Items, collectionID)); diff != "" {
		t.Errorf("B before A (-want +got):\n%s", diff)
	}
	if r := e.do(admin, "POST", "/v1/collections/"+a.ID+"/move", `{"parent":"`+child.ID+`"}`); r.Status != 400 {
		t.Errorf("move into own child: %d %s", r.Status, r.Body)
	}
	e.ok(admin, "POST", "/v1/collections/"+child.ID+"/move", `{"parent":"`+b.ID+`"}`, "moveCollection", 200).Decode(t, &moved)
	if moved.Parent != b.ID {
		t.Errorf("moved child %+v", moved)
	}
}

func TestTransferCollection(t *testing.T) {
	e := newEnv(t)
	admin := user{id: "ada", roles: map[string]string{"org1": "admin", "org2": "admin"}}
	notAdminThere := user{id: "eve", roles: map[string]string{"org1": "admin", "org2": "create"}}
	col := e.createCollection(admin, "org1", `{"title":"Moving"}`)
	sub := e.createCollection(admin, "org1", `{"title":"Sub","parent":"`+col.ID+`"}`)
	sp := e.createSpace(admin, "org1", `{"title":"Inside","parent":"`+sub.ID+`"}`)

	if r := e.do(notAdminThere, "POST", "/v1/collections/"+col.ID+"/transfer", `{"organization":"org2"}`); r.Status != 403 {
		t.Errorf("transfer by a non-admin of the target: %d %s", r.Status, r.Body)
	}
	if r := e.do(admin, "POST", "/v1/collections/"+col.ID+"/transfer", `{}`); r.Status != 400 || !strings.Contains(string(r.Body), "organization") {
		t.Errorf("transfer without organization: %d %s", r.Status, r.Body)
	}
	var moved collectionBody
	e.ok(admin, "POST", "/v1/collections/"+col.ID+"/transfer", `{"organization":"org2"}`, "transferCollection", 200).Decode(t, &moved)
	if moved.Organization != "org2" {
		t.Errorf("transferred %+v", moved)
	}
	var got spaceBody
	e.ok(admin, "GET", "/v1/spaces/"+sp.ID, "", "getSpaceById", 200).Decode(t, &got)
	var gotSub collectionBody
	e.ok(admin, "GET", "/v1/collections/"+sub.ID, "", "getCollectionById", 200).Decode(t, &gotSub)
	if got.Organization != "org2" || got.Parent != sub.ID || gotSub.Organization != "org2" || gotSub.Parent != col.ID {
		t.Errorf("descendants: space %+v, sub %+v", got, gotSub)
	}
	org1Only := user{id: "rex", roles: map[string]string{"org1": "admin"}}
	if r := e.do(org1Only, "GET", "/v1/collections/"+col.ID, ""); r.Status != 404 {
		t.Errorf("org1 reads the transferred collection: %d", r.Status)
	}
}

func TestCollectionDefaultLevelAndLimits(t *testing.T) {
	e := newEnv(t)
	admin := e.member("ada", "org1", roles.Admin)
	reader := e.member("rex", "org1", roles.Read)
	creator := e.member("cat", "org1", roles.Create)
	private := e.createCollection(admin, "org1", `{"title":"Private"}`)
	e.ok(admin, "PATCH", "/v1/collections/"+private.ID, `{"defaultLevel":null}`, "updateCollectionById", 200)
	inside := e.createSpace(admin, "org1", `{"title":"Secret","parent":"`+private.ID+`"}`)
	readOnly := e.createCollection(admin, "org1", `{"title":"ReadOnly"}`)
	e.ok(admin, "PATCH", "/v1/collections/"+readOnly.ID, `{"defaultLevel":"read"}`, "updateCollectionById", 200)

	if r := e.do(reader, "GET", "/v1/spaces/"+inside.ID, ""); r.Status != 404 {
		t.Errorf("reader sees a space of a no-access collection: %d", r.Status)
	}
	if r := e.do(reader, "GET", "/v1/collections/"+private.ID, ""); r.Status != 404 {
		t.Errorf("reader sees a no-access collection: %d", r.Status)
	}
	var l paging.List[collectionBody]
	e.ok(reader, "GET", "/v1/orgs/org1/collections", "", "listCollectionsInOrganizationById", 200).Decode(t, &l)
	if diff := cmp.Diff([]string{readOnly.ID}, ids(l.Items, collectionID)); diff != "" || l.Count != 1 {
		t.Errorf("reader's collections (-want +got):\n%s", diff)
	}
	if r := e.do(creator, "POST", "/v1/orgs/org1/spaces", `{"parent":"`+readOnly.ID+`"}`); r.Status != 403 {
		t.Errorf("creating in a read-level collection: %d %s", r.Status, r.Body)
	}
	if r := e.do(reader, "POST", "/v1/orgs/org1/collections", `{}`); r.Status != 403 {
		t.Errorf("reader creates a collection: %d", r.Status)
	}
	e.ok(creator, "POST", "/v1/orgs/org1/collections", ``, "createCollection", 201)
	for _, tc := range []struct{ method, path, body, field string }{
		{"POST", "/v1/orgs/org1/collections", `{"title":"` + strings.Repeat("t", 51) + `"}`, "title"},
		{"POST", "/v1/orgs/org1/collections", `{"title":"a\u0000b"}`, "title"},
		{"PATCH", "/v1/collections/" + readOnly.ID, `{"title":"txt\u202eexe.pdf"}`, "title"},
		{"POST", "/v1/orgs/org1/collections", `{"parent":"missing"}`, "parent"},
		{"PATCH", "/v1/collections/" + readOnly.ID, `{"description":"` + strings.Repeat("d", 101) + `"}`, "description"},
		{"PATCH", "/v1/collections/" + readOnly.ID, `{"defaultLevel":"boss"}`, "defaultLevel"},
		{"GET", "/v1/orgs/org1/collections?nested=perhaps", ``, "nested"},
		{"POST", "/v1/collections/" + readOnly.ID + "/move", `{"parent":"missing"}`, "parent"},
	} {
		if r := e.do(admin, tc.method, tc.path, tc.body); r.Status != 400 || !strings.Contains(string(r.Body), tc.field) {
			t.Errorf("%s %s %s: %d %s; want 400 naming %s", tc.method, tc.path, tc.body, r.Status, r.Body, tc.field)
		}
	}
}
