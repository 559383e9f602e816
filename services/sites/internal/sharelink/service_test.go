package sharelink_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/sharelink"
	"github.com/docspub/platform/services/sites/internal/sharelinkmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// siteAccess is the test's SiteAccess: fixed sites by organization, each
// caller's level being their organization role.
type siteAccess map[string]string // site id → organization

func (s siteAccess) Enter(_ context.Context, c access.Caller, org, id string, a access.Action) (site.Grant, error) {
	siteOrg, ok := s[id]
	role, member := c.Role(org)
	if !ok || siteOrg != org || !member || !access.Allows(role, access.View) {
		return site.Grant{}, apierr.NotFound("site not found")
	}
	g := site.Grant{Organization: org, Site: id, User: c.UserID, Level: role}
	if !g.Can(a) {
		return site.Grant{}, apierr.Forbidden("not allowed")
	}
	return g, nil
}

var sites = siteAccess{"s1": "o1", "s2": "o1", "s3": "o2"}

var (
	admin   = access.Caller{UserID: "admin", Roles: map[string]string{"o1": "admin"}}
	creator = access.Caller{UserID: "creator", Roles: map[string]string{"o1": "create"}}
	other   = access.Caller{UserID: "other", Roles: map[string]string{"o2": "admin"}}
)

var at = time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)

func newService(t *testing.T) (*sharelink.Service, *mongo.Database) {
	t.Helper()
	db := mongotest.Database(t)
	if err := sharelinkmongo.EnsureIndexes(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	store := sharelinkmongo.NewStore(mongox.NewDB(db), nil)
	return sharelink.New(store, sites, sharelink.URLs{Published: "https://sites.test"}, func() time.Time { return at }), db
}

// create makes a link of site in o1 as the admin and returns it with its key.
func create(t *testing.T, svc *sharelink.Service, site, name string) (sharelink.View, string) {
	t.Helper()
	v, err := svc.Create(context.Background(), admin, "o1", site, sharelink.NewLink{Name: nullable.Of(name)})
	if err != nil {
		t.Fatalf("create a link of %s: %v", site, err)
	}
	_, key, ok := strings.Cut(v.URLs.Published, "?shareKey=")
	if !ok || len(key) != sharelink.KeyLength {
		t.Fatalf("urls.published %q carries no key", v.URLs.Published)
	}
	return v, key
}

// stored reads a link as stored, tombstones included.
type stored struct {
	sharelink.Link `bson:",inline"`
	kafkax.Pending `bson:",inline"`
}

func raw(t *testing.T, db *mongo.Database, id string) stored {
	t.Helper()
	var d stored
	if err := db.Collection(sharelinkmongo.Links).FindOne(context.Background(), bson.M{"_id": id}).Decode(&d); err != nil {
		t.Fatalf("read %s as stored: %v", id, err)
	}
	return d
}

func TestActive(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	_, live := create(t, svc, "s1", "live")
	_, otherSite := create(t, svc, "s2", "other site")
	off, offKey := create(t, svc, "s1", "deactivated")
	gone, goneKey := create(t, svc, "s1", "deleted")
	if _, err := svc.Update(ctx, admin, "o1", "s1", off.ID, sharelink.Patch{Active: nullable.Of(false)}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, admin, "o1", "s1", gone.ID); err != nil {
		t.Fatal(err)
	}
	flipped := []byte(live)
	flipped[0] ^= 1

	for _, tc := range []struct {
		name string
		site string
		key  string
		want bool
	}{
		{"live key", "s1", live, true},
		{"wrong key", "s1", sharelink.NewKey(), false},
		{"one character changed", "s1", string(flipped), false},
		{"key prefix", "s1", live[:len(live)-1], false},
		{"empty key", "s1", "", false},
		{"other site's key", "s1", otherSite, false},
		{"key on another site", "s2", live, false},
		{"other site's key on its site", "s2", otherSite, true},
		{"deactivated", "s1", offKey, false},
		{"deleted", "s1", goneKey, false},
		{"the hash as key", "s1", sharelink.HashKey(live), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := svc.Active(ctx, tc.site, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("Active(%s, %q) = %v, want %v", tc.site, tc.key, got, tc.want)
			}
		})
	}
}

