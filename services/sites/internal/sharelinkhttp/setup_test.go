package sharelinkhttp_test

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/docspub/platform/services/sites/internal/sharelinkhttp"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// The callers: their roles by organization.
var callers = map[string]map[string]string{
	"admin":   {"o1": "admin"},
	"creator": {"o1": "create"},
	"reader":  {"o1": "read"},
	"guest":   {"o1": ""},
	"other":   {"o2": "admin"},
}

// siteAccess is the test's SiteAccess: fixed sites by organization, each
// caller's level being their organization role.
type siteAccess map[string]string // site id → organization

func (s siteAccess) Enter(_ context.Context, c access.Caller, org, id string, a access.Action) (site.Grant, error) {
	siteOrg, ok := s[id]
	role, member := c.Role(org)
	if !ok || siteOrg != org || !member || !access.Allows(role, access.View) {
		return site.Grant{}, apierr.NotFound("site not found")
	}
	g := site.Grant{Organization: org, Site: id, User: c.UserID, Level: role}
	if !g.Can(a) {
		return site.Grant{}, apierr.Forbidden("your role does not allow this")
	}
	return g, nil
}

var sites = siteAccess{"s1": "o1", "s2": "o1", "s3": "o2"}

// env is the real engine over the real service and store on a fresh database.
type env struct {
	t   *testing.T
	db  *mongo.Database
	svc *sharelink.Service
	api *apitest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	if err := sharelinkmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	svc := sharelink.New(sharelinkmongo.NewStore(mongox.NewDB(db), nil), sites,
		sharelink.URLs{Published: "https://sites.test"}, time.Now)
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "sites")
	sharelinkhttp.Register(e.Group("/v1", internaltoken.Require(signer)), svc)
	return &env{t: t, db: db, svc: svc, api: apitest.New(t, e, signer)}
}

// as returns the principal of a caller.
func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: callers[user]}
}

// expect sends a request as user, fails unless the status is want and, for
// a success, validates the body against the operation.
func (e *env) expect(want int, op, user, method, path, body string) []byte {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, want, op).Body
}
