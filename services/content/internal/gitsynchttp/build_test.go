package gitsynchttp

import (
	"testing"

	"github.com/docspub/platform/services/content/internal/revision"
)

// TestReusable: an import's reusable contents are added to the parent's;
// one of the same title keeps its id and takes the new markdown; none
// is removed.
func TestReusable(t *testing.T) {
	parent := []revision.ReusableContent{{ID: "rc1", Title: "note", Markdown: "old"}, {ID: "rc2", Title: "made in the app", Markdown: "app"}}
	got, err := reusable(parent, []ReusableContentInput{{Title: "note", Markdown: "new"}, {Title: "tip", Markdown: "tip"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0] != (revision.ReusableContent{ID: "rc1", Title: "note", Markdown: "new"}) ||
		got[1] != parent[1] || got[2].Title != "tip" || got[2].Markdown != "tip" || got[2].ID == "" {
		t.Errorf("reusable contents %+v", got)
	}
	if parent[0].Markdown != "old" {
		t.Error("the parent's reusable contents changed")
	}
	if _, err := reusable(nil, []ReusableContentInput{{Title: " ", Markdown: "x"}}); err == nil {
		t.Error("a reusable content without a title")
	}
}