func TestActiveFollowsChangesAtOnce(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	v, key := create(t, svc, "s1", "n")
	for i, step := range []struct {
		active bool
		delete bool
		want   bool
	}{
		{active: false, want: false},
		{active: true, want: true},
		{active: false, want: false},
		{active: true, want: true},
		{delete: true, want: false},
	} {
		var err error
		if step.delete {
			err = svc.Delete(ctx, admin, "o1", "s1", v.ID)
		} else {
			_, err = svc.Update(ctx, admin, "o1", "s1", v.ID, sharelink.Patch{Active: nullable.Of(step.active)})
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if got, err := svc.Active(ctx, "s1", key); err != nil || got != step.want {
			t.Fatalf("step %d: Active = %v, %v; want %v", i, got, err, step.want)
		}
	}
	// Revoked for good: the link cannot be reactivated.
	_, err := svc.Update(ctx, admin, "o1", "s1", v.ID, sharelink.Patch{Active: nullable.Of(true)})
	if !errors.Is(err, apierr.ErrNotFound) {
		t.Fatalf("reactivate a deleted link: %v, want not found", err)
	}
	if got, _ := svc.Active(ctx, "s1", key); got {
		t.Error("a deleted link's key opens its site again")
	}
}

func TestOnlyManagersSeeShareLinks(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	v, _ := create(t, svc, "s1", "n")
	ops := map[string]func(c access.Caller, org, site string) error{
		"list": func(c access.Caller, org, site string) error {
			_, _, err := svc.List(ctx, c, org, site, sharelink.Page{})
			return err
		},
		"create": func(c access.Caller, org, site string) error {
			_, err := svc.Create(ctx, c, org, site, sharelink.NewLink{Name: nullable.Of("x")})
			return err
		},
		"update": func(c access.Caller, org, site string) error {
			_, err := svc.Update(ctx, c, org, site, v.ID, sharelink.Patch{Active: nullable.Of(false)})
			return err
		},
		"delete": func(c access.Caller, org, site string) error {
			return svc.Delete(ctx, c, org, site, v.ID)
		},
	}
	all := []string{"list", "create", "update", "delete"}
	for _, tc := range []struct {
		name   string
		caller access.Caller
		org    string
		site   string
		ops    []string
		want   error
	}{
		{"member without manage", creator, "o1", "s1", all, apierr.ErrForbidden},
		{"admin of another organization", other, "o1", "s1", all, apierr.ErrNotFound},
		{"site of another organization", other, "o2", "s1", all, apierr.ErrNotFound},
		{"unknown site", admin, "o1", "nope", all, apierr.ErrNotFound},
		{"link of another site", admin, "o1", "s2", []string{"update", "delete"}, apierr.ErrNotFound},
	} {
		for _, op := range tc.ops {
			t.Run(tc.name+"/"+op, func(t *testing.T) {
				if err := ops[op](tc.caller, tc.org, tc.site); !errors.Is(err, tc.want) {
					t.Errorf("err = %v, want %v", err, tc.want)
				}
			})
		}
	}
	got, n, err := svc.List(ctx, admin, "o1", "s1", sharelink.Page{})
	if err != nil || n != 1 || len(got) != 1 || !got[0].Active {
		t.Errorf("after refused requests: %+v, %d, %v; want the one active link", got, n, err)
	}
}

func TestEventsNeverCarryTheKey(t *testing.T) {
	ctx := context.Background()
	svc, db := newService(t)
	v, key := create(t, svc, "s1", "n")
	if _, err := svc.Update(ctx, admin, "o1", "s1", v.ID, sharelink.Patch{Name: nullable.Of("renamed")}); err != nil {
		t.Fatal(err)
	}
	// An update that changes nothing records no event.
	if _, err := svc.Update(ctx, admin, "o1", "s1", v.ID, sharelink.Patch{Name: nullable.Of("renamed")}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Delete(ctx, admin, "o1", "s1", v.ID); err != nil {
		t.Fatal(err)
	}
	d := raw(t, db, v.ID)
	if !d.Tombstone || d.Key != "" || d.KeyHash == sharelink.HashKey(key) || d.Active {
		t.Errorf("deleted link stored as %+v, want a tombstone without its key", d.Link)
	}
	var types []string
	for _, ev := range d.Outbox {
		types = append(types, ev.Type)
		if strings.Contains(string(ev.Data), key) || strings.Contains(string(ev.Data), "published") {
			t.Errorf("%s data %s carries the key", ev.Type, ev.Data)
		}
		if ev.Organization != "o1" || ev.Subject != v.ID {
			t.Errorf("%s envelope organization %q subject %q", ev.Type, ev.Organization, ev.Subject)
		}
	}
	if diff := cmp.Diff([]string{sitesapi.ShareLinkCreated, sitesapi.ShareLinkUpdated, sitesapi.ShareLinkDeleted}, types); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if want := `"name":"renamed"`; !strings.Contains(string(d.Outbox[1].Data), want) {
		t.Errorf("updated event data %s lacks %s", d.Outbox[1].Data, want)
	}
}

// TestShareLinkBoundHoldsUnderConcurrentCreates: with one free place left,
// creations racing each other never leave the site over its bound (the
// count is read before the insert; each creation counts again after it).
func TestShareLinkBoundHoldsUnderConcurrentCreates(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	for i := range limits.ShareLinksPerSite - 1 {
		create(t, svc, "s1", fmt.Sprint("link ", i))
	}
	const racers = 8
	var wg sync.WaitGroup
	var made atomic.Int32
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := svc.Create(ctx, admin, "o1", "s1", sharelink.NewLink{Name: nullable.Of(fmt.Sprint("racer ", i))})
			if err == nil {
				made.Add(1)
			} else if apierr.ToBody(err).Error.Code != 400 {
				t.Errorf("racer %d: %v, want a 400 when refused", i, err)
			}
		}()
	}
	wg.Wait()
	_, n, err := svc.List(ctx, admin, "o1", "s1", sharelink.Page{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n > limits.ShareLinksPerSite || int(made.Load()) != n-(limits.ShareLinksPerSite-1) {
		t.Fatalf("%d links (bound %d), %d creations answered 201", n, limits.ShareLinksPerSite, made.Load())
	}
}
