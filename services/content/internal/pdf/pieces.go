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
	var out []string
	var cur, block strings.Builder
	fence := "" // the opening line of the fenced block we are in, if any
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
	}
	// add appends a finished block to the current piece, or starts a new one.
	add := func() {
		if block.Len() == 0 {
			return
		}
		if cur.Len() > 0 && cur.Len()+block.Len() > max {
			flush()
		}
		cur.WriteString(block.String())
		block.Reset()
		if cur.Len() >= max {
			flush()
		}
	}
	for len(md) > 0 {
		line := md
		if i := strings.IndexByte(md, '\n'); i >= 0 {
			line, md = md[:i+1], md[i+1:]
		} else {
			md = ""
		}
		if fence == "" {
			line = nesting(line, limits.PDFNesting)
		}
		if len(line) > max {
			// A line longer than a piece: pieces of its own.
			add()
			flush()
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
			continue
		}
		if block.Len()+len(line) > max {
			// The block alone is longer than a piece: cut it here.
			if fence != "" {
				block.WriteString(fenceMarker(fence) + "\n")
			}
			add()
			flush()
			if fence != "" {
				block.WriteString(fence + "\n")
			}
		}
		block.WriteString(line)
		if marker := fenceMarker(line); marker != "" {
			switch {
			case fence == "":
				fence = strings.TrimRight(line, "\r\n")
			case strings.HasPrefix(marker, fenceMarker(fence)):
				fence = ""
			}
		}
		if fence == "" && strings.TrimSpace(line) == "" {
			add()
		}
	}
	add()
	flush()
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
