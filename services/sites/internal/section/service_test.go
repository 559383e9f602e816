package section_test

import (
	"context"
	"errors"
	"fmt"
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
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/section/sectiontest"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
	"github.com/docspub/platform/services/sites/internal/site"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const (
	org   = "acme"
	site1 = "site1"
	site2 = "site2"
)

var (
	admin    = access.Caller{UserID: "ann", Roles: map[string]string{org: "admin"}}
	reader   = access.Caller{UserID: "rob", Roles: map[string]string{org: "read"}}
	outsider = access.Caller{UserID: "oz", Roles: map[string]string{"other": "admin"}}
	grant1   = site.Grant{Organization: org, Site: site1, User: "ann", Level: "admin"}
)

type env struct {
	t     *testing.T
	ctx   context.Context
	db    *mongo.Database
	store *sectionmongo.Store
	sites *sectiontest.Sites
	svc   *section.Service
}

func newEnv(t *testing.T) *env {
	t.Helper()
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, sectionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	sites := sectiontest.New()
	sites.AddSite(org, site1)
	sites.AddSite(org, site2)
	sites.AddSite("other", "site3")
	sites.AddSpace("sp1", "Guides")
	sites.AddSpace("sp2", "API")
	store := sectionmongo.NewStore(mongox.NewDB(db), nil)
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var n atomic.Int64
	clock := func() time.Time { return base.Add(time.Duration(n.Add(1)) * time.Millisecond) }
	return &env{t: t, ctx: ctx, db: db, store: store, sites: sites, svc: section.New(store, sites, clock)}
}

func (e *env) create(siteID, title string) section.SectionView {
	e.t.Helper()
	v, err := e.svc.CreateSection(e.ctx, admin, org, siteID, section.CreateSectionInput{SpaceID: "sp1", Title: nullable.Of(title)})
	if err != nil {
		e.t.Fatalf("create section %q: %v", title, err)
	}
	return v
}

// order is the titles of the site's sections in structure order, groups as "[title: a b]".
func (e *env) order(siteID string) []string {
	e.t.Helper()
	items, _, err := e.svc.Structure(e.ctx, site.Grant{Organization: org, Site: siteID})
	if err != nil {
		e.t.Fatal(err)
	}
	out := []string{}
	for _, it := range items {
		switch v := it.(type) {
		case section.SectionView:
			out = append(out, v.Title)
		case section.GroupView:
			s := "[" + v.Title + ":"
			for _, sec := range v.Sections {
				s += " " + sec.Title
			}
			out = append(out, s+"]")
		default:
			e.t.Fatalf("structure item %T", it)
		}
	}
	return out
}

// listed is the titles of ListSections, one page of all.
func (e *env) listed(siteID string) []string {
	e.t.Helper()
	l, err := e.svc.ListSections(e.ctx, admin, org, siteID, section.Page{Limit: 100})
	if err != nil {
		e.t.Fatal(err)
	}
	out := []string{}
	for _, v := range l.Items {
		out = append(out, v.Title)
	}
	return out
}

func sec(id string) *section.Ref { return &section.Ref{Kind: section.KindSection, ID: id} }
func grp(id string) *section.Ref { return &section.Ref{Kind: section.KindGroup, ID: id} }

func TestMoveSection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		move      string // title of the moved section
		pos       func(ids map[string]string) section.Position
		want      []string
		wantField string // of a 400
	}{
		{name: "before the first", move: "cc", pos: func(m map[string]string) section.Position {
			return section.Position{Before: sec(m["aa"])}
		}, want: []string{"cc", "aa", "bb"}},
		{name: "after the last", move: "aa", pos: func(m map[string]string) section.Position {
			return section.Position{After: sec(m["cc"])}
		}, want: []string{"bb", "cc", "aa"}},
		{name: "between two", move: "cc", pos: func(m map[string]string) section.Position {
			return section.Position{After: sec(m["aa"]), Before: sec(m["bb"])}
		}, want: []string{"aa", "cc", "bb"}},
		{name: "nowhere: to the end", move: "aa", pos: func(map[string]string) section.Position {
			return section.Position{}
		}, want: []string{"bb", "cc", "aa"}},
		{name: "not adjacent", move: "cc", pos: func(m map[string]string) section.Position {
			return section.Position{After: sec(m["bb"]), Before: sec(m["aa"])}
		}, want: []string{"aa", "bb", "cc"}, wantField: "position"},
		{name: "at itself", move: "aa", pos: func(m map[string]string) section.Position {
			return section.Position{Before: sec(m["aa"])}
		}, want: []string{"aa", "bb", "cc"}, wantField: "position.before"},
		{name: "unknown section", move: "aa", pos: func(map[string]string) section.Position {
			return section.Position{After: sec("nope")}
		}, want: []string{"aa", "bb", "cc"}, wantField: "position.after"},
		{name: "a group is no section pointer", move: "aa", pos: func(m map[string]string) section.Position {
			return section.Position{After: grp(m["bb"])}
		}, want: []string{"aa", "bb", "cc"}, wantField: "position"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			m := map[string]string{}
			for _, title := range []string{"aa", "bb", "cc"} {
				m[title] = e.create(site1, title).ID
			}
			_, err := e.svc.MoveSection(e.ctx, admin, org, site1, m[tc.move], tc.pos(m))
			if tc.wantField == "" && err != nil {
				t.Fatalf("move: %v", err)
			}
			if tc.wantField != "" {
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Status != 400 || ae.Field != tc.wantField {
					t.Fatalf("move: %v, want a 400 naming %s", err, tc.wantField)
				}
			}
			if diff := cmp.Diff(e.order(site1), tc.want); diff != "" {
				t.Errorf("structure (-got +want):\n%s", diff)
			}
			if diff := cmp.Diff(e.listed(site1), tc.want); diff != "" {
				t.Errorf("list (-got +want):\n%s", diff)
			}
		})
	}
}

