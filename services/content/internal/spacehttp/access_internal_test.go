package spacehttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/docspub/platform/services/content/internal/spacehttp"
	"github.com/docspub/platform/services/content/internal/spacemongo"
	"github.com/google/go-cmp/cmp"
)

// internalAPI serves content's internal routes over e's service.
func (e *env) internalAPI() *apitest.Client {
	e.t.Helper()
	signer := apitest.Signer(e.t)
	eng := httpx.NewEngine(logx.Discard(), "content")
	spacehttp.RegisterInternal(eng.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireUser), e.svc)
	return apitest.New(e.t, eng, signer)
}

type accessAnswer struct {
	Spaces map[string]*struct {
		Organization string `json:"organization"`
		Level        string `json:"level"`
		Deleted      bool   `json:"deleted"`
	} `json:"spaces"`
}

// TestSpacesAccess: the internal access answer follows content's own rules
// for every kind of space a caller may or may not view.
func TestSpacesAccess(t *testing.T) {
	e := newEnv(t)
	api := e.internalAPI()
	admin := e.member("ada", "org1", roles.Admin)
	e.member("ada", "org2", roles.Admin)
	admin.roles["org2"] = "admin"
	reader := e.member("rex", "org1", roles.Read)
	editor := e.member("eli", "org1", roles.Edit)
	outsider := e.member("oz", "org2", roles.Admin)

	open := e.createSpace(admin, "org1", `{"title":"Open"}`)
	closed := e.createSpace(admin, "org1", `{"title":"Closed"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+closed.ID, `{"defaultLevel":null}`, "", 200)
	capped := e.createSpace(admin, "org1", `{"title":"Capped"}`)
	e.ok(admin, "PATCH", "/v1/spaces/"+capped.ID, `{"defaultLevel":"comment"}`, "", 200)
	col := e.createCollection(admin, "org1", `{"title":"Private"}`)
	e.ok(admin, "PATCH", "/v1/collections/"+col.ID, `{"defaultLevel":null}`, "", 200)
	inCol := e.createSpace(admin, "org1", `{"title":"Inside","parent":"`+col.ID+`"}`)
	gone := e.createSpace(admin, "org1", `{"title":"Gone"}`)
	e.ok(admin, "DELETE", "/v1/spaces/"+gone.ID, "", "", 205)
	moved := e.createSpace(admin, "org1", `{"title":"Moved"}`)
	e.ok(admin, "POST", "/v1/spaces/"+moved.ID+"/transfer", `{"organization":"org2"}`, "", 200)

	ask := []string{open.ID, closed.ID, capped.ID, inCol.ID, gone.ID, moved.ID, "no-such-space"}
	body := `{"spaces":["` + strings.Join(ask, `","`) + `"]}`
	type want struct{ org, level string }
	for _, tc := range []struct {
		name   string
		caller user
		want   map[string]*want // absent: null
	}{
		{"admin sees all, deleted and transferred included", admin, map[string]*want{
			open.ID: {"org1", "admin"}, closed.ID: {"org1", "admin"}, capped.ID: {"org1", "admin"},
			inCol.ID: {"org1", "admin"}, gone.ID: {"org1", "admin"}, moved.ID: {"org2", "admin"}}},
		{"reader: defaultLevel null hides, inherited null hides", reader, map[string]*want{
			open.ID: {"org1", "read"}, capped.ID: {"org1", "read"}, gone.ID: {"org1", "read"}}},
		{"editor: a default level caps the role", editor, map[string]*want{
			open.ID: {"org1", "edit"}, capped.ID: {"org1", "comment"}, gone.ID: {"org1", "edit"}}},
		{"another organization's admin sees only what is in theirs", outsider, map[string]*want{
			moved.ID: {"org2", "admin"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := api.Do(tc.caller.principal(), "POST", "/internal/v1/spaces/access", body)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			got := apitest.Decode[accessAnswer](t, r.Body)
			if len(got.Spaces) != len(ask) {
				t.Errorf("answer has %d entries, want one per asked space (%d): %s", len(got.Spaces), len(ask), r.Body)
			}
			for _, id := range ask {
				a, w := got.Spaces[id], tc.want[id]
				switch {
				case w == nil && a != nil:
					t.Errorf("space %s: %+v, want null", id, *a)
				case w != nil && a == nil:
					t.Errorf("space %s: null, want %+v", id, *w)
				case w != nil && (a.Organization != w.org || a.Level != w.level || a.Deleted != (id == gone.ID)):
					t.Errorf("space %s: %+v, want %+v deleted=%v", id, *a, *w, id == gone.ID)
				}
			}
		})
	}
}

func TestSpacesAccessBounds(t *testing.T) {
	e := newEnv(t)
	api := e.internalAPI()
	admin := e.member("ada", "org1", roles.Admin)
	many := make([]string, spacehttp.MaxAccessSpaces+1)
	for i := range many {
		many[i] = fmt.Sprintf("s%d", i)
	}
	tooMany, _ := json.Marshal(map[string]any{"spaces": many})
	for _, tc := range []struct {
		name, body string
		status     int
		msg        string
	}{
		{"no spaces", `{}`, 400, "spaces: is required"},
		{"too many spaces", string(tooMany), 400, "spaces: must have at most 1000 items"},
		{"an empty id", `{"spaces":["a",""]}`, 400, "spaces[1]:"},
		{"an id too long", `{"spaces":["` + strings.Repeat("x", spacehttp.MaxAccessID+1) + `"]}`, 400, "spaces[0]:"},
		{"a body too large", `{"spaces":["` + strings.Repeat("x", 200_000) + `"]}`, 413, ""},
		{"none asked", `{"spaces":[]}`, 200, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := api.Do(admin.principal(), "POST", "/internal/v1/spaces/access", tc.body)
			if r.Status != tc.status || !strings.Contains(string(r.Body), tc.msg) {
				t.Errorf("status %d %s, want %d naming %q", r.Status, r.Body, tc.status, tc.msg)
			}
		})
	}
	if r := api.Anonymous("POST", "/internal/v1/spaces/access", `{"spaces":[]}`); r.Status != 401 {
		t.Errorf("without an internal token: %d %s", r.Status, r.Body)
	}
	got := apitest.Decode[map[string]any](t, api.Do(admin.principal(), "POST", "/internal/v1/spaces/access", `{"spaces":[]}`).Body)
	if diff := cmp.Diff(got, map[string]any{"spaces": map[string]any{}}); diff != "" {
		t.Errorf("empty answer (-got +want):\n%s", diff)
	}
}

// BenchmarkSpacesAccess asks about n spaces of one organization in one
// question, as sites does for a site of n spaces, and reports the median
// per question and per space.
//
//	go test -run '^$' -bench SpacesAccess -benchtime 50x ./services/content/internal/spacehttp/
func BenchmarkSpacesAccess(b *testing.B) {
	for _, n := range []int{1, 20, 100} {
		b.Run(fmt.Sprintf("spaces=%d", n), func(b *testing.B) {
			ctx := context.Background()
			db := mongotest.Database(b)
			if err := mongox.EnsureIndexes(ctx, db, spacemongo.Indexes()...); err != nil {
				b.Fatal(err)
			}
			urls := links.New("http://gw.test", "http://gw.test/app")
			svc := space.New(space.Deps{Store: spacemongo.NewStore(mongox.NewDB(db), nil), People: peoplemongo.NewStore(db, urls), URLs: urls})
			signer := apitest.Signer(b)
			eng := httpx.NewEngine(logx.Discard(), "content")
			spacehttp.RegisterInternal(eng.Group("/internal/v1", internaltoken.Require(signer), internaltoken.RequireUser), svc)
			api := apitest.New(b, eng, signer)
			admin := access.Caller{UserID: "ada", Roles: map[string]string{"org1": "admin"}}
			ids := make([]string, n)
			for i := range ids {
				title := fmt.Sprintf("Space %d", i)
				v, err := svc.CreateSpace(ctx, admin, "org1", space.CreateSpaceInput{Title: &title})
				if err != nil {
					b.Fatal(err)
				}
				ids[i] = v.ID
			}
			body, _ := json.Marshal(map[string]any{"spaces": ids})
			reader := internaltoken.Principal{UserID: "rex", Roles: map[string]string{"org1": "read"}}
			took := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for range b.N {
				start := time.Now()
				r := api.Do(reader, "POST", "/internal/v1/spaces/access", string(body))
				took = append(took, time.Since(start))
				if r.Status != 200 {
					b.Fatalf("status %d: %s", r.Status, r.Body)
				}
			}
			b.StopTimer()
			slices.Sort(took)
			p50 := took[len(took)/2]
			b.ReportMetric(float64(p50.Microseconds()), "p50-µs")
			b.ReportMetric(float64(p50.Microseconds())/float64(n), "p50-µs/space")
		})
	}
}
