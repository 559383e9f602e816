package views

import (
	"net/http"
	"strings"
	"testing"
)

// cookieOfRequest is what cookie must find: r.Cookie's value, at most
// maxCookie bytes.
func cookieOfRequest(r *http.Request, name string) string {
	if ck, err := r.Cookie(name); err == nil && len(ck.Value) <= maxCookie {
		return ck.Value
	}
	return ""
}

var cookieHeaders = [][]string{
	nil,
	{""},
	{"docspub_vid=v1; docspub_sid=s1"},
	{"other=1;docspub_vid=v2"},
	{" docspub_vid = v3 ; x=y"},
	{`docspub_vid="quoted"`},
	{`docspub_vid="half`},
	{`docspub_vid=bad\value; docspub_vid=good`},
	{`docspub_vid=a"b; docspub_vid=next`},
	{"docspub_vid=" + strings.Repeat("x", 65) + "; docspub_vid=short"},
	{"docspub_vid", "docspub_vid=second-line"},
	{"docspub_vid=; docspub_vid=after-empty"},
	{"\tdocspub_vid=tab\t"},
	{"docspub_vid=a b"},
	{"Docspub_vid=case"},
	{strings.Repeat("a=b;", 3000) + "docspub_vid=too-many"},
	{strings.Repeat("a=b;", 2998) + "docspub_vid=just-enough"},
}

func TestCookieIsRequestCookie(t *testing.T) {
	for _, lines := range cookieHeaders {
		r := &http.Request{Header: http.Header{"Cookie": lines}}
		v, s := insightsCookies(r.Header["Cookie"])
		for name, got := range map[string]string{CookieVisitorID: v, CookieSessionID: s} {
			if want := cookieOfRequest(r, name); got != want {
				t.Errorf("insightsCookies(%.80q): %s = %q; want %q (r.Cookie)", lines, name, got, want)
			}
		}
	}
}

func FuzzCookie(f *testing.F) {
	for _, lines := range cookieHeaders {
		if len(lines) == 1 && len(lines[0]) < 200 {
			f.Add(lines[0], "")
		}
	}
	f.Add("docspub_vid=a", "docspub_vid=b")
	f.Fuzz(func(t *testing.T, line, second string) {
		r := &http.Request{Header: http.Header{"Cookie": {line, second}}}
		v, s := insightsCookies(r.Header["Cookie"])
		if wv, ws := cookieOfRequest(r, CookieVisitorID), cookieOfRequest(r, CookieSessionID); v != wv || s != ws {
			t.Errorf("insightsCookies(%q, %q) = %q, %q; want %q, %q (r.Cookie)", line, second, v, s, wv, ws)
		}
	})
}

func BenchmarkCookie(b *testing.B) {
	r := &http.Request{Header: http.Header{"Cookie": {"_ga=GA1.2.3; docspub_vid=v1; docspub_sid=s1; theme=dark"}}}
	b.ReportAllocs()
	for b.Loop() {
		_, _ = insightsCookies(r.Header["Cookie"])
	}
}