func TestMoveRenumbersWhenNoRoomIsLeft(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.create(site1, "aa"), e.create(site1, "bb"), e.create(site1, "cc")
	for id, p := range map[string]int64{a.ID: 1, b.ID: 2, c.ID: 3} {
		if err := e.store.SetPosition(e.ctx, site1, section.Node{Kind: section.KindSection, ID: id}, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.svc.MoveSection(e.ctx, admin, org, site1, c.ID, section.Position{After: sec(a.ID), Before: sec(b.ID)}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(e.order(site1), []string{"aa", "cc", "bb"}); diff != "" {
		t.Errorf("order (-got +want):\n%s", diff)
	}
}

func TestDefaultSection(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name        string
		act         func(e *env, ids []string) error
		wantDefault string // title; "" none
	}{
		{name: "the first section is the default", act: func(*env, []string) error { return nil }, wantDefault: "aa"},
		{name: "deleting the default promotes the next", act: func(e *env, ids []string) error {
			return e.svc.DeleteSection(e.ctx, admin, org, site1, ids[0])
		}, wantDefault: "bb"},
		{name: "deleting the last default promotes the one before", act: func(e *env, ids []string) error {
			if err := e.svc.SetDefault(e.ctx, grant1, ids[2]); err != nil {
				return err
			}
			return e.svc.DeleteSection(e.ctx, admin, org, site1, ids[2])
		}, wantDefault: "bb"},
		{name: "the next in structure order, through a group", act: func(e *env, ids []string) error {
			if _, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr("G"), Sections: []string{ids[2]}}); err != nil {
				return err
			}
			if _, err := e.svc.MoveSection(e.ctx, admin, org, site1, ids[1], section.Position{}); err != nil {
				return err // order: aa [G: cc] bb
			}
			return e.svc.DeleteSection(e.ctx, admin, org, site1, ids[0])
		}, wantDefault: "cc"},
		{name: "deleting another keeps the default", act: func(e *env, ids []string) error {
			return e.svc.DeleteSection(e.ctx, admin, org, site1, ids[1])
		}, wantDefault: "aa"},
		{name: "set default moves the flag", act: func(e *env, ids []string) error {
			return e.svc.SetDefault(e.ctx, grant1, ids[1])
		}, wantDefault: "bb"},
		{name: "deleting every section leaves none", act: func(e *env, ids []string) error {
			for _, id := range ids {
				if err := e.svc.DeleteSection(e.ctx, admin, org, site1, id); err != nil {
					return err
				}
			}
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var ids []string
			for _, title := range []string{"aa", "bb", "cc"} {
				ids = append(ids, e.create(site1, title).ID)
			}
			if err := tc.act(e, ids); err != nil {
				t.Fatal(err)
			}
			l, err := e.svc.ListSections(e.ctx, admin, org, site1, section.Page{})
			if err != nil {
				t.Fatal(err)
			}
			var defaults []string
			for _, v := range l.Items {
				if v.Default {
					defaults = append(defaults, v.Title)
				}
			}
			want := []string{}
			if tc.wantDefault != "" {
				want = []string{tc.wantDefault}
			}
			if diff := cmp.Diff(defaults, want, cmp.Comparer(func(a, b []string) bool { return len(a) == len(b) && (len(a) == 0 || cmp.Equal(a, b)) })); diff != "" {
				t.Errorf("default sections (-got +want):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestAccess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.create(site1, "aa")
	other, err := e.svc.CreateSection(e.ctx, access.Caller{UserID: "x", Roles: map[string]string{"other": "admin"}}, "other", "site3",
		section.CreateSectionInput{SpaceID: "sp2"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		call func() error
		want int
	}{
		{"an outsider lists", func() error {
			_, err := e.svc.ListSections(e.ctx, outsider, org, site1, section.Page{})
			return err
		}, 404},
		{"an outsider names the site under its own organization", func() error {
			_, err := e.svc.ListSections(e.ctx, outsider, "other", site1, section.Page{})
			return err
		}, 404},
		{"a reader lists", func() error {
			_, err := e.svc.ListSections(e.ctx, reader, org, site1, section.Page{})
			return err
		}, 0},
		{"a reader creates", func() error {
			_, err := e.svc.CreateSection(e.ctx, reader, org, site1, section.CreateSectionInput{SpaceID: "sp1"})
			return err
		}, 403},
		{"a reader deletes", func() error { return e.svc.DeleteSection(e.ctx, reader, org, site1, s.ID) }, 403},
		{"a section of another site of the organization", func() error {
			_, err := e.svc.UpdateSection(e.ctx, admin, org, site2, s.ID, section.UpdateSectionInput{Title: ptr("New")})
			return err
		}, 404},
		{"a section of another organization's site", func() error {
			return e.svc.DeleteSection(e.ctx, admin, org, site1, other.ID)
		}, 404},
		{"a group of another site", func() error {
			g, err := e.svc.CreateGroup(e.ctx, admin, org, site2, section.CreateGroupInput{Title: ptr("G")})
			if err != nil {
				return err
			}
			_, err = e.svc.AddToGroup(e.ctx, admin, org, site1, g.ID, s.ID)
			return err
		}, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			var ae *apierr.Error
			switch {
			case tc.want == 0 && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tc.want != 0 && (!errors.As(err, &ae) || ae.Status != tc.want):
				t.Fatalf("err = %v, want status %d", err, tc.want)
			}
		})
	}
	if got := e.listed(site1); !cmp.Equal(got, []string{"aa"}) {
		t.Errorf("site1 sections after refused calls: %v", got)
	}
}

func TestGroups(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b, c := e.create(site1, "aa"), e.create(site1, "bb"), e.create(site1, "cc")
	g, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr("G"), Sections: []string{c.ID, a.ID}})
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name string
		do   func() error
		want []string
	}{
		{"created with sections in the given order", func() error { return nil }, []string{"bb", "[G: cc aa]"}},
		{"a section moves beside a grouped one and joins the group", func() error {
			_, err := e.svc.MoveSection(e.ctx, admin, org, site1, b.ID, section.Position{After: sec(c.ID)})
			return err
		}, []string{"[G: cc bb aa]"}},
		{"removed from the group it goes before the group", func() error {
			return e.svc.RemoveFromGroup(e.ctx, admin, org, site1, g.ID, a.ID)
		}, []string{"aa", "[G: cc bb]"}},
		{"the group moves before a section", func() error {
			_, err := e.svc.MoveGroup(e.ctx, admin, org, site1, g.ID, section.Position{Before: sec(a.ID)})
			return err
		}, []string{"[G: cc bb]", "aa"}},
		{"added to the group a section goes to its end", func() error {
			_, err := e.svc.AddToGroup(e.ctx, admin, org, site1, g.ID, a.ID)
			return err
		}, []string{"[G: cc bb aa]"}},
		{"deleting the group keeps its sections in place", func() error {
			h, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr("H")})
			if err != nil {
				return err
			}
			if _, err := e.svc.MoveGroup(e.ctx, admin, org, site1, h.ID, section.Position{Before: grp(g.ID)}); err != nil {
				return err
			}
			return e.svc.DeleteGroup(e.ctx, admin, org, site1, g.ID)
		}, []string{"[H:]", "cc", "bb", "aa"}},
	}
	for _, st := range steps {
		if err := st.do(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if diff := cmp.Diff(e.order(site1), st.want); diff != "" {
			t.Fatalf("%s: structure (-got +want):\n%s", st.name, diff)
		}
	}
	err = e.svc.RemoveFromGroup(e.ctx, admin, org, site1, g.ID, a.ID)
	if !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("remove from a deleted group: %v, want not found", err)
	}
}

