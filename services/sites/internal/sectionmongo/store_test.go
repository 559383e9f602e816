package sectionmongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/docspub/platform/services/sites/internal/sectionmongo"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T) (*sectionmongo.Store, *int) {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, sectionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	writes := new(int)
	s := sectionmongo.NewStore(mongox.NewDB(db), func([]kafkax.Event) { *writes++ })
	return s, writes
}

var at = time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)

func ev(id string) kafkax.Event { return kafkax.NewEvent(sitesapi.SiteSectionCreated, "acme", id, nil) }

func insert(t *testing.T, s *sectionmongo.Store, secs ...section.Section) {
	t.Helper()
	for _, sec := range secs {
		if sec.Organization == "" {
			sec.Organization = "acme"
		}
		sec.CreatedAt, sec.UpdatedAt = at, at
		if err := s.InsertSection(context.Background(), sec, ev(sec.ID)); err != nil {
			t.Fatalf("insert %s: %v", sec.ID, err)
		}
	}
}

func TestSectionsBySite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, writes := newStore(t)
	insert(t, s,
		section.Section{ID: "a", Site: "s1", Path: "a", Position: 30},
		section.Section{ID: "b", Site: "s1", Path: "b", Position: 10},
		section.Section{ID: "c", Site: "s1", Path: "c", Position: 20},
		section.Section{ID: "x", Site: "s2", Path: "a", Position: 5}, // the same path on another site
	)
	if *writes != 4 {
		t.Errorf("written called %d times, want 4", *writes)
	}
	for _, tc := range []struct {
		name      string
		q         section.Query
		want      []string
		wantCount int
	}{
		{"first page", section.Query{Site: "s1", Limit: 2}, []string{"b", "c"}, 3},
		{"after c", section.Query{Site: "s1", AfterPosition: 20, AfterID: "c", Limit: 2}, []string{"a"}, 3},
		{"another site", section.Query{Site: "s2"}, []string{"x"}, 1},
		{"unknown site", section.Query{Site: "nope"}, []string{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := s.Sections(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			ids := []string{}
			for _, sec := range got {
				ids = append(ids, sec.ID)
			}
			if diff := cmp.Diff(ids, tc.want); diff != "" || n != tc.wantCount {
				t.Errorf("ids (-got +want):\n%s count %d, want %d", diff, n, tc.wantCount)
			}
		})
	}
	if _, err := s.Section(ctx, "s2", "a"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("section a through site s2: %v, want not found", err)
	}
	got, err := s.Section(ctx, "s1", "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, section.Section{ID: "a", Organization: "acme", Site: "s1", Path: "a", Position: 30, CreatedAt: at, UpdatedAt: at}); diff != "" {
		t.Errorf("stored section (-got +want):\n%s", diff)
	}
}

func TestPathIsUniqueInASite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	insert(t, s, section.Section{ID: "a", Site: "s1", Path: "guide"}, section.Section{ID: "b", Site: "s1", Path: "api"})
	set := func(id, path, title string) error {
		_, err := s.UpdateSection(ctx, "s1", id, func(sec *section.Section) (envelope.Event, error) {
			sec.Path, sec.Title = path, title
			return envelope.Event{}, nil
		})
		return err
	}
	for _, tc := range []struct {
		name string
		do   func() error
		want error
	}{
		{"insert with a taken path", func() error {
			return s.InsertSection(ctx, section.Section{ID: "c", Site: "s1", Path: "guide"}, ev("c"))
		}, apierr.ErrConflict},
		{"set a taken path", func() error {
			return set("b", "guide", "")
		}, apierr.ErrConflict},
		{"set its own path", func() error {
			return set("a", "guide", "Guide")
		}, nil},
		{"removing frees the path", func() error {
			if err := s.RemoveSection(ctx, "s1", "a", ev("a")); err != nil {
				return err
			}
			return set("b", "guide", "")
		}, nil},
		{"removing through another site", func() error {
			return s.RemoveSection(ctx, "s2", "b", ev("b"))
		}, apierr.ErrNotFound},
		{"changing through another site", func() error {
			_, err := s.UpdateSection(ctx, "s2", "b", func(sec *section.Section) (envelope.Event, error) {
				sec.Title = "Taken over"
				return envelope.Event{}, nil
			})
			return err
		}, apierr.ErrNotFound},
		{"changing a group through another site", func() error {
			if err := s.InsertGroup(ctx, section.Group{ID: "g", Site: "s1"}, ev("g")); err != nil {
				return err
			}
			_, err := s.UpdateGroup(ctx, "s2", "g", func(g *section.Group) (envelope.Event, error) {
				g.Title = "Taken over"
				return envelope.Event{}, nil
			})
			return err
		}, apierr.ErrNotFound},
	} {
		if err := tc.do(); !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
			t.Fatalf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if got, err := s.Section(ctx, "s1", "b"); err != nil || got.Path != "guide" {
		t.Errorf("b = %+v, %v; want path guide", got, err)
	}
}

func TestGroupsAndPositions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	for _, g := range []section.Group{{ID: "g1", Site: "s1", Position: 2}, {ID: "g2", Site: "s1", Position: 1}, {ID: "g3", Site: "s2", Position: 0}} {
		g.Organization = "acme"
		if err := s.InsertGroup(ctx, g, ev(g.ID)); err != nil {
			t.Fatal(err)
		}
	}
	insert(t, s, section.Section{ID: "a", Site: "s1", Path: "a", Position: 1})
	if err := s.SetPosition(ctx, "s1", section.Node{Kind: section.KindGroup, ID: "g2"}, 9); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPosition(ctx, "s1", section.Node{Kind: section.KindSection, ID: "a"}, 7); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPosition(ctx, "s2", section.Node{Kind: section.KindGroup, ID: "g1"}, 0); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("position through another site: %v, want not found", err)
	}
	gs, err := s.SiteGroups(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range gs {
		got = append(got, g.ID)
	}
	if diff := cmp.Diff(got, []string{"g1", "g2"}); diff != "" {
		t.Errorf("groups of s1 by position (-got +want):\n%s", diff)
	}
	if sec, _ := s.Section(ctx, "s1", "a"); sec.Position != 7 {
		t.Errorf("position of a = %d, want 7", sec.Position)
	}
	if err := s.RemoveGroup(ctx, "s1", "g1", ev("g1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Group(ctx, "s1", "g1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("removed group: %v, want not found", err)
	}
}

func TestDeleteSiteRemovesOnlyThatSitesSections(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, _ := newStore(t)
	insert(t, s,
		section.Section{ID: "a", Site: "s1", Path: "a", Position: 1},
		section.Section{ID: "b", Site: "s1", Path: "b", Position: 2},
		section.Section{ID: "x", Site: "s2", Path: "a", Position: 1},
	)
	if err := s.DeleteSite(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	for site, want := range map[string]int{"s1": 0, "s2": 1} {
		got, err := s.SiteSections(ctx, site)
		if err != nil || len(got) != want {
			t.Errorf("sections of %s after deleting s1: %d (%v), want %d", site, len(got), err, want)
		}
	}
}
