// Package order places items among their siblings by int64 positions: an
// item appended now goes last, an item placed between two neighbours takes a
// position strictly between theirs, and when two neighbours leave no room the
// siblings are renumbered first.
package order

import "time"

// Step is the gap between appended items: room for a million insertions
// between two items created a millisecond apart.
const Step = 1 << 20

// At is the position of an item appended at t: later than every item
// appended before.
func At(t time.Time) int64 { return t.UnixMilli() * Step }

// Between is a position strictly between positions[at-1] and positions[at]
// (positions ascending): Step before the first for at 0, Step after the last
// for at len(positions), Step among no siblings. ok is false when the two
// neighbours leave no room: Renumber the siblings and ask again.
func Between(positions []int64, at int) (p int64, ok bool) {
	switch {
	case len(positions) == 0:
		return Step, true
	case at == 0:
		return positions[0] - Step, true
	case at == len(positions):
		return positions[at-1] + Step, true
	}
	lo, hi := positions[at-1], positions[at]
	if hi-lo < 2 {
		return 0, false
	}
	return lo + (hi-lo)/2, true
}

// Place returns a position for the slot at among siblings at positions
// (ascending): strictly between positions[at-1] and positions[at]. When those
// two leave no room, it renumbers the siblings first, calling set with the
// index and new position of each sibling whose position changes; an error of
// set stops it.
func Place(positions []int64, at int, set func(i int, p int64) error) (int64, error) {
	if p, ok := Between(positions, at); ok {
		return p, nil
	}
	renumbered := Renumber(positions)
	for i, p := range renumbered {
		if p == positions[i] {
			continue
		}
		if err := set(i, p); err != nil {
			return 0, err
		}
	}
	p, _ := Between(renumbered, at)
	return p, nil
}

// Renumber returns positions spread evenly by Step from the first one,
// keeping their order.
func Renumber(positions []int64) []int64 {
	out := make([]int64, len(positions))
	for i := range positions {
		out[i] = positions[0] + int64(i)*Step
	}
	return out
}
