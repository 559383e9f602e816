package customfieldhttp_test

import (
	"context"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/customfield"
	"github.com/docspub/platform/services/content/internal/customfieldhttp"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"github.com/docspub/platform/services/content/internal/links"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// The callers: their roles by organization (a guest has the empty role).
var callers = map[string]map[string]string{
	"admin":  {"o1": "admin"},
	"editor": {"o1": "edit"},
	"reader": {"o1": "read"},
	"guest":  {"o1": ""},
	"other":  {"o2": "admin"},
}

// testSpace is a space as the test gate knows it.
type testSpace struct {
	org     string
	locked  bool
	deleted bool
}

// gate is the test's Gate: fixed spaces, each caller's level being their
// organization role (as when every default level inherits).
type gate map[string]testSpace

func (g gate) Enter(_ context.Context, c access.Caller, id string, a access.Action) (access.Grant, error) {
	sp, ok := g[id]
	role, member := c.Role(sp.org)
	level := access.Level(role, member, nil)
	if !ok || !access.Allows(level, access.View) {
		return access.Grant{}, apierr.NotFound("space not found")
	}
	if sp.deleted {
		return access.Grant{}, apierr.Conflict("space is deleted")
	}
	gr := access.Grant{Organization: sp.org, Space: id, Level: level, Locked: sp.locked, User: c.UserID}
	if !gr.Can(a) {
		return access.Grant{}, apierr.Forbidden("not allowed")
	}
	return gr, nil
}

// The spaces of every test.
var spaces = gate{
	"s1":      {org: "o1"},
	"s2":      {org: "o1"},
	"locked":  {org: "o1", locked: true},
	"deleted": {org: "o1", deleted: true},
	"s-o2":    {org: "o2"},
}

// env is the real engine over the real service and store on a fresh database.
type env struct {
	t   *testing.T
	db  *mongo.Database
	svc *customfield.Service
	api *apitest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	if err := customfieldmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	svc := customfield.New(customfieldmongo.NewStore(mongox.NewDB(db), nil), links.New("http://gw.test", "http://app.test"))
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "content")
	customfieldhttp.Register(e.Group("/v1", internaltoken.Require(signer)), svc, spaces)
	return &env{t: t, db: db, svc: svc, api: apitest.New(t, e, signer)}
}

// as returns the principal of a caller.
func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: callers[user]}
}

// must sends a request and fails unless the status is want.
func (e *env) must(want int, user, method, path, body string) []byte {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, want, "").Body
}

// op is must for a documented operation: the body must match its response
// schema in the API document.
func (e *env) op(want int, user, method, path, body, operationID string) []byte {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, want, operationID).Body
}

// define creates a field in o1 as the admin.
func (e *env) define(body string) {
	e.t.Helper()
	e.must(201, "admin", "POST", "/v1/orgs/o1/custom-fields", body)
}

// row is one request of a table test with its expected status.
type row = apitest.Row
