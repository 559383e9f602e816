package directoryhttp_test

import (
	"context"
	"encoding/json"
	"github.com/docspub/platform/libs/mongox"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/directory"
	"github.com/docspub/platform/services/identity/internal/directoryhttp"
	"github.com/docspub/platform/services/identity/internal/directorymongo"
	"github.com/gin-gonic/gin"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const secret = "0123456789abcdef0123456789abcdef-test"

// env is the real engine over real stores on a fresh database.
type env struct {
	t      *testing.T
	db     *mongo.Database
	svc    *directory.Service
	engine *gin.Engine
	signer *internaltoken.Signer
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	if err := directorymongo.EnsureIndexes(ctx, db); err != nil {
		t.Fatal(err)
	}
	svc := directory.New(directorymongo.NewStore(db, mongox.NewDocLocks()), directory.URLs{Public: "http://gw.test", App: "http://gw.test/app"}, secret)
	signer, err := internaltoken.NewSigner(secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	e := httpx.NewEngine(logx.Discard(), "identity")
	directoryhttp.Register(e, svc, signer)
	return &env{t: t, db: db, svc: svc, engine: e, signer: signer}
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

// call sends a request as the user (a principal with no user when user is "")
// and returns the status and body.
func (e *env) call(p internaltoken.Principal, method, path, body string) (int, []byte) {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	tok, err := e.signer.Mint(p)
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	w := httptest.NewRecorder()
	e.engine.ServeHTTP(w, req)
	return w.Code, w.Body.Bytes()
}

// as sends a request as a user.
func (e *env) as(user, method, path, body string) (int, []byte) {
	e.t.Helper()
	return e.call(internaltoken.Principal{UserID: user}, method, path, body)
}

// must sends a request as a user and fails unless the status is want.
func (e *env) must(want int, user, method, path, body string) []byte {
	e.t.Helper()
	got, b := e.as(user, method, path, body)
	if got != want {
		e.t.Fatalf("%s %s: status %d, want %d: %s", method, path, got, want, b)
	}
	return b
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

type list[T any] struct {
	Next *struct {
		Page string `json:"page"`
	} `json:"next"`
	Count int `json:"count"`
	Items []T `json:"items"`
}

type idOnly struct {
	ID string `json:"id"`
}

// row is one request of a table test with its expected status.
type row struct {
	name   string
	user   string
	method string
	path   string
	body   string
	want   int
	// field, when set, must appear in the error message (400s name the field).
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
			if r.field != "" && !strings.Contains(errorMessage(t, b), r.field) {
				t.Fatalf("error %s does not name %q", b, r.field)
			}
		})
	}
}
