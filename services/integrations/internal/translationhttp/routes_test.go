package translationhttp_test

import (
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/integrations/internal/translation"
	"github.com/docspub/platform/services/integrations/internal/translationhttp"
	"github.com/docspub/platform/services/integrations/internal/translationmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var callers = map[string]map[string]string{
	"admin":   {"o1": "admin"},
	"creator": {"o1": "create"},
	"reader":  {"o1": "read"},
	"other":   {"o2": "admin"},
}

func as(user string) internaltoken.Principal {
	return internaltoken.Principal{UserID: user, Roles: callers[user]}
}

// checkShape checks a translation-settings body (the contract row is
// seed-only: api.md's shape, which the public spec does not have).
func checkShape(t *testing.T, b []byte) map[string]any {
	t.Helper()
	v := apitest.Decode[map[string]any](t, b)
	if v["object"] != "translation-settings" {
		t.Fatalf("object %v", v["object"])
	}
	for _, f := range []string{"id", "title", "languages", "createdAt", "updatedAt", "permissions", "urls"} {
		if v[f] == nil {
			t.Fatalf("no %s in %s", f, b)
		}
	}
	if loc, _ := v["urls"].(map[string]any)["location"].(string); !strings.HasPrefix(loc, "https://api.test/v1/orgs/o1/translations/") {
		t.Fatalf("urls.location %q", loc)
	}
	return v
}

func TestTranslationSettings(t *testing.T) {
	db := mongotest.DB(t)
	if err := mongox.EnsureIndexes(t.Context(), db.Database, translationmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	svc := translation.New(translationmongo.NewStore(db, nil), "https://api.test", time.Now)
	signer := apitest.Signer(t)
	e := httpx.NewEngine(logx.ForTest(t), "integrations")
	translationhttp.Register(e.Group("/v1", internaltoken.Require(signer)), svc)
	api := apitest.New(t, e, signer)
	const base = "/v1/orgs/o1/translations"

	created := checkShape(t, api.Expect(t, as("admin"), "POST", base, `{"title":"French","languages":["fr","de"]}`, 201, "createTranslation").Body)
	id := created["id"].(string)
	api.Expect(t, as("admin"), "POST", base, `{"title":"Second"}`, 201, "")
	got := checkShape(t, api.Expect(t, as("reader"), "GET", base+"/"+id, "", 200, "getTranslation").Body)
	if p := got["permissions"].(map[string]any); p["view"] != true || p["edit"] != false {
		t.Fatalf("reader permissions %v", p)
	}
	put := checkShape(t, api.Expect(t, as("admin"), "PUT", base+"/"+id, `{"title":"Français"}`, 200, "updateTranslation").Body)
	if put["title"] != "Français" || len(put["languages"].([]any)) != 2 {
		t.Fatalf("after PUT: %v", put)
	}
	page := apitest.Decode[map[string]any](t, api.Expect(t, as("reader"), "GET", base+"?limit=1", "", 200, "listTranslations").Body)
	if page["count"].(float64) != 2 || page["next"] == nil || len(page["items"].([]any)) != 1 {
		t.Fatalf("first page %v", page)
	}
	next := page["next"].(map[string]any)["page"].(string)
	page = apitest.Decode[map[string]any](t, api.Expect(t, as("reader"), "GET", base+"?limit=1&page="+next, "", 200, "").Body)
	if page["next"] != nil || len(page["items"].([]any)) != 1 {
		t.Fatalf("second page %v", page)
	}

	long := strings.Repeat("x", 101)
	api.Run(t, as, []apitest.Row{
		{Name: "other org reads", User: "other", Method: "GET", Path: base + "/" + id, Want: 404},
		{Name: "other org lists", User: "other", Method: "GET", Path: base, Want: 404},
		{Name: "other org's id in own org", User: "other", Method: "GET", Path: "/v1/orgs/o2/translations/" + id, Want: 404},
		{Name: "reader creates", User: "reader", Method: "POST", Path: base, Body: `{"title":"X"}`, Want: 403},
		{Name: "creator replaces", User: "creator", Method: "PUT", Path: base + "/" + id, Body: `{"title":"X"}`, Want: 403},
		{Name: "reader deletes", User: "reader", Method: "DELETE", Path: base + "/" + id, Want: 403},
		{Name: "no title", User: "admin", Method: "POST", Path: base, Body: `{}`, Want: 400, Field: "title:"},
		{Name: "empty title", User: "admin", Method: "POST", Path: base, Body: `{"title":""}`, Want: 400, Field: "title:"},
		{Name: "long title", User: "admin", Method: "PUT", Path: base + "/" + id, Body: `{"title":"` + long + `"}`, Want: 400, Field: "title:"},
		{Name: "control character", User: "admin", Method: "POST", Path: base, Body: `{"title":"a\u0000b"}`, Want: 400, Field: "title:"},
		{Name: "unknown language", User: "admin", Method: "POST", Path: base, Body: `{"title":"a","languages":["xx"]}`, Want: 400, Field: "languages[0]:"},
		{Name: "language twice", User: "admin", Method: "POST", Path: base, Body: `{"title":"a","languages":["fr","fr"]}`, Want: 400, Field: "languages[1]:"},
		{Name: "bad page", User: "admin", Method: "GET", Path: base + "?page=zzz", Want: 400, Field: "page:"},
		{Name: "bad limit", User: "admin", Method: "GET", Path: base + "?limit=1001", Want: 400, Field: "limit:"},
		{Name: "missing", User: "admin", Method: "GET", Path: base + "/nope", Want: 404},
	})
	api.Expect(t, as("admin"), "DELETE", base+"/"+id, "", 205, "deleteTranslation")
	api.Expect(t, as("admin"), "GET", base+"/"+id, "", 404, "")
}
