package commenthttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/blob/blobtest"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commenthttp"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const (
	org    = "org1"
	space  = "sp1"
	rev    = "rev1"
	crRev  = "rev-cr"
	public = "http://gw.test"
)

// The users, by their level on the space; oz has no access to it.
const (
	ada  = "ada"  // admin
	eve  = "eve"  // edit
	cole = "cole" // comment
	kim  = "kim"  // comment
	rex  = "rex"  // read
	oz   = "oz"   // none
)

// base is the path of the space's comments.
const base = "/v1/spaces/" + space + "/comments"

// gate stands in for the space service: fixed grants per user on one space.
// It answers as the real one does: 404 for a space the caller cannot see,
// 403 for an action their level does not allow.
type gate map[string]access.Grant

func (g gate) Enter(_ context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error) {
	gr, ok := g[c.UserID]
	if !ok || gr.Space != spaceID || !gr.Can(access.View) {
		return access.Grant{}, apierr.NotFound("space not found")
	}
	if !gr.Can(a) {
		return access.Grant{}, apierr.Forbidden("your access to this space does not allow you to %s", a)
	}
	return gr, nil
}

// env is the real engine over the real stores on a fresh database.
type env struct {
	t    *testing.T
	db   *mongo.Database
	api  *apitest.Client
	gate gate
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db := mongotest.Database(t)
	indexes := append(commentmongo.Indexes(), peoplemongo.Indexes()...)
	if err := mongox.EnsureIndexes(ctx, db, indexes...); err != nil {
		t.Fatal(err)
	}
	urls := links.New(public, "http://app.test")
	dir := peoplemongo.NewStore(db, urls)
	g := gate{}
	levels := map[string]roles.Role{ada: roles.Admin, eve: roles.Edit, cole: roles.Comment, kim: roles.Comment, rex: roles.Read}
	for i := range 8 {
		levels[fmt.Sprintf("user%d", i)] = roles.Comment
	}
	for user, level := range levels {
		name := strings.ToUpper(user[:1]) + user[1:]
		if err := dir.Put(ctx, org, user, name, user+"@acme.test", level); err != nil {
			t.Fatal(err)
		}
		g[user] = access.Grant{Organization: org, Space: space, Revision: rev, Level: level, User: user}
	}
	// The space's revision and the change requests' have the page pg1.
	revs := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)))
	for _, id := range []string{rev, crRev} {
		pg := revision.Page{ID: "pg1", Kind: revision.KindDocument, Title: "Page", Slug: "page", Markdown: "text"}
		if err := revs.Insert(ctx, revision.Revision{ID: id, Space: space, Organization: org, Pages: []revision.Page{pg}}); err != nil {
			t.Fatal(err)
		}
	}
	svc := comment.New(commentmongo.NewStore(mongox.NewDB(db), nil), dir, revs, urls)
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "content")
	v1 := e.Group("/v1", internaltoken.Require(signer))
	commenthttp.Register(v1, svc, g)
	// Change request comments: the same routes with a resolver of their
	// thread (any change request id; its revision is crRev).
	commenthttp.Routes(v1.Group("/spaces/:spaceId/change-requests/:changeRequestId/comments"), svc, g,
		func(c *gin.Context, gr access.Grant) (access.Grant, comment.Thread, error) {
			gr.Revision = crRev
			return gr, comment.Thread{Space: gr.Space, ChangeRequest: c.Param("changeRequestId")}, nil
		})
	return &env{t: t, db: db, api: apitest.New(t, e, signer), gate: g}
}

// in returns the env reporting to t (a subtest's).
func (e *env) in(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// as returns the principal of a user: a reader of the organization, whose
// level on the space the gate knows.
func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: map[string]string{org: "read"}}
}

// ok sends a request that must succeed with the operation's success status
// and validates the body against the contract operation.
func (e *env) ok(op, user, method, path, body string) []byte {
	e.t.Helper()
	want := 200
	if method == "DELETE" {
		want = 205
	}
	return e.api.Expect(e.t, as(user), method, path, body, want, op).Body
}

// post posts a comment with markdown as user and returns it.
func (e *env) post(user, markdown string) comment.View {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"body": map[string]string{"markdown": markdown}})
	return apitest.Decode[comment.View](e.t, e.ok("postCommentInSpace", user, "POST", base, string(body)))
}

// update changes a comment as user and returns it.
func (e *env) update(user, id, body string) comment.View {
	e.t.Helper()
	return apitest.Decode[comment.View](e.t, e.ok("updateCommentInSpace", user, "PUT", base+"/"+id, body))
}

func (e *env) get(user, id string) comment.View {
	e.t.Helper()
	return apitest.Decode[comment.View](e.t, e.ok("getCommentInSpace", user, "GET", base+"/"+id, ""))
}

// row is one failing request of a table test with its expected status.
type row = apitest.Row

// events returns the events pending on a stored document.
func (e *env) events(coll, id string) []kafkax.Event {
	e.t.Helper()
	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := e.db.Collection(coll).FindOne(context.Background(), bson.M{"_id": id}).Decode(&doc); err != nil {
		e.t.Fatalf("read %s %s: %v", coll, id, err)
	}
	return doc.Outbox
}

func eventTypes(evs []kafkax.Event) []string {
	out := make([]string, len(evs))
	for i, ev := range evs {
		out[i] = ev.Type
	}
	return out
}
