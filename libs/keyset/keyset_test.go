package keyset

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

type item struct {
	pos int64
	id  string
}

func key(i item) (int64, string) { return i.pos, i.id }

func TestCut(t *testing.T) {
	t.Parallel()
	a, b, c := item{1, "a"}, item{2, "b"}, item{3, "c"}
	for _, tc := range []struct {
		name    string
		fetched []item
		limit   int
		want    List[item]
	}{
		{"empty", nil, 2, List[item]{Count: 7}},
		{"fewer than the limit", []item{a}, 2, List[item]{Items: []item{a}, Count: 7, LastPosition: 1, LastID: "a"}},
		{"exactly the limit", []item{a, b}, 2, List[item]{Items: []item{a, b}, Count: 7, LastPosition: 2, LastID: "b"}},
		{"one more: a next page", []item{a, b, c}, 2, List[item]{Items: []item{a, b}, Count: 7, HasMore: true, LastPosition: 2, LastID: "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Cut(tc.fetched, tc.limit, 7, key)
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(item{})); diff != "" {
				t.Errorf("Cut (-want +got):\n%s", diff)
			}
		})
	}
}

func TestWith(t *testing.T) {
	t.Parallel()
	l := List[item]{Items: []item{{1, "a"}}, Count: 3, HasMore: true, LastPosition: 1, LastID: "a"}
	want := List[string]{Items: []string{"A"}, Count: 3, HasMore: true, LastPosition: 1, LastID: "a"}
	if diff := cmp.Diff(want, With(l, []string{"A"})); diff != "" {
		t.Errorf("With (-want +got):\n%s", diff)
	}
}
