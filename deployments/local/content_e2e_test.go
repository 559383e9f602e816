package local

import (
	"context"
	"github.com/docspub/platform/libs/waittest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity"
)

// testClock is a clock the test steps forward.
type testClock struct {
	mu  sync.Mutex
	off time.Duration
}

func (c *testClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return time.Now().Add(c.off) }
func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.off += d
}

// member adds a user with role to org (reusing the user of email) and
// returns a client with their new token and their user id.
func member(t *testing.T, p *Platform, org, email string, role roles.Role) (client, string) {
	t.Helper()
	r, err := p.Bootstrap(context.Background(), identity.BootstrapInput{OrganizationID: org, OrganizationTitle: "Org",
		UserDisplayName: strings.Split(email, "@")[0], UserEmail: email, Role: role})
	if err != nil {
		t.Fatal(err)
	}
	return client{t, p.URL, r.Token}, r.UserID
}

func titles(t *testing.T, r reply) []string {
	t.Helper()
	var out []string
	for _, it := range items(t, r) {
		out = append(out, str(it, "title"))
	}
	return out
}

func TestSpacesAndCollectionsThroughGateway(t *testing.T) {
	inProcessOnly(t)
	clk := &testClock{}
	p := startPlatformWith(t, clk.now)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID

	col := admin.op("createCollection", "POST", org+"/collections", map[string]any{"title": "Guides"}).json(t)
	colPath := "/v1/collections/" + str(col, "id")
	admin.op("getCollectionById", "GET", colPath, nil)
	admin.op("updateCollectionById", "PATCH", colPath, map[string]any{"description": "How-tos"})
	sub := admin.op("createCollection", "POST", org+"/collections", map[string]any{"title": "Sub", "parent": str(col, "id")}).json(t)
	admin.op("listCollectionsInOrganizationById", "GET", org+"/collections?nested=false", nil)

	var ids []string
	for _, title := range []string{"A", "B", "C"} {
		sp := admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": title, "parent": str(col, "id")}).json(t)
		ids = append(ids, str(sp, "id"))
	}
	a, b, c := "/v1/spaces/"+ids[0], "/v1/spaces/"+ids[1], "/v1/spaces/"+ids[2]
	admin.op("listSpacesInCollectionById", "GET", org+"/spaces", nil) // ORG/spaces answers what the collection list does

	// Move with position changes the listed order.
	admin.op("moveSpace", "POST", c+"/move", map[string]any{"position": map[string]any{"before": map[string]any{"type": "space", "space": ids[0]}}})
	if got := titles(t, admin.op("listSpacesInCollectionById", "GET", colPath+"/spaces", nil)); strings.Join(got, ",") != "C,A,B" {
		t.Errorf("order after moving C before A: %v", got)
	}
	admin.op("moveCollection", "POST", "/v1/collections/"+str(sub, "id")+"/move", map[string]any{"parent": nil})

	// Delete, get shows deletedAt, restore.
	admin.op("deleteSpaceById", "DELETE", a, nil)
	if got := admin.op("getSpaceById", "GET", a, nil).json(t); str(got, "deletedAt") == "" {
		t.Errorf("deleted space without deletedAt: %v", got)
	}
	if got := titles(t, admin.op("listSpacesInCollectionById", "GET", colPath+"/spaces", nil)); strings.Join(got, ",") != "C,B" {
		t.Errorf("deleted space still listed: %v", got)
	}
	if got := admin.op("restoreSpace", "POST", a+"/restore", nil).json(t); str(got, "deletedAt") != "" {
		t.Errorf("restored space still deleted: %v", got)
	}

	// Restore after 7 days is refused, and the purge removes the space.
	admin.op("deleteSpaceById", "DELETE", b, nil)
	clk.add(7*24*time.Hour + time.Minute)
	admin.status(410, "POST", b+"/restore", nil)
	if n, err := p.PurgeContent(context.Background()); err != nil || n != 1 {
		t.Fatalf("purge = %d, %v; want 1", n, err)
	}
	admin.status(404, "GET", b, nil)

	// Duplicate, patch, member spaces.
	admin.op("duplicateSpace", "POST", a+"/duplicate", nil)
	admin.op("updateSpaceById", "PATCH", a, map[string]any{"title": "Alpha", "emoji": "📘"})
	readerID := str(reader.status(200, "GET", "/v1/user", nil).json(t), "id")
	// Content learns members from identity's events: under load the
	// projection may not have the reader yet.
	waittest.Until(t, "content knows the reader as a member", 10*time.Second, func() bool {
		return admin.do("GET", org+"/members/"+readerID+"/spaces", nil).Status == 200
	})
	admin.op("listSpacesForOrganizationMember", "GET", org+"/members/"+readerID+"/spaces", nil)
	reader.op("listSpacesForOrganizationMember", "GET", org+"/members/"+readerID+"/spaces", nil)

	// A read member cannot change anything.
	reader.status(403, "PATCH", a, map[string]any{"title": "x"})
	reader.status(403, "POST", org+"/spaces", map[string]any{"title": "x"})
	reader.status(403, "DELETE", colPath, nil)

	// No read across organizations.
	for _, path := range []string{a, colPath, colPath + "/spaces", org + "/spaces", org + "/collections", a + "/comments", a + "/custom-fields", org + "/custom-fields"} {
		other.status(404, "GET", path, nil)
	}
	other.status(404, "PATCH", a, map[string]any{"title": "mine"})
	other.status(404, "POST", a+"/transfer", map[string]any{"organization": p.Credentials.DemoOrgID})

	// Transfer across organizations: refused for a non-admin of the target, done for an admin of both.
	otherOrg := str(items(t, other.status(200, "GET", "/v1/orgs", nil))[0], "id")
	half, _ := member(t, p, p.Credentials.DemoOrgID, "half@demo.example", roles.Admin)
	member(t, p, otherOrg, "half@demo.example", roles.Edit)
	half, _ = member(t, p, p.Credentials.DemoOrgID, "half@demo.example", roles.Admin) // a token that knows both roles
	half.status(403, "POST", c+"/transfer", map[string]any{"organization": otherOrg})
	half.status(403, "POST", colPath+"/transfer", map[string]any{"organization": otherOrg})
	both, _ := member(t, p, otherOrg, "both@demo.example", roles.Admin)
	both, _ = member(t, p, p.Credentials.DemoOrgID, "both@demo.example", roles.Admin)
	if got := both.schema("Space", 200, "POST", c+"/transfer", map[string]any{"organization": otherOrg}).json(t); str(got, "organization") != otherOrg {
		t.Errorf("transferred space: %v", got)
	}
	both.op("transferCollection", "POST", colPath+"/transfer", map[string]any{"organization": otherOrg})
	admin.status(404, "GET", colPath, nil)
	admin.op("deleteCollectionById", "DELETE", "/v1/collections/"+str(sub, "id"), nil)
}

func TestContentLimitsThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	long := func(n int) string { return strings.Repeat("a", n) }
	col := "/v1/collections/" + str(admin.op("createCollection", "POST", org+"/collections", map[string]any{"title": "C"}).json(t), "id")
	sp := "/v1/spaces/" + str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "S"}).json(t), "id")
	comment := sp + "/comments/" + str(admin.op("postCommentInSpace", "POST", sp+"/comments", map[string]any{"body": map[string]any{"markdown": "hi"}}).json(t), "id")
	admin.status(201, "POST", org+"/custom-fields", map[string]any{"name": "team", "type": "text"})
	cases := []struct {
		name, method, path string
		body               any
		field              string
	}{
		{"collection title", "POST", org + "/collections", map[string]any{"title": long(51)}, "title"},
		{"collection rename", "PATCH", col, map[string]any{"title": long(51)}, "title"},
		{"collection description", "PATCH", col, map[string]any{"description": long(101)}, "description"},
		{"collection default level", "PATCH", col, map[string]any{"defaultLevel": "owner"}, "defaultLevel"},
		{"collection move without body fields", "POST", col + "/move", map[string]any{}, "parent"},
		{"collection transfer without organization", "POST", col + "/transfer", map[string]any{}, "organization"},
		{"space title", "POST", org + "/spaces", map[string]any{"title": long(51)}, "title"},
		{"space emoji", "POST", org + "/spaces", map[string]any{"emoji": long(51)}, "emoji"},
		{"space rename", "PATCH", sp, map[string]any{"title": long(51)}, "title"},
		{"space edit mode", "PATCH", sp, map[string]any{"editMode": "frozen"}, "editMode"},
		{"space visibility", "PATCH", sp, map[string]any{"visibility": "secret"}, "visibility"},
		{"space move position type", "POST", sp + "/move", map[string]any{"position": map[string]any{"after": map[string]any{"type": "page"}}}, "position.after.type"},
		{"space transfer without organization", "POST", sp + "/transfer", map[string]any{}, "organization"},
		{"list limit", "GET", org + "/spaces?limit=1001", nil, "limit"},
		{"collections limit", "GET", org + "/collections?limit=1001", nil, "limit"},
		{"comment without body", "POST", sp + "/comments", map[string]any{}, "body"},
		{"comment empty markdown", "POST", sp + "/comments", map[string]any{"body": map[string]any{"markdown": " "}}, "body"},
		{"comment status filter", "GET", sp + "/comments?status=closed", nil, "status"},
		{"comment reaction too long", "PUT", comment, map[string]any{"addedReactions": []string{long(51)}}, "addedReactions"},
		{"reply without body", "POST", comment + "/replies", map[string]any{}, "body"},
		{"custom field name pattern", "POST", org + "/custom-fields", map[string]any{"name": "Bad Name", "type": "text"}, "name"},
		{"custom field name too long", "POST", org + "/custom-fields", map[string]any{"name": long(51), "type": "text"}, "name"},
		{"custom field type", "POST", org + "/custom-fields", map[string]any{"name": "x", "type": "color"}, "type"},
		{"custom field title", "POST", org + "/custom-fields", map[string]any{"name": "x", "type": "text", "title": long(101)}, "title"},
		{"custom field description", "POST", org + "/custom-fields", map[string]any{"name": "x", "type": "text", "description": long(201)}, "description"},
		{"custom field placeholder", "POST", org + "/custom-fields", map[string]any{"name": "x", "type": "text", "placeholder": long(101)}, "placeholder"},
		{"custom field options", "POST", org + "/custom-fields", map[string]any{"name": "x", "type": "select", "options": make([]string, 51)}, "options"},
		{"custom field value too long", "PATCH", sp + "/custom-fields", map[string]any{"values": map[string]any{"team": map[string]any{"value": long(257)}}}, "values.team"},
		{"custom field value type", "PATCH", sp + "/custom-fields", map[string]any{"values": map[string]any{"team": map[string]any{"value": 5}}}, "values.team"},
		{"custom field unknown", "PATCH", sp + "/custom-fields", map[string]any{"values": map[string]any{"nope": map[string]any{"value": "x"}}}, "values.nope"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := admin
			c.t = t
			r := c.status(400, tc.method, tc.path, tc.body)
			if !strings.Contains(string(r.Body), tc.field) {
				t.Errorf("error %s does not name the field %q", r.Body, tc.field)
			}
		})
	}
}

func TestCommentsAndCustomFieldsThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	commenter, commenterID := member(t, p, p.Credentials.DemoOrgID, "carl@demo.example", roles.Comment)
	sp := "/v1/spaces/" + str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Discussed"}).json(t), "id")

	// A read member cannot post; a commenter can.
	reader.status(403, "POST", sp+"/comments", map[string]any{"body": map[string]any{"markdown": "no"}})
	cm := commenter.op("postCommentInSpace", "POST", sp+"/comments", map[string]any{"body": map[string]any{"markdown": "Is this right?"}}).json(t)
	cPath := sp + "/comments/" + str(cm, "id")
	if str(cm, "postedBy", "id") != commenterID {
		t.Errorf("postedBy %v, want %s", cm["postedBy"], commenterID)
	}
	// Content learns who users are from identity.events.
	eventually(t, "postedBy.displayName becomes the user's name", func() bool {
		return str(admin.status(200, "GET", sp+"/comments/"+str(cm, "id"), nil).json(t), "postedBy", "displayName") == "carl"
	})
	admin.op("listCommentsInSpace", "GET", sp+"/comments", nil)
	admin.op("getCommentInSpace", "GET", cPath, nil)
	if n := admin.schema("Space", 200, "GET", sp, nil).json(t)["comments"]; n != float64(1) {
		t.Errorf("space comments = %v, want 1", n)
	}

	// Reactions from two users count 2.
	admin.op("updateCommentInSpace", "PUT", cPath, map[string]any{"addedReactions": []string{"👍"}})
	got := commenter.op("updateCommentInSpace", "PUT", cPath, map[string]any{"addedReactions": []string{"👍"}}).json(t)
	reactions, _ := got["reactions"].([]any)
	if len(reactions) != 1 || reactions[0].(map[string]any)["count"] != float64(2) {
		t.Errorf("reactions %v, want one 👍 with count 2", got["reactions"])
	}
	admin.status(403, "PUT", cPath, map[string]any{"body": map[string]any{"markdown": "not mine"}})

	// Replies, resolution, counters.
	rp := admin.op("postCommentReplyInSpace", "POST", cPath+"/replies", map[string]any{"body": map[string]any{"markdown": "Yes."}}).json(t)
	admin.op("listCommentRepliesInSpace", "GET", cPath+"/replies", nil)
	admin.op("getCommentReplyInSpace", "GET", cPath+"/replies/"+str(rp, "id"), nil)
	admin.op("updateCommentReplyInSpace", "PUT", cPath+"/replies/"+str(rp, "id"), map[string]any{"body": map[string]any{"markdown": "Yes!"}})
	resolved := admin.op("updateCommentInSpace", "PUT", cPath, map[string]any{"resolved": true}).json(t)
	if str(resolved, "status") != "resolved" || str(resolved, "resolvedAt") == "" || resolved["replies"] != float64(1) {
		t.Errorf("resolved comment %v", resolved)
	}
	if n := admin.schema("Space", 200, "GET", sp, nil).json(t)["comments"]; n != float64(0) {
		t.Errorf("space comments after resolving = %v, want 0", n)
	}
	admin.op("deleteCommentInSpace", "DELETE", cPath, nil)
	admin.status(404, "GET", cPath, nil)

	// Custom fields: definitions and values.
	admin.status(201, "POST", org+"/custom-fields", map[string]any{"name": "tier", "type": "select", "options": []string{"gold", "silver"}})
	admin.status(200, "GET", org+"/custom-fields", nil)
	admin.status(200, "PATCH", org+"/custom-fields/tier", map[string]any{"title": "Tier"})
	reader.status(403, "POST", org+"/custom-fields", map[string]any{"name": "x", "type": "text"})
	admin.status(204, "PATCH", sp+"/custom-fields", map[string]any{"values": map[string]any{"tier": map[string]any{"value": "gold"}}})
	admin.status(400, "PATCH", sp+"/custom-fields", map[string]any{"values": map[string]any{"tier": map[string]any{"value": "bronze"}}})
	values := admin.status(200, "GET", sp+"/custom-fields", nil)
	if !strings.Contains(string(values.Body), `"gold"`) {
		t.Errorf("custom field values %s", values.Body)
	}
	admin.status(204, "DELETE", org+"/custom-fields/tier", nil)
	admin.status(404, "GET", org+"/custom-fields/tier", nil)
}
