package merge

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// hunk is one side's change of the base lines [start, end): they are
// replaced by lines. A pure insertion has start == end.
type hunk struct {
	start, end int
	lines      []string
}

// region is a range of base lines [start, end) that both sides changed
// differently.
type region struct{ start, end int }

// String names the region in 1-based base line numbers.
func (r region) String() string {
	switch {
	case r.start == r.end && r.start == 0:
		return "insertions at the start"
	case r.start == r.end:
		return fmt.Sprintf("insertions after line %d", r.start)
	case r.end-r.start == 1:
		return fmt.Sprintf("line %d", r.start+1)
	default:
		return fmt.Sprintf("lines %d-%d", r.start+1, r.end)
	}
}

// describe lists regions for a conflict's reason.
func describe(rs []region) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

// lines cuts text after every "\n"; a last line without one is kept as it
// is, so that joining the lines gives the text back.
func lines(text string) []string {
	var out []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			out = append(out, text)
			break
		}
		out = append(out, text[:i+1])
		text = text[i+1:]
	}
	return out
}

// hunks lists the changes that turn base into side, in base order, adjacent
// changes joined.
func hunks(base, side []string) []hunk {
	var out []hunk
	for _, d := range lcs.DiffLines(base, side) {
		repl := side[d.ReplStart:d.ReplEnd]
		if n := len(out); n > 0 && out[n-1].end == d.Start {
			out[n-1].end = d.End
			out[n-1].lines = append(out[n-1].lines, repl...)
			continue
		}
		out = append(out, hunk{start: d.Start, end: d.End, lines: slices.Clone(repl)})
	}
	return out
}

// before reports whether a applies entirely before b without touching it.
// Changes of adjacent lines do not touch; two insertions at the same place
// do (their order would be a guess).
func before(a, b hunk) bool {
	if a.end < b.start {
		return true
	}
	if a.end == b.start {
		bothInsert := a.start == a.end && b.start == b.end
		return !bothInsert
	}
	return false
}

// apply returns base[lo:hi] with hs (all inside it) applied.
func apply(base []string, lo, hi int, hs []hunk) []string {
	var out []string
	at := lo
	for _, h := range hs {
		out = append(out, base[at:h.start]...)
		out = append(out, h.lines...)
		at = h.end
	}
	return append(out, base[at:hi]...)
}

// mergeText merges text line by line (diff3): a change made by one side is
// applied; the same change made by both is applied once; changes of the same
// base lines that differ, or different insertions at the same place, are
// conflicts. On conflict it returns ours unchanged and the conflicting base
// regions.
func mergeText(base, ours, theirs string) (string, []region) {
	switch {
	case ours == theirs, theirs == base:
		return ours, nil
	case ours == base:
		return theirs, nil
	}
	b := lines(base)
	oh, th := hunks(b, lines(ours)), hunks(b, lines(theirs))

	var (
		out       strings.Builder
		conflicts []region
		at        int // next base line to copy
	)
	emit := func(ls []string) {
		for _, l := range ls {
			out.WriteString(l)
		}
	}
	i, j := 0, 0
	for i < len(oh) || j < len(th) {
		switch {
		case j == len(th) || (i < len(oh) && before(oh[i], th[j])):
			emit(b[at:oh[i].start])
			emit(oh[i].lines)
			at = oh[i].end
			i++
		case i == len(oh) || before(th[j], oh[i]):
			emit(b[at:th[j].start])
			emit(th[j].lines)
			at = th[j].end
			j++
		default:
			// The two touch: take every change of either side that touches
			// the growing base range [lo, hi), then compare the sides'
			// versions of it.
			lo, hi := min(oh[i].start, th[j].start), max(oh[i].end, th[j].end)
			i0, j0 := i, j
			i, j = i+1, j+1
			for {
				if i < len(oh) && oh[i].start < hi {
					hi = max(hi, oh[i].end)
					i++
				} else if j < len(th) && th[j].start < hi {
					hi = max(hi, th[j].end)
					j++
				} else {
					break
				}
			}
			o, t := apply(b, lo, hi, oh[i0:i]), apply(b, lo, hi, th[j0:j])
			if !slices.Equal(o, t) {
				conflicts = append(conflicts, region{lo, hi})
			}
			emit(b[at:lo])
			emit(o)
			at = hi
		}
	}
	if len(conflicts) > 0 {
		return ours, conflicts
	}
	emit(b[at:])
	return out.String(), nil
}