func TestUpdateSection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.create(site1, "Getting started"), e.create(site1, "Getting started")
	if a.Path != "getting-started" || b.Path != "getting-started-2" {
		t.Fatalf("paths %q, %q; want getting-started, getting-started-2", a.Path, b.Path)
	}
	second, err := e.sites.AddSiteSpace(e.ctx, admin, grant1, a.ID, "sp2")
	if err != nil {
		t.Fatal(err)
	}
	secondID := siteSpaceIDOf(t, second)
	for _, tc := range []struct {
		name      string
		in        section.UpdateSectionInput
		wantErr   int
		wantField string
		check     func(t *testing.T, v section.SectionView)
	}{
		{name: "condition set", in: section.UpdateSectionInput{Condition: nullable.Of(`visitor.claims.beta == true`)},
			check: func(t *testing.T, v section.SectionView) {
				if v.Condition != `visitor.claims.beta == true` {
					t.Errorf("condition %q", v.Condition)
				}
			}},
		{name: "condition that does not compile", in: section.UpdateSectionInput{Condition: nullable.Of(`visitor ==`)}, wantErr: 400, wantField: "condition"},
		{name: "condition removed", in: section.UpdateSectionInput{Condition: nullable.Field[string]{Set: true, Null: true}},
			check: func(t *testing.T, v section.SectionView) {
				if v.Condition != "" {
					t.Errorf("condition %q after null", v.Condition)
				}
			}},
		{name: "path of the other section", in: section.UpdateSectionInput{Path: ptr("getting-started-2")}, wantErr: 409},
		{name: "path freed", in: section.UpdateSectionInput{Path: ptr("start")}, check: func(t *testing.T, v section.SectionView) {
			if v.Path != "start" {
				t.Errorf("path %q", v.Path)
			}
		}},
		{name: "default site space of another section", in: section.UpdateSectionInput{DefaultSiteSpace: ptr("nope")}, wantErr: 400, wantField: "defaultSiteSpace"},
		{name: "default site space", in: section.UpdateSectionInput{DefaultSiteSpace: &secondID}, check: func(t *testing.T, v section.SectionView) {
			var defaults []string
			for _, raw := range v.SiteSpaces {
				var ss struct {
					ID      string `json:"id"`
					Default bool   `json:"default"`
				}
				if err := jsonUnmarshal(raw, &ss); err != nil {
					t.Fatal(err)
				}
				if ss.Default {
					defaults = append(defaults, ss.ID)
				}
			}
			if !cmp.Equal(defaults, []string{secondID}) {
				t.Errorf("default site spaces %v, want [%s]", defaults, secondID)
			}
		}},
		{name: "title too short", in: section.UpdateSectionInput{Title: ptr("a")}, wantErr: 400, wantField: "title"},
	} {
		// In order: each row sees the ones before it.
		v, err := e.svc.UpdateSection(e.ctx, admin, org, site1, a.ID, tc.in)
		var ae *apierr.Error
		switch {
		case tc.wantErr == 0 && err != nil:
			t.Fatalf("%s: %v", tc.name, err)
		case tc.wantErr != 0 && (!errors.As(err, &ae) || ae.Status != tc.wantErr || ae.Field != tc.wantField):
			t.Fatalf("%s: err %v, want status %d naming %q", tc.name, err, tc.wantErr, tc.wantField)
		case tc.check != nil:
			tc.check(t, v)
		}
	}
}

