package visibility_test

import (
	"testing"

	"github.com/docspub/platform/services/sites/internal/visibility"
	"github.com/google/go-cmp/cmp"
)

func TestOf(t *testing.T) {
	t.Parallel()
	holds := func(cond string) bool { return cond == "yes" }
	live := map[string]bool{"a": true, "b": true, "c": true}
	for _, tc := range []struct {
		name string
		site visibility.Site
		want visibility.Set
	}{
		{
			name: "site level: hidden reachable only, unmet condition and unpublished space absent",
			site: visibility.Site{Published: live, SiteSpaces: []visibility.SiteSpace{
				{ID: "1", Space: "a"}, {ID: "2", Space: "b", Hidden: true}, {ID: "3", Space: "c", Condition: "no"},
				{ID: "4", Space: "gone"}, {ID: "5", Space: "c", Condition: "yes"},
			}},
			want: visibility.Set{Sections: map[string]bool{"": true},
				SiteSpaces: map[string]bool{"1": true, "2": false, "5": true}},
		},
		{
			name: "sections: an unmet section hides its site spaces; site-level ones are not shown",
			site: visibility.Site{Published: live,
				Sections: []visibility.Section{{ID: "s1"}, {ID: "s2", Condition: "no"}, {ID: "s3", Condition: "yes"}, {ID: "s4"}},
				SiteSpaces: []visibility.SiteSpace{
					{ID: "0", Space: "a"},
					{ID: "1", Section: "s1", Space: "a"}, {ID: "2", Section: "s2", Space: "b"},
					{ID: "3", Section: "s3", Space: "c"}, {ID: "4", Section: "s4", Space: "b", Hidden: true},
				}},
			want: visibility.Set{Sections: map[string]bool{"s1": true, "s3": true, "s4": false},
				SiteSpaces: map[string]bool{"1": true, "3": true, "4": false}},
		},
		{
			name: "a condition that cannot be evaluated hides",
			site: visibility.Site{Published: live, SiteSpaces: []visibility.SiteSpace{{ID: "1", Space: "a", Condition: "let r = 1..9; r"}}},
			want: visibility.Set{Sections: map[string]bool{}, SiteSpaces: map[string]bool{}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := visibility.Of(tc.site, holds)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Of (-got +want):\n%s", diff)
			}
			if _, want := tc.want.SiteSpaces["4"]; got.Reachable("4") != want {
				t.Errorf("Reachable(4) = %v, want %v", got.Reachable("4"), want)
			}
		})
	}
}
