package spacehttp_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacehttp"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// clock is a settable clock.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// env is the real engine over the real store on a fresh database.
type env struct {
	t      *testing.T
	db     *mongo.Database
	svc    *space.Service
	api    *apitest.Client
	people *peoplemongo.Store
	clock  *clock
}

func newEnv(t *testing.T) *env {
	t.Helper()
	return newEnvWith(t, func(s *spacemongo.Store) space.Store { return s })
}

// newEnvWith is newEnv with the service's store the real one as wrap
// returns it.
func newEnvWith(t *testing.T, wrap func(*spacemongo.Store) space.Store) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	if err := mongox.EnsureIndexes(ctx, db, spacemongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	urls := links.New("http://gw.test", "http://gw.test/app")
	people := peoplemongo.NewStore(db, urls)
	clk := &clock{t: time.Now()}
	svc := space.New(space.Deps{Store: wrap(spacemongo.NewStore(mongox.NewDB(db), nil)), People: people, URLs: urls, Now: clk.now})
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "content")
	spacehttp.Register(e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
	return &env{t: t, db: db, svc: svc, api: apitest.New(t, e, signer), people: people, clock: clk}
}

// user is a caller: a user id and their organization roles.
type user struct {
	id    string
	roles map[string]string
}

// member records a user's membership in the people projection and returns the caller.
func (e *env) member(id string, org string, role roles.Role) user {
	e.t.Helper()
	if err := e.people.Put(context.Background(), org, id, strings.ToUpper(id[:1])+id[1:], id+"@acme.test", role); err != nil {
		e.t.Fatal(err)
	}
	return user{id: id, roles: map[string]string{org: string(role)}}
}

func (u user) principal() internaltoken.Principal {
	return internaltoken.Principal{UserID: u.id, Roles: u.roles}
}

// do sends a request as the caller.
func (e *env) do(u user, method, path, body string) apitest.Response {
	e.t.Helper()
	return e.api.Do(u.principal(), method, path, body)
}

// ok calls and checks the status and, for bodies, the contract of the operation.
func (e *env) ok(u user, method, path, body, op string, status int) apitest.Response {
	e.t.Helper()
	return e.api.Expect(e.t, u.principal(), method, path, body, status, op)
}

type spaceBody struct {
	ID           string  `json:"id"`
	Title        string  `json:"title"`
	Parent       string  `json:"parent"`
	DeletedAt    *string `json:"deletedAt"`
	Organization string  `json:"organization"`
	Visibility   string  `json:"visibility"`
	DefaultLevel *string `json:"defaultLevel"`
	EditMode     string  `json:"editMode"`
	// GitBookSpaceID is the GitBook space it was migrated from.
	GitBookSpaceID string `json:"gitbookSpaceId"`
	Permissions    struct {
		Admin bool `json:"admin"`
		Edit  bool `json:"edit"`
		View  bool `json:"view"`
	} `json:"permissions"`
}

func (e *env) createSpace(u user, org, body string) spaceBody {
	e.t.Helper()
	var sp spaceBody
	e.ok(u, "POST", "/v1/orgs/"+org+"/spaces", body, "", 201).Decode(e.t, &sp)
	contracttest.Validate(e.t, "Space", mustJSON(e.t, sp, e.do(u, "GET", "/v1/spaces/"+sp.ID, "")))
	return sp
}

func mustJSON(t *testing.T, _ spaceBody, r apitest.Response) []byte {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("get: %d %s", r.Status, r.Body)
	}
	return r.Body
}

type collectionBody struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	Parent       string `json:"parent"`
	Organization string `json:"organization"`
}

func (e *env) createCollection(u user, org, body string) collectionBody {
	e.t.Helper()
	var c collectionBody
	e.ok(u, "POST", "/v1/orgs/"+org+"/collections", body, "createCollection", 201).Decode(e.t, &c)
	return c
}

// ids lists the ids of a list's items.
func ids[T any](items []T, id func(T) string) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, id(it))
	}
	return out
}

// listOrgSpaces validates ORG/spaces lists: the operation comes from the
// public spec, not the contract, and answers what listSpacesInCollectionById does.
const listOrgSpaces = "listSpacesInCollectionById"
