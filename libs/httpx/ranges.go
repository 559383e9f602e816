package httpx

import (
	"io"
	"net/http"
	"strconv"
	"strings"
)

// MaxRanges is the most ranges a file's answer is cut in: a Range of
// more, or of ranges that overlap or are out of order, gets the whole
// file (200). A multipart answer is then never larger than the file and
// the headers of its few parts.
const MaxRanges = 8

// boundRanges is r as ServeFile hands it to http.ServeContent: its Range
// rewritten as the satisfiable ranges it asks, when those are a few in
// order that do not overlap (content's size decides suffix and open
// ranges); a Range of none is asked past the end (a 416); any other
// Range, or one that does not parse, is dropped (the whole file).
func boundRanges(r *http.Request, content io.Seeker) *http.Request {
	vals := r.Header.Values("Range")
	if len(vals) == 0 {
		return r
	}
	bounded, ok := "", false
	if len(vals) == 1 {
		size, err := content.Seek(0, io.SeekEnd)
		if err == nil {
			_, err = content.Seek(0, io.SeekStart)
		}
		if err == nil {
			bounded, ok = boundedRanges(vals[0], size)
		}
	}
	out := r.WithContext(r.Context())
	out.Header = r.Header.Clone()
	out.Header.Del("Range")
	if ok {
		out.Header.Set("Range", bounded)
	}
	return out
}

// boundedRanges reads a Range header of a file of size bytes: at most
// MaxRanges ranges (bytes=a-b, a- or -n), in order and not overlapping,
// written back as "bytes=a-b,..." with the ranges that are satisfiable
// ("bytes=<size>-" when none is). ok is false for any other, and for a
// Range of no range at all.
func boundedRanges(header string, size int64) (string, bool) {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok {
		return "", false
	}
	parts := strings.Split(spec, ",")
	if len(parts) > MaxRanges {
		return "", false
	}
	var out []string
	asked, last := 0, int64(-1) // last: the end of the previous satisfiable range
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		asked++
		start, end, ok := parseRange(p, size)
		if !ok {
			return "", false
		}
		if start < 0 { // not satisfiable
			continue
		}
		if start <= last {
			return "", false
		}
		last = end
		out = append(out, strconv.FormatInt(start, 10)+"-"+strconv.FormatInt(end, 10))
	}
	if asked == 0 {
		return "", false
	}
	if len(out) == 0 {
		return "bytes=" + strconv.FormatInt(size, 10) + "-", true
	}
	return "bytes=" + strings.Join(out, ","), true
}

// parseRange reads one range of a file of size bytes: its first and last
// byte, start -1 when it is not satisfiable; ok is false when it does not
// parse.
func parseRange(p string, size int64) (start, end int64, ok bool) {
	first, second, found := strings.Cut(p, "-")
	first, second = strings.TrimSpace(first), strings.TrimSpace(second)
	if !found || (first == "" && second == "") {
		return 0, 0, false
	}
	if first == "" { // the last n bytes
		n, ok := digits(second)
		if !ok {
			return 0, 0, false
		}
		if n == 0 || size == 0 {
			return -1, 0, true
		}
		return max(size-n, 0), size - 1, true
	}
	start, ok = digits(first)
	if !ok {
		return 0, 0, false
	}
	end = size - 1
	if second != "" {
		if end, ok = digits(second); !ok || end < start {
			return 0, 0, false
		}
		end = min(end, size-1)
	}
	if start >= size {
		return -1, 0, true
	}
	return start, end, true
}

// digits reads a non-negative decimal number of digits only.
func digits(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
