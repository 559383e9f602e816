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

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/contentclient"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/docspub/platform/services/sites/internal/sitecontentclient"
	"github.com/docspub/platform/services/sites/internal/sitehttp"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"github.com/docspub/platform/services/sites/internal/spaceviewmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// content stands in for the content service over HTTP: GET /v1/spaces/{id}
// answers the spaces it knows (for a caller with a valid internal token)
// and 404 otherwise; POST /internal/v1/spaces/access answers, for each
// known space, the caller's role in its organization as their level, null
// for a space of an organization they are not in or hidden from them.
// (The real content service answers these in deployments/local's tests.)
type content struct {
	mu     sync.Mutex
	spaces map[string]string          // id → Space JSON
	hidden map[string]map[string]bool // space id → users content refuses it to
	asked  int                        // access questions answered
	down   bool                       // answer 503 to everything
}

// hide makes content refuse a space to a user (as defaultLevel null does).
func (c *content) hide(id, user string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hidden[id] == nil {
		c.hidden[id] = map[string]bool{}
	}
	c.hidden[id][user] = true
}

func (c *content) setDown(down bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.down = down
}

func (c *content) questions() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.asked
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
		p, err := verify.Verify(r.Header.Get(internaltoken.Header))
		if err != nil {
			http.Error(w, `{"error":{"code":401,"message":"unauthorized"}}`, http.StatusUnauthorized)
			return
		}
		c.mu.Lock()
		down := c.down
		c.mu.Unlock()
		if down {
			http.Error(w, `{"error":{"code":503,"message":"down"}}`, http.StatusServiceUnavailable)
			return
		}
		if r.Method == http.MethodPost && r.URL.Path == "/internal/v1/spaces/access" {
			c.access(w, r, p)
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

func (c *content) access(w http.ResponseWriter, r *http.Request, p internaltoken.Principal) {
	var q struct {
		Spaces []string `json:"spaces"`
	}
	if err := json.NewDecoder(r.Body).Decode(&q); err != nil {
		http.Error(w, `{"error":{"code":400,"message":"bad"}}`, http.StatusBadRequest)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.asked++
	out := map[string]any{}
	for _, id := range q.Spaces {
		out[id] = nil
		var sp struct {
			Organization string  `json:"organization"`
			DeletedAt    *string `json:"deletedAt"`
		}
		body, ok := c.spaces[id]
		if !ok || json.Unmarshal([]byte(body), &sp) != nil || c.hidden[id][p.UserID] {
			continue
		}
		if role := p.Roles[sp.Organization]; role != "" {
			out[id] = map[string]any{"organization": sp.Organization, "level": role, "deleted": sp.DeletedAt != nil}
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"spaces": out})
}

// shareKeys is the share links of the test: site id → active keys.
type shareKeys map[string]map[string]bool

func (k shareKeys) Active(_ context.Context, siteID, key string) (bool, error) {
	return k[siteID][key], nil
}

// sections stands in for the sections part: when set for a site, the site has sections.
type sections map[string][]any

func (s sections) Structure(_ context.Context, g site.Grant, _ site.SiteSpaceLister) ([]any, bool, error) {
	items, ok := s[g.Site]
	return items, ok, nil
}

func (s sections) Has(context.Context, site.Grant, string) (bool, error) { return false, nil }

func (s sections) Prefixes(context.Context, string) (map[string]string, error) {
	return map[string]string{}, nil
}

func (s sections) DefaultSection(context.Context, string) (string, error) { return "", nil }

func (s sections) SetDefault(context.Context, site.Grant, site.SiteSpaceLister, string) error {
	return apierr.Invalid("defaultSiteSection", "is not a section of this site")
}

// env is the real engine over the real store on a fresh database.
type env struct {
	t       *testing.T
	api     *apitest.Client
	svc     *site.Service
	spaces  *spaceviewmongo.Store
	content *content
	keys    shareKeys
	// sections are the sections of published views, by site.
	sections sections
	db       *mongo.Database
	changes  *reader.Changes // the reader's generations, which the store's writes bump
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	ctx := context.Background()
	if err := mongox.EnsureIndexes(ctx, db, append(sitemongo.Indexes(), spaceviewmongo.Indexes()...)...); err != nil {
		t.Fatal(err)
	}
	signer := apitest.Signer(t)
	// content accepts only tokens minted for content.
	contentSigner, err := internaltoken.NewSigner(contentclient.Service, apitest.Secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	cs := &content{spaces: map[string]string{}, hidden: map[string]map[string]bool{}}
	srv := httptest.NewServer(cs.handler(contentSigner))
	t.Cleanup(srv.Close)
	mdb := mongox.NewDB(db)
	spaces := spaceviewmongo.NewStore(mdb)
	changes := reader.NewChanges()
	siteStore := sitemongo.NewStore(mdb, func(evs []kafkax.Event) { changes.Invalidate(evs...) })
	client := contentclient.New(discovery.Static{"content": srv.URL}, signer)
	keys, secs := shareKeys{}, sections{}
	// The reader decides what visitors of the published view see.
	rd, err := reader.New(reader.Deps{Sites: siteStore, Sections: sectionmongo.NewStore(mdb, nil), Spaces: spaces,
		ShareKeys: keys, Content: client, Changes: changes, PublishedURL: "http://gw.test/sites"})
	if err != nil {
		t.Fatal(err)
	}
	svc := site.New(site.Deps{Store: siteStore, Spaces: spaces, Content: sitecontentclient.New(client),
		URLs:     site.URLs{Public: "http://gw.test/", App: "http://app.test", Published: "http://gw.test/sites"},
		Sections: secs, ShareKeys: keys, Visitors: rd})
	e := httpx.NewEngine(logx.ForTest(t), "sites")
	sitehttp.Register(e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
	sitehttp.RegisterInternal(e.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireService(sitesapi.Insights)), svc)
	return &env{t: t, api: apitest.New(t, e, signer), svc: svc, spaces: spaces, content: cs, keys: keys, sections: secs, db: db, changes: changes}
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

// putSpace changes a space in content and writes its view into the
// projection, as content's event would, newer than any view before.
func (e *env) putSpace(id, org, title string, deleted bool) {
	e.t.Helper()
	body := spaceJSON(id, org, title, deleted)
	e.content.mu.Lock()
	e.content.spaces[id] = body
	e.content.mu.Unlock()
	var v map[string]any
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		e.t.Fatal(err)
	}
	delete(v, "permissions")
	v["updatedAt"] = time.Now().Add(time.Minute).UTC().Format(time.RFC3339Nano)
	raw, _ := json.Marshal(v)
	if err := e.spaces.Put(context.Background(), raw, deleted, time.Time{}); err != nil {
		e.t.Fatal(err)
	}
	e.changes.SpaceChanged(id) // as the service's consumer of content's events does
}
