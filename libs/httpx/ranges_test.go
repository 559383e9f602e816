package httpx_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/httpx"
)

// TestServeFileBoundsRanges: a file's answer is cut in at most
// httpx.MaxRanges ordered ranges that do not overlap; any other Range
// (thousands of ranges, overlapping or unordered ones, one that does not
// parse) gets the whole file, so that no answer is larger than the file
// and the headers of a few parts. Ranges all past the end are a 416.
func TestServeFileBoundsRanges(t *testing.T) {
	t.Parallel()
	file := bytes.Repeat([]byte("<svg/>0123456789"), 215) // 3,440 bytes
	size := int64(len(file))
	many := "bytes=" + strings.Repeat("0-4,", 2999) + "0-4"
	ordered := func(n int) string {
		var rs []string
		for i := range n {
			rs = append(rs, strconv.Itoa(i*100)+"-"+strconv.Itoa(i*100+9))
		}
		return "bytes=" + strings.Join(rs, ",")
	}
	for _, tc := range []struct {
		name   string
		ranges []string
		status int
	}{
		{"one range", []string{"bytes=5-14"}, 206},
		{"open range", []string{"bytes=3000-"}, 206},
		{"suffix", []string{"bytes=-10"}, 206},
		{"two ordered", []string{"bytes=0-9, 20-29"}, 206},
		{"eight ordered", []string{ordered(8)}, 206},
		{"nine ordered", []string{ordered(9)}, 200},
		{"3,000 ranges", []string{many}, 200},
		{"overlapping", []string{"bytes=0-10,5-15"}, 200},
		{"same twice", []string{"bytes=0-0,0-0"}, 200},
		{"unordered", []string{"bytes=20-29,0-9"}, 200},
		{"suffix overlapping", []string{"bytes=3400-,-100"}, 200},
		{"open then another", []string{"bytes=10-,3000-3001"}, 200},
		{"one past the end", []string{"bytes=0-9,9999-"}, 206},
		{"all past the end", []string{"bytes=9999-"}, 416},
		{"empty suffix", []string{"bytes=-0"}, 416},
		{"not bytes", []string{"items=0-9"}, 200},
		{"letters", []string{"bytes=a-b"}, 200},
		{"backwards", []string{"bytes=9-0"}, 200},
		{"signed", []string{"bytes=--5"}, 200},
		{"huge", []string{"bytes=0-99999999999999999999"}, 200},
		{"no range", []string{"bytes=, "}, 200},
		{"two Range lines", []string{"bytes=0-9", "bytes=20-29"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := httptest.NewRequest(http.MethodGet, "/f", nil)
			for _, v := range tc.ranges {
				r.Header.Add("Range", v)
			}
			w := httptest.NewRecorder()
			w.Header().Set("Content-Type", "image/svg+xml")
			httpx.ServeFile(w, r, "abc", bytes.NewReader(file))
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d (%d bytes)", w.Code, tc.status, w.Body.Len())
			}
			// The file and the headers of MaxRanges parts at most.
			if n := int64(w.Body.Len()); n > size+int64(httpx.MaxRanges)*200 {
				t.Errorf("%d bytes for a file of %d", n, size)
			}
			if tc.status == 200 && !bytes.Equal(w.Body.Bytes(), file) {
				t.Errorf("not the whole file: %d bytes", w.Body.Len())
			}
		})
	}
}
