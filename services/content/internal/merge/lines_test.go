package merge

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// text joins lines, each ended by "\n".
func text(ls ...string) string {
	if len(ls) == 0 {
		return ""
	}
	return strings.Join(ls, "\n") + "\n"
}

func TestMergeText(t *testing.T) {
	t.Parallel()
	base := text("1", "2", "3", "4", "5", "6")
	tests := []struct {
		name          string
		base          string
		ours, theirs  string
		want          string   // the merge; ours when there are conflicts
		wantConflicts []string // region names
	}{
		{name: "nothing changed", base: base, ours: base, theirs: base, want: base},
		{name: "only theirs changed", base: base, ours: base, theirs: text("1", "two", "3", "4", "5", "6"), want: text("1", "two", "3", "4", "5", "6")},
		{name: "only ours changed", base: base, ours: text("1", "2", "3", "4", "five", "6"), theirs: base, want: text("1", "2", "3", "4", "five", "6")},
		{name: "the same change on both sides", base: base, ours: text("1", "two", "3", "4", "6"), theirs: text("1", "two", "3", "4", "6"), want: text("1", "two", "3", "4", "6")},
		{
			name: "changes far apart",
			base: base, ours: text("1", "two", "3", "4", "5", "6"), theirs: text("1", "2", "3", "4", "five", "6"),
			want: text("1", "two", "3", "4", "five", "6"),
		},
		{
			name: "changes of adjacent lines",
			base: base, ours: text("1", "two", "3", "4", "5", "6"), theirs: text("1", "2", "three", "4", "5", "6"),
			want: text("1", "two", "three", "4", "5", "6"),
		},
		{
			name: "a deletion and an insertion elsewhere",
			base: base, ours: text("1", "3", "4", "5", "6"), theirs: text("1", "2", "3", "4", "4.5", "5", "6"),
			want: text("1", "3", "4", "4.5", "5", "6"),
		},
		{
			name: "an insertion right before a line the other side changed",
			base: base, ours: text("1", "2", "2.5", "3", "4", "5", "6"), theirs: text("1", "2", "three", "4", "5", "6"),
			want: text("1", "2", "2.5", "three", "4", "5", "6"),
		},
		{
			name: "an insertion right after a line the other side changed",
			base: base, ours: text("1", "2", "3", "3.5", "4", "5", "6"), theirs: text("1", "2", "three", "4", "5", "6"),
			want: text("1", "2", "three", "3.5", "4", "5", "6"),
		},
		{
			name: "the same line changed differently",
			base: base, ours: text("1", "two", "3", "4", "5", "6"), theirs: text("1", "TWO", "3", "4", "5", "6"),
			want: text("1", "two", "3", "4", "5", "6"), wantConflicts: []string{"line 2"},
		},
		{
			name: "overlapping ranges",
			base: base, ours: text("1", "two", "three", "4", "5", "6"), theirs: text("1", "2", "THREE", "FOUR", "5", "6"),
			want: text("1", "two", "three", "4", "5", "6"), wantConflicts: []string{"lines 2-4"},
		},
		{
			name: "different insertions at the same place",
			base: base, ours: text("1", "2", "a", "3", "4", "5", "6"), theirs: text("1", "2", "b", "3", "4", "5", "6"),
			want: text("1", "2", "a", "3", "4", "5", "6"), wantConflicts: []string{"insertions after line 2"},
		},
		{
			name: "the same insertion at the same place",
			base: base, ours: text("1", "2", "a", "3", "4", "5", "6"), theirs: text("1", "2", "a", "3", "4", "5", "6"),
			want: text("1", "2", "a", "3", "4", "5", "6"),
		},
		{
			name: "a deleted block edited on the other side",
			base: base, ours: text("1", "5", "6"), theirs: text("1", "2", "three", "4", "5", "6"),
			want: text("1", "5", "6"), wantConflicts: []string{"lines 2-4"},
		},
		{
			name: "two conflicts and a clean change",
			base: base, ours: text("one", "2", "3", "4", "five", "6"), theirs: text("ONE", "2", "three", "4", "FIVE", "6"),
			want: text("one", "2", "3", "4", "five", "6"), wantConflicts: []string{"line 1", "line 5"},
		},
		{
			name: "no newline at the end, appended on one side",
			base: "a\nb\nc", ours: "a\nb\nc\nd\n", theirs: "A\nb\nc",
			want: "A\nb\nc\nd\n",
		},
		{
			name: "empty base, added on one side",
			base: "", ours: "", theirs: text("x", "y"),
			want: text("x", "y"),
		},
		{
			name: "empty base, added differently on both",
			base: "", ours: text("x"), theirs: text("y"),
			want: text("x"), wantConflicts: []string{"insertions at the start"},
		},
		{
			name: "everything deleted on one side",
			base: base, ours: "", theirs: base,
			want: "",
		},
		{
			name: "everything deleted on one side, a line changed on the other",
			base: base, ours: "", theirs: text("1", "2", "3", "four", "5", "6"),
			want: "", wantConflicts: []string{"lines 1-6"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			check := func(t *testing.T, ours, theirs, want string) {
				t.Helper()
				got, rs := mergeText(tc.base, ours, theirs)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("mergeText() text mismatch (-want +got):\n%s", diff)
				}
				var names []string
				for _, r := range rs {
					names = append(names, r.String())
				}
				if diff := cmp.Diff(tc.wantConflicts, names); diff != "" {
					t.Errorf("mergeText() conflicts mismatch (-want +got):\n%s", diff)
				}
			}
			t.Run("ours into theirs", func(t *testing.T) { check(t, tc.ours, tc.theirs, tc.want) })
			// The other order gives the same merge, or the same conflicts
			// with the other side kept.
			want := tc.want
			if len(tc.wantConflicts) > 0 {
				want = tc.theirs
			}
			t.Run("theirs into ours", func(t *testing.T) { check(t, tc.theirs, tc.ours, want) })
		})
	}
}

func TestMergeTextLongPages(t *testing.T) {
	t.Parallel()
	var b, o, th, want []string
	for i := range 400 {
		l := strings.Repeat("x", i%7) + string(rune('a'+i%26))
		b = append(b, l)
		switch {
		case i%50 == 10:
			o = append(o, "ours "+l)
			th = append(th, l)
			want = append(want, "ours "+l)
		case i%50 == 30:
			o = append(o, l)
			th = append(th, "theirs "+l, "theirs extra")
			want = append(want, "theirs "+l, "theirs extra")
		default:
			o, th, want = append(o, l), append(th, l), append(want, l)
		}
	}
	got, rs := mergeText(text(b...), text(o...), text(th...))
	if len(rs) != 0 {
		t.Fatalf("mergeText() conflicts = %v, want none", rs)
	}
	if diff := cmp.Diff(text(want...), got); diff != "" {
		t.Errorf("mergeText() mismatch (-want +got):\n%s", diff)
	}
}
