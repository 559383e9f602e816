package sectionhttp_test

import (
	"context"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/section/sectiontest"
	"github.com/docspub/platform/services/sites/internal/sectionhttp"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const (
	sitePath  = "/v1/orgs/acme/sites/site1"
	otherPath = "/v1/orgs/other/sites/site3"
)

// users by name: their roles.
var users = map[string]map[string]string{
	"ann": {"acme": "admin"},
	"rob": {"acme": "read"},
	"oz":  {"other": "admin"},
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: users[user]}
}

// env is the real engine over the real store on a fresh database, with the
// site context stood in by sectiontest.
type env struct {
	t     *testing.T
	api   *apitest.Client
	sites *sectiontest.Sites
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, sectionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	sites := sectiontest.New()
	sites.AddSite("acme", "site1")
	sites.AddSite("other", "site3")
	sites.AddSpace("sp1", "Guides")
	sites.AddSpace("sp2", "API reference")
	svc := section.New(sectionmongo.NewStore(mongox.NewDB(db), nil), sites, time.Now)
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "sites")
	sectionhttp.Register(e.Group("/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
	return &env{t: t, api: apitest.New(t, e, signer), sites: sites}
}

// ok sends a request as user and checks the status and, with op, the body against the contract.
func (e *env) ok(user, method, path, body string, status int, op string) apitest.Response {
	e.t.Helper()
	return e.api.Expect(e.t, as(user), method, path, body, status, op)
}

type sectionBody struct {
	ID           string `json:"id"`
	Title        string `json:"title"`
	Path         string `json:"path"`
	Default      bool   `json:"default"`
	Condition    string `json:"condition"`
	Icon         string `json:"icon"`
	Description  string `json:"description"`
	SectionGroup string `json:"sectionGroup"`
	SiteSpaces   []struct {
		ID      string `json:"id"`
		Default bool   `json:"default"`
	} `json:"siteSpaces"`
	URLs struct {
		Published string `json:"published"`
	} `json:"urls"`
}

type groupBody struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Icon     string        `json:"icon"`
	Sections []sectionBody `json:"sections"`
}

type listBody[T any] struct {
	Next *struct {
		Page string `json:"page"`
	} `json:"next"`
	Count int `json:"count"`
	Items []T `json:"items"`
}

func (e *env) createSection(body string) sectionBody {
	e.t.Helper()
	return apitest.Decode[sectionBody](e.t, e.ok("ann", "POST", sitePath+"/sections", body, 201, "addSectionToSite").Body)
}

func titles(items []sectionBody) []string {
	out := []string{}
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out
}
