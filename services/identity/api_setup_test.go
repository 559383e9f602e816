package identity

import (
	"context"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/token"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// env is the real engine over real stores on a fresh database.
type env struct {
	t      *testing.T
	db     *mongo.Database
	svc    *member.Service
	tokens *token.Service
	api    *apitest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, indexes()...); err != nil {
		t.Fatal(err)
	}
	s := newServices(mongox.NewDB(db), organization.URLs{Public: "http://gw.test", App: "http://gw.test/app"}, apitest.Secret, nil)
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.Discard(), "identity")
	s.register(e, signer)
	return &env{t: t, db: db, svc: s.members, tokens: s.tokens, api: apitest.New(t, e, signer)}
}

// seed creates a user with the role in org ("" creates an organization) and
// returns the organization id, the user id and the raw token.
func (e *env) seed(org, email string, role roles.Role) (string, string, string) {
	e.t.Helper()
	r, err := e.svc.Bootstrap(context.Background(), member.BootstrapInput{
		OrganizationID: org, OrganizationTitle: "Acme Docs", UserDisplayName: strings.Split(email, "@")[0],
		UserEmail: email, Role: role,
	})
	if err != nil {
		e.t.Fatalf("bootstrap %s: %v", email, err)
	}
	return r.OrganizationID, r.UserID, r.Token
}

// as returns the principal of a user (no user when user is "").
func as(user string) internaltoken.Principal { return internaltoken.Principal{UserID: user} }

// must sends a request as a user and fails unless the status is want.
func (e *env) must(want int, user, method, path, body string) []byte {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, want, "").Body
}

// row is one request of a table test with its expected status.
type row = apitest.Row

type idOnly struct {
	ID string `json:"id"`
}
