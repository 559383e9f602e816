package spacemongo_test

import (
	"context"
	"testing"

	"github.com/docspub/platform/services/content/internal/space"
	"github.com/google/go-cmp/cmp"
)

// WithContent pages through the spaces that have a revision, deleted ones
// too (a restore brings them back), in id order, with their organization
// and revision.
func TestWithContent(t *testing.T) {
	ctx := context.Background()
	s, a := newSpace(t, "s1")
	insert := func(sp space.Space) {
		t.Helper()
		rev := space.Revision{ID: sp.ID + "-r", Space: sp.ID, Organization: sp.Organization, Type: "edits", Parents: []string{}, CreatedAt: t0}
		if err := s.InsertSpace(ctx, sp, rev, ev(sp.ID)); err != nil {
			t.Fatal(err)
		}
	}
	b := a
	b.ID, b.Organization, b.Revision = "s2", "org2", "r2"
	insert(b)
	empty := a
	empty.ID, empty.Revision = "s3", ""
	insert(empty)
	gone := a
	gone.ID, gone.DeletedAt = "s4", &t0
	insert(gone)
	c := a
	c.ID, c.Revision = "s5", "r5"
	insert(c)

	heads := func(after string, limit int) []string {
		t.Helper()
		got, err := s.WithContent(ctx, after, limit)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, sp := range got {
			out = append(out, sp.ID+" "+sp.Organization+" "+sp.Revision)
		}
		return out
	}
	if diff := cmp.Diff(heads("", 2), []string{"s1 org1 r1", "s2 org2 r2"}); diff != "" {
		t.Errorf("the first page (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(heads("s2", 10), []string{"s4 org1 r1", "s5 org1 r5"}); diff != "" {
		t.Errorf("after s2, without the space with no revision (-got +want):\n%s", diff)
	}
}
