package pdf

import (
	"strings"
	"unicode/utf8"

	"github.com/docspub/platform/services/content/internal/limits"
)

// pieces cuts markdown into pieces of at most max bytes for the parser,
// whose cost grows with the square of the length of some constructs (runs
// of "[a](", nested quotes and list markers): a page costs at most its
// length times max, not its length squared. Pieces end at blank lines
// outside fenced code blocks, and consecutive blocks share a piece while
// they fit. A longer block is cut at line ends (a fence cut this way is
// closed and opened again around the cut), a longer line at max bytes.
// Each line's leading quote and list markers are cut to limits.PDFNesting
// first (nesting).
func pieces(md string, max int) []string {
	pc := &piecer{max: max}
	for len(md) > 0 {
		line := md
		if i := strings.IndexByte(md, '\n'); i >= 0 {
			line, md = md[:i+1], md[i+1:]
		} else {
			md = ""
		}
		pc.line(line)
	}
	pc.add()
	pc.flush()
	return pc.out
}

// piecer is the state of pieces: the pieces cut so far, the current
// piece, the block being read, and the opening line of the fenced block
// we are in, if any.
type piecer struct {
	max        int
	out        []string
	cur, block strings.Builder
	fence      string
}

// flush ends the current piece.
func (pc *piecer) flush() {
	if pc.cur.Len() > 0 {
		pc.out = append(pc.out, pc.cur.String())
		pc.cur.Reset()
	}
}

// add appends a finished block to the current piece, or starts a new one.
func (pc *piecer) add() {
	if pc.block.Len() == 0 {
		return
	}
	if pc.cur.Len() > 0 && pc.cur.Len()+pc.block.Len() > pc.max {
		pc.flush()
	}
	pc.cur.WriteString(pc.block.String())
	pc.block.Reset()
	if pc.cur.Len() >= pc.max {
		pc.flush()
	}
}

// line takes the next line of the markdown (with its line end).
func (pc *piecer) line(line string) {
	if pc.fence == "" {
		line = nesting(line, limits.PDFNesting)
	}
	if len(line) > pc.max {
		// A line longer than a piece: pieces of its own.
		pc.add()
		pc.flush()
		pc.out = append(pc.out, cutLine(line, pc.max)...)
		return
	}
	if pc.block.Len()+len(line) > pc.max {
		// The block alone is longer than a piece: cut it here.
		if pc.fence != "" {
			pc.block.WriteString(fenceMarker(pc.fence) + "\n")
		}
		pc.add()
		pc.flush()
		if pc.fence != "" {
			pc.block.WriteString(pc.fence + "\n")
		}
	}
	pc.block.WriteString(line)
	if marker := fenceMarker(line); marker != "" {
		switch {
		case pc.fence == "":
			pc.fence = strings.TrimRight(line, "\r\n")
		case strings.HasPrefix(marker, fenceMarker(pc.fence)):
			pc.fence = ""
		}
	}
	if pc.fence == "" && strings.TrimSpace(line) == "" {
		pc.add()
	}
}

// cutLine cuts a line longer than max into pieces of at most max bytes,
// between words where the text allows, never inside a character.
func cutLine(line string, max int) []string {
	var out []string
	for len(line) > 0 {
		cut := min(len(line), max)
		if cut < len(line) {
			if sp := strings.LastIndexByte(line[:cut], ' '); sp > max/2 {
				cut = sp + 1 // between words, where the text allows
			}
			for cut > 0 && !utf8.RuneStart(line[cut]) {
				cut--
			}
			if cut == 0 {
				cut = max
			}
		}
		out = append(out, line[:cut])
		line = line[cut:]
	}
	return out
}

// fenceMarker is the run of ``` or ~~~ (three or more) that opens or closes
// a fenced code block on line, "" when line is not a fence.
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// nesting cuts the leading quote markers (">") and list markers ("-", "*",
// "+", "1." or "1)" followed by a space) of a line to at most max.
func nesting(line string, max int) string {
	i, n, keep := 0, 0, -1
	for i < len(line) {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '>':
			i++
		case (c == '-' || c == '*' || c == '+') && i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t'):
			i++
		case c >= '0' && c <= '9':
			j := i
			for j < len(line) && j-i < 9 && line[j] >= '0' && line[j] <= '9' {
				j++
			}
			if j+1 >= len(line) || (line[j] != '.' && line[j] != ')') || (line[j+1] != ' ' && line[j+1] != '\t') {
				return cutAt(line, keep, i)
			}
			i = j + 1
		default:
			return cutAt(line, keep, i)
		}
		n++
		if n == max {
			keep = i
		}
	}
	return cutAt(line, keep, i)
}

// cutAt drops line[keep:end] (the markers past the maximum); keep < 0 keeps all.
func cutAt(line string, keep, end int) string {
	if keep < 0 || end <= keep {
		return line
	}
	return line[:keep] + " " + strings.TrimLeft(line[end:], " \t")
}
