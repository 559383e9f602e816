package directoryhttp_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/directory"
	"github.com/docspub/platform/services/identity/internal/directoryhttp"
	"github.com/docspub/platform/services/identity/internal/directorymongo"
	"github.com/docspub/platform/services/identity/internal/invite"
	"github.com/docspub/platform/services/identity/internal/invitehttp"
	"github.com/docspub/platform/services/identity/internal/invitemongo"
	"github.com/docspub/platform/services/identity/internal/saml"
	"github.com/docspub/platform/services/identity/internal/samlhttp"
	"github.com/docspub/platform/services/identity/internal/samlmongo"
	"github.com/docspub/platform/services/identity/internal/token"
	"github.com/docspub/platform/services/identity/internal/tokenhttp"
	"github.com/docspub/platform/services/identity/internal/tokenmongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// env is the real engine over real stores on a fresh database.
type env struct {
	t      *testing.T
	db     *mongo.Database
	svc    *directory.Service
	tokens *token.Service
	api    *apitest.Client
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	if err := mongox.EnsureIndexes(ctx, db, slices.Concat(directorymongo.Indexes(), invitemongo.Indexes(), samlmongo.Indexes(), tokenmongo.Indexes())...); err != nil {
		t.Fatal(err)
	}
	locks := mongox.NewDocLocks()
	store := directorymongo.NewStore(db, locks)
	tokens := token.New(tokenmongo.NewStore(db, locks), directory.Roles{Store: store})
	urls := directory.URLs{Public: "http://gw.test", App: "http://gw.test/app"}
	svc := directory.New(store, tokens, urls, apitest.Secret)
	store.OnWrite(svc.Forget) // as identity.go wires it
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.Discard(), "identity")
	directoryhttp.Register(e, svc, signer)
	invitehttp.Register(e, invite.New(invitemongo.NewStore(db, locks), svc, urls), signer)
	samlhttp.Register(e, saml.New(samlmongo.NewStore(db, locks), svc, urls), signer)
	tokenhttp.Register(e, tokens, signer)
	return &env{t: t, db: db, svc: svc, tokens: tokens, api: apitest.New(t, e, signer)}
}

// seed creates a user with the role in org ("" creates an organization) and
// returns the organization id, the user id and the raw token.
func (e *env) seed(org, email string, role roles.Role) (string, string, string) {
	e.t.Helper()
	r, err := e.svc.Bootstrap(context.Background(), directory.BootstrapInput{
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
