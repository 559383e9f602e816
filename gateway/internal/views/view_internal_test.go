package views

import (
	"net/http"
	"testing"

	"github.com/docspub/platform/libs/internalapi/readerapi"
)

// A page view without cookies sets both, with one id; other reads derive
// one id from the address and user agent, the same for every such read;
// ids the reader holds are kept.
func TestIdentify(t *testing.T) {
	page := readerapi.View{Type: "page_view", CookiePath: "/docs"}
	h := http.Header{}
	v, s, set := identify(h, page, "203.0.113.9", "curl", "", "")
	if !set || v == "" || v != s || len(h.Values("Set-Cookie")) != 2 {
		t.Errorf("a new page view: visitor %q session %q set %v cookies %q", v, s, set, h.Values("Set-Cookie"))
	}
	h = http.Header{}
	if v, s, set := identify(h, page, "203.0.113.9", "curl", "vis", "ses"); set || v != "vis" || s != "ses" || len(h) != 0 {
		t.Errorf("a page view with cookies: visitor %q session %q set %v header %v", v, s, set, h)
	}
	other := readerapi.View{Type: "search_query"}
	v1, s1, set := identify(http.Header{}, other, "203.0.113.9", "curl", "", "")
	v2, _, _ := identify(http.Header{}, other, "203.0.113.9", "curl", "", "")
	v3, _, _ := identify(http.Header{}, other, "203.0.113.10", "curl", "", "")
	if set || v1 == "" || v1 != s1 || v1 != v2 || v1 == v3 {
		t.Errorf("derived ids: %q %q %q %q (set %v), want one per address and user agent", v1, s1, v2, v3, set)
	}
	if v, s, _ := identify(http.Header{}, other, "203.0.113.9", "curl", "vis", ""); v != "vis" || s != v1 {
		t.Errorf("a read with a visitor cookie only: visitor %q session %q, want vis and %q", v, s, v1)
	}
}

func TestLanguage(t *testing.T) {
	for header, want := range map[string]string{
		"":                                  "",
		"fr-CH, fr;q=0.9, en;q=0.8":         "fr-CH",
		"en;q=0.9,de":                       "en",
		" de ":                              "de",
		"*":                                 "",
		"x<y":                               "",
		"en-US-" + string(make([]byte, 40)): "",
	} {
		if got := language(header); got != want {
			t.Errorf("language(%q) = %q, want %q", header, got, want)
		}
	}
}