func TestDeleteSectionRemovesSiteSpacesAndFreesPath(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a := e.create(site1, "Guide")
	if err := e.svc.DeleteSection(e.ctx, admin, org, site1, a.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.sites.SiteSpaceCount(a.ID); n != 0 {
		t.Errorf("%d site spaces left", n)
	}
	if b := e.create(site1, "Guide"); b.Path != "guide" {
		t.Errorf("path of a new section %q, want the freed guide", b.Path)
	}
	if err := e.svc.DeleteSection(e.ctx, admin, org, site1, a.ID); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("second delete: %v, want not found", err)
	}
}

func TestEvents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	a, b := e.create(site1, "aa"), e.create(site1, "bb")
	if _, err := e.svc.UpdateSection(e.ctx, admin, org, site1, a.ID, section.UpdateSectionInput{Title: ptr("AA")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.MoveSection(e.ctx, admin, org, site1, a.ID, section.Position{After: sec(b.ID)}); err != nil {
		t.Fatal(err)
	}
	g, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr("G")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.UpdateGroup(e.ctx, admin, org, site1, g.ID, section.UpdateGroupInput{Title: ptr("H")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.MoveGroup(e.ctx, admin, org, site1, g.ID, section.Position{Before: sec(b.ID)}); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteSection(e.ctx, admin, org, site1, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := e.svc.DeleteGroup(e.ctx, admin, org, site1, g.ID); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		coll, id string
		want     []string
	}{
		{sectionmongo.Sections, a.ID, []string{sitesapi.SiteSectionCreated, sitesapi.SiteSectionUpdated, sitesapi.SiteSectionMoved}},
		{sectionmongo.Sections, b.ID, []string{sitesapi.SiteSectionCreated, sitesapi.SiteSectionDeleted}},
		{sectionmongo.Groups, g.ID, []string{sitesapi.SiteSectionGroupCreated, sitesapi.SiteSectionGroupUpdated, sitesapi.SiteSectionGroupMoved, sitesapi.SiteSectionGroupDeleted}},
	} {
		var doc kafkax.Pending
		if err := e.db.Collection(tc.coll).FindOne(e.ctx, bson.M{"_id": tc.id}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		got := []string{}
		for _, ev := range doc.Outbox {
			got = append(got, ev.Type)
			if ev.Organization != org || ev.Subject != tc.id {
				t.Errorf("event %s: organization %q subject %q", ev.Type, ev.Organization, ev.Subject)
			}
		}
		if diff := cmp.Diff(got, tc.want); diff != "" {
			t.Errorf("events of %s (-got +want):\n%s", tc.id, diff)
		}
	}
}

// TestSectionBoundHoldsUnderConcurrentCreates: with one place left, creations
// racing each other never leave the site over its bound of sections.
func TestSectionBoundHoldsUnderConcurrentCreates(t *testing.T) {
	e := newEnv(t)
	for i := range limits.SectionsPerSite - 1 {
		e.create(site1, fmt.Sprint("Section ", i))
	}
	const racers = 6
	var wg sync.WaitGroup
	var made atomic.Int32
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.CreateSection(e.ctx, admin, org, site1, section.CreateSectionInput{SpaceID: "sp1", Title: nullable.Of(fmt.Sprint("Racer ", i))})
			if err == nil {
				made.Add(1)
			} else if apierr.ToBody(err).Error.Code != 400 {
				t.Errorf("racer %d: %v, want a 400 when refused", i, err)
			}
		}()
	}
	wg.Wait()
	secs, err := e.store.SiteSections(e.ctx, site1)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) > limits.SectionsPerSite || int(made.Load()) != len(secs)-(limits.SectionsPerSite-1) {
		t.Fatalf("%d sections (bound %d), %d creations succeeded", len(secs), limits.SectionsPerSite, made.Load())
	}
}

func TestGroupBoundHoldsUnderConcurrentCreates(t *testing.T) {
	e := newEnv(t)
	for i := range limits.GroupsPerSite - 1 {
		if _, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr(fmt.Sprint("Group ", i))}); err != nil {
			t.Fatal(err)
		}
	}
	const racers = 6
	var wg sync.WaitGroup
	var made atomic.Int32
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: ptr(fmt.Sprint("Racer ", i))})
			if err == nil {
				made.Add(1)
			} else if apierr.ToBody(err).Error.Code != 400 {
				t.Errorf("racer %d: %v, want a 400 when refused", i, err)
			}
		}()
	}
	wg.Wait()
	secs, err := e.store.SiteGroups(e.ctx, site1)
	if err != nil {
		t.Fatal(err)
	}
	if len(secs) > limits.GroupsPerSite || int(made.Load()) != len(secs)-(limits.GroupsPerSite-1) {
		t.Fatalf("%d groups (bound %d), %d creations succeeded", len(secs), limits.GroupsPerSite, made.Load())
	}
}

// TestOneDefaultWhenFirstSectionsRace: sections created at once on a site
// with none each see an empty site and mark themselves the default; once
// all are stored exactly one is.
func TestOneDefaultWhenFirstSectionsRace(t *testing.T) {
	e := newEnv(t)
	const rounds, racers = 10, 4
	for round := range rounds {
		siteID := fmt.Sprint("race", round)
		e.sites.AddSite(org, siteID)
		var wg sync.WaitGroup
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := e.svc.CreateSection(e.ctx, admin, org, siteID, section.CreateSectionInput{SpaceID: "sp1", Title: nullable.Of(fmt.Sprint("Racer ", i))})
				if err != nil {
					t.Errorf("round %d, racer %d: %v", round, i, err)
				}
			}()
		}
		wg.Wait()
		secs, err := e.store.SiteSections(e.ctx, siteID)
		if err != nil {
			t.Fatal(err)
		}
		var defaults []string
		for _, s := range secs {
			if s.Default {
				defaults = append(defaults, s.ID)
			}
		}
		if len(secs) != racers || len(defaults) != 1 {
			t.Fatalf("round %d: %d sections, defaults %v; want %d sections and one default", round, len(secs), defaults, racers)
		}
	}
}
