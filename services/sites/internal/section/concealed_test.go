package section_test

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/section"
	"github.com/google/go-cmp/cmp"
)

// TestConcealedSections: a section whose site spaces its viewer may see
// none of (its space is hidden from them) is left out of lists, counts,
// pages, groups and the published structure, and is not found for changes;
// sections without that problem are unaffected.
func TestConcealedSections(t *testing.T) {
	e := newEnv(t)
	e.create(site1, "Open one")
	hidden, err := e.svc.CreateSection(e.ctx, admin, org, site1, section.CreateSectionInput{SpaceID: "sp2"})
	if err != nil {
		t.Fatal(err)
	}
	e.create(site1, "Open two")
	if _, err := e.svc.CreateGroup(e.ctx, admin, org, site1, section.CreateGroupInput{Title: nullable.Of("All").Ptr(), Sections: []string{hidden.ID}}); err != nil {
		t.Fatal(err)
	}
	if got := e.listed(site1); !cmp.Equal(got, []string{"Open one", "API", "Open two"}) {
		t.Fatalf("before hiding: %v", got)
	}
	e.sites.Hide("sp2")

	if diff := cmp.Diff(e.listed(site1), []string{"Open one", "Open two"}); diff != "" {
		t.Errorf("listed (-got +want):\n%s", diff)
	}
	l, err := e.svc.ListSections(e.ctx, admin, org, site1, section.Page{Limit: 1})
	if err != nil || l.Count != 2 || len(l.Items) != 1 || l.Next == nil {
		t.Fatalf("first page of 1: %+v, %v", l, err)
	}
	pg := section.Page{Limit: 1, Page: l.Next.Page}
	if err := pg.Keys(&pg.AfterPosition, &pg.AfterID); err != nil {
		t.Fatalf("next page's cursor: %v", err)
	}
	next, err := e.svc.ListSections(e.ctx, admin, org, site1, pg)
	if err != nil || len(next.Items) != 1 || next.Items[0].Title != "Open two" || next.Next != nil {
		t.Errorf("second page of 1: %+v, %v", next, err)
	}
	if diff := cmp.Diff(e.order(site1), []string{"Open one", "Open two", "[All:]"}); diff != "" {
		t.Errorf("structure (-got +want):\n%s", diff)
	}
	groups, err := e.svc.ListGroups(e.ctx, admin, org, site1, section.Page{Limit: 10})
	if err != nil || len(groups.Items) != 1 || len(groups.Items[0].Sections) != 0 {
		t.Errorf("groups: %+v, %v", groups, err)
	}
	title := "Renamed"
	for name, err := range map[string]error{
		"update": func() error {
			_, err := e.svc.UpdateSection(e.ctx, admin, org, site1, hidden.ID, section.UpdateSectionInput{Title: &title})
			return err
		}(),
		"move": func() error {
			_, err := e.svc.MoveSection(e.ctx, admin, org, site1, hidden.ID, section.Position{})
			return err
		}(),
		"delete": e.svc.DeleteSection(e.ctx, admin, org, site1, hidden.ID),
	} {
		if !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("%s a concealed section: %v, want not found", name, err)
		}
	}
}
