package order_test

import (
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/order"
	"github.com/google/go-cmp/cmp"
)

func TestAt(t *testing.T) {
	t.Parallel()
	t0 := time.UnixMilli(1_700_000_000_000)
	if got, want := order.At(t0), int64(1_700_000_000_000)*order.Step; got != want {
		t.Errorf("At(%v) = %d, want %d", t0, got, want)
	}
	if a, b := order.At(t0), order.At(t0.Add(time.Millisecond)); b-a != order.Step {
		t.Errorf("At a millisecond apart differs by %d, want Step", b-a)
	}
}

func TestBetween(t *testing.T) {
	t.Parallel()
	sibs := []int64{10, 11, 100}
	for _, tc := range []struct {
		name      string
		positions []int64
		at        int
		want      int64
		wantOK    bool
	}{
		{"no siblings", nil, 0, order.Step, true},
		{"first", sibs, 0, 10 - order.Step, true},
		{"last", sibs, 3, 100 + order.Step, true},
		{"middle with room", sibs, 2, 55, true},
		{"gap of two", []int64{4, 6}, 1, 5, true},
		{"adjacent positions", sibs, 1, 0, false},
		{"equal positions", []int64{7, 7}, 1, 0, false},
		{"negative positions", []int64{-10, -2}, 1, -6, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := order.Between(tc.positions, tc.at)
			if got != tc.want || ok != tc.wantOK {
				t.Errorf("Between(%v, %d) = %d, %v; want %d, %v", tc.positions, tc.at, got, ok, tc.want, tc.wantOK)
			}
		})
	}
}

func TestRenumber(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		positions []int64
		want      []int64
	}{
		{"none", nil, []int64{}},
		{"one", []int64{42}, []int64{42}},
		{"crowded", []int64{10, 11, 11, 12}, []int64{10, 10 + order.Step, 10 + 2*order.Step, 10 + 3*order.Step}},
		{"already spread", []int64{-order.Step, 0, order.Step}, []int64{-order.Step, 0, order.Step}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := order.Renumber(tc.positions)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Renumber(%v) (-got +want):\n%s", tc.positions, diff)
			}
		})
	}
}

func TestPlace(t *testing.T) {
	t.Parallel()
	type set struct {
		I int
		P int64
	}
	for _, tc := range []struct {
		name      string
		positions []int64
		at        int
		want      int64
		wantSets  []set
	}{
		{"no siblings", nil, 0, order.Step, nil},
		{"room between", []int64{10, 20}, 1, 15, nil},
		{"last", []int64{10, 11}, 2, 11 + order.Step, nil},
		{"no room", []int64{5, 6, 7}, 1, 5 + order.Step/2, []set{{1, 5 + order.Step}, {2, 5 + 2*order.Step}}},
		{"no room, some already spread", []int64{5, 5 + order.Step, 5 + order.Step + 1}, 2,
			5 + order.Step + order.Step/2, []set{{2, 5 + 2*order.Step}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var sets []set
			got, err := order.Place(tc.positions, tc.at, func(i int, p int64) error {
				sets = append(sets, set{i, p})
				return nil
			})
			if err != nil {
				t.Fatalf("Place: %v", err)
			}
			if got != tc.want {
				t.Errorf("Place(%v, %d) = %d, want %d", tc.positions, tc.at, got, tc.want)
			}
			if diff := cmp.Diff(sets, tc.wantSets); diff != "" {
				t.Errorf("Place(%v, %d) sets (-got +want):\n%s", tc.positions, tc.at, diff)
			}
		})
	}
}

func TestPlaceStopsAtSetError(t *testing.T) {
	t.Parallel()
	errSet := errors.New("store down")
	calls := 0
	_, err := order.Place([]int64{5, 6, 7}, 1, func(int, int64) error {
		calls++
		return errSet
	})
	if !errors.Is(err, errSet) || calls != 1 {
		t.Errorf("Place with a failing set = %v after %d calls, want %v after 1", err, calls, errSet)
	}
}
