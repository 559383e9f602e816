package sitehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitehttp"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/docspub/platform/services/sites/internal/spaceview"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// content stands in for the content service over HTTP: GET /v1/spaces/{id}
// answers the spaces it knows (for a caller with a valid internal token)
// and 404 otherwise.
type content struct {
	mu     sync.Mutex
	spaces map[string]string // id → Space JSON
}

func (c *content) add(id, org, title string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.spaces[id] = spaceJSON(id, org, title, false)
}

// spaceJSON is a Space as content answers it (with the caller's permissions).
func spaceJSON(id, org, title string, deleted bool) string {
	del := ""
	if deleted {
		del = `"deletedAt":"2025-01-02T00:00:00Z",`
	}
	return fmt.Sprintf(`{"object":"space","id":%q,"title":%q,"emoji":"","visibility":"private",
		"createdAt":"2025-01-01T00:00:00Z","updatedAt":"2025-01-01T00:00:00Z",%s"editMode":"live",
		"organization":%q,"revision":"r1","defaultLevel":"inherit","comments":0,"changeRequests":0,
		"changeRequestsOpen":0,"changeRequestsDraft":0,"mergeRules":{"type":"inherit"},
		"urls":{"location":"http://gw.test/v1/spaces/%s","app":"http://app.test/s/%s"},
		"permissions":{"view":true,"access":true,"admin":true,"viewInviteLinks":true,"edit":true,
		"triggerGitSync":true,"comment":true,"merge":true,"review":true,"installIntegration":true}}`,
		id, title, del, org, id, id)
}

func (c *content) handler(verify *internaltoken.Signer) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := verify.Verify(r.Header.Get(internaltoken.Header)); err != nil {
			http.Error(w, `{"error":{"code":401,"message":"unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		id, ok := strings.CutPrefix(r.URL.Path, "/v1/spaces/")
		c.mu.Lock()
		body, known := c.spaces[id]
		c.mu.Unlock()
		if r.Method != http.MethodGet || !ok || !known {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"message":"space not found"}}`))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	})
}

// shareKeys is the share links of the test: site id → active keys.
type shareKeys map[string]map[string]bool

func (k shareKeys) Active(_ context.Context, siteID, key string) (bool, error) {
	return k[siteID][key], nil
}

// sections stands in for the sections part: when set for a site, the site has sections.
type sections map[string][]any

func (s sections) Structure(_ context.Context, g site.Grant) ([]any, bool, error) {
	items, ok := s[g.Site]
	return items, ok, nil
}

// env is the real engine over the real store on a fresh database.
type env struct {
	t       *testing.T
	api     *apitest.Client
	svc     *site.Service
	spaces  *spaceview.Store
	content *content
	keys    shareKeys
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	if err := mongox.EnsureIndexes(ctx, db, append(sitemongo.Indexes(), spaceview.Indexes()...)...); err != nil {
		t.Fatal(err)
	}
	signer := apitest.Signer(t)
	// content accepts only tokens minted for content.
	contentSigner, err := internaltoken.NewSigner(contentclient.Service, apitest.Secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cs := &content{spaces: map[string]string{}}
	srv := httptest.NewServer(cs.handler(contentSigner))
	t.Cleanup(srv.Close)
	locks := mongox.NewDocLocks()
	spaces := spaceview.NewStore(db, locks)
	svc := site.New(sitemongo.NewStore(db, locks), spaces,
		contentclient.New(discovery.Static{"content": srv.URL}, signer),
		site.URLs{Public: "http://gw.test/", App: "http://app.test", Published: "http://gw.test/sites"}, nil)
	keys := shareKeys{}
	svc.SetShareKeys(keys)
	e := httpx.NewEngine(logx.Discard(), "sites")
	sitehttp.Register(e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
	return &env{t: t, api: apitest.New(t, e, signer), svc: svc, spaces: spaces, content: cs, keys: keys}
}

// Callers of the tests: members of org1 by role, a member of org2 only.
var users = map[string]map[string]string{
	"ada":   {"org1": "admin"},
	"cid":   {"org1": "create"},
	"rex":   {"org1": "read"},
	"eve":   {"org2": "admin"},
	"both":  {"org1": "admin", "org2": "admin"},
	"guest": {"org1": ""},
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: users[user]}
}

func (e *env) do(user, method, path, body string) apitest.Response {
	e.t.Helper()
	return e.api.Do(as(user), method, path, body)
}

// ok sends a request, checks the status and, with op, the contract.
func (e *env) ok(user, method, path, body string, status int, op string) apitest.Response {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, status, op)
}

type siteBody struct {
	ID              string `json:"id"`
	Title           string `json:"title"`
	Type            string `json:"type"`
	Visibility      string `json:"visibility"`
	Published       bool   `json:"published"`
	SiteSpaces      int    `json:"siteSpaces"`
	Basename        string `json:"basename"`
	AgentsContext   string `json:"agentsContext"`
	AdaptiveContent struct {
		Enabled bool `json:"enabled"`
	} `json:"adaptiveContent"`
	Proxy *struct {
		Origin string `json:"origin"`
		Target string `json:"target"`
	} `json:"proxy"`
	Permissions map[string]bool `json:"permissions"`
	URLs        struct {
		Location  string `json:"location"`
		App       string `json:"app"`
		Published string `json:"published"`
	} `json:"urls"`
}

type siteSpaceBody struct {
	ID      string `json:"id"`
	Path    string `json:"path"`
	Section string `json:"section"`
	Title   string `json:"title"`
	Default bool   `json:"default"`
	Hidden  bool   `json:"hidden"`
	Space   struct {
		ID          string          `json:"id"`
		Permissions map[string]bool `json:"permissions"`
	} `json:"space"`
}

func (e *env) createSite(user, org, body string) siteBody {
	e.t.Helper()
	return apitest.Decode[siteBody](e.t, e.ok(user, "POST", "/v1/orgs/"+org+"/sites", body, 201, "createSite").Body)
}

func sitePath(org, id string) string { return "/v1/orgs/" + org + "/sites/" + id }

// putSpace writes a space view straight into the projection, as a content event would.
func (e *env) putSpace(id, org, title string, deleted bool) {
	e.t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(spaceJSON(id, org, title, deleted)), &v); err != nil {
		e.t.Fatal(err)
	}
	delete(v, "permissions")
	raw, _ := json.Marshal(v)
	if err := e.spaces.Put(context.Background(), raw, deleted, time.Now().Add(time.Minute)); err != nil {
		e.t.Fatal(err)
	}
}
