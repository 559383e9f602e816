package customfieldhttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
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
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const secret = "0123456789abcdef0123456789abcdef-test"

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
	t      *testing.T
	db     *mongo.Database
	svc    *customfield.Service
	engine *gin.Engine
	signer *internaltoken.Signer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	if err := customfieldmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	svc := customfield.New(customfieldmongo.NewStore(db, mongox.NewDocLocks()), links.New("http://gw.test", "http://app.test"))
	signer, err := internaltoken.NewSigner(secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	e := httpx.NewEngine(logx.Discard(), "content")
	customfieldhttp.Register(e.Group("/v1", internaltoken.Require(signer)), svc, spaces)
	return &env{t: t, db: db, svc: svc, engine: e, signer: signer}
}

// as sends a request as the caller and returns the status and body.
func (e *env) as(user, method, path, body string) (int, []byte) {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	tok, err := e.signer.Mint(internaltoken.Principal{UserID: user, Roles: callers[user]})
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	return w.Code, w.Body.Bytes()
}

// must sends a request and fails unless the status is want.
func (e *env) must(want int, user, method, path, body string) []byte {
	e.t.Helper()
	got, b := e.as(user, method, path, body)
	if got != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, want, b)
	}
	return b
}

// define creates a field in o1 as the admin.
func (e *env) define(body string) {
	e.t.Helper()
	e.must(201, "admin", "POST", "/v1/orgs/o1/custom-fields", body)
}

func decode[T any](t *testing.T, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// errorMessage returns error.message of an error body.
func errorMessage(t *testing.T, b []byte) string {
	t.Helper()
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == 0 {
		t.Fatalf("not an error body: %s", b)
	}
	return body.Error.Message
}

// row is one request of a table test with its expected status.
type row struct {
	name   string
	user   string
	method string
	path   string
	body   string
	want   int
	// field, when set, must start the error message (a 400 names the field).
	field string
}

func (e *env) run(rows []row) {
	e.t.Helper()
	for _, r := range rows {
		e.t.Run(r.name, func(t *testing.T) {
			got, b := e.as(r.user, r.method, r.path, r.body)
			if got != r.want {
				t.Fatalf("%s %s: status %d, want %d: %s", r.method, r.path, got, r.want, b)
			}
			if r.field != "" && !strings.HasPrefix(errorMessage(t, b), r.field+":") {
				t.Fatalf("error %s does not name %q", b, r.field)
			}
		})
	}
}
