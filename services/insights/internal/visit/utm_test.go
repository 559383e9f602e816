package visit

import (
	"net/url"
	"testing"
)

// utmOfValues is what utm must give: url.ParseQuery's Get of each key.
func utmOfValues(raw string) [5]string {
	q, _ := url.ParseQuery(raw)
	var out [5]string
	for i, k := range utmKeys {
		out[i] = q.Get(k)
	}
	return out
}

var utmQueries = []string{
	"",
	"a=1&b=2",
	"utm_source=news&utm_medium=email&utm_campaign=launch&utm_term=docs&utm_content=top",
	"utm_source=first&utm_source=second",
	"utm_source=a+b%20c&utm_term=%E2%9C%93",
	"%75tm_source=escaped-key&utm%5Fmedium=escaped-underscore",
	"utm_source=bad%zz&utm_source=good",
	"utm_source=x;y&utm_source=after-semicolon",
	"utm_campaign&utm_term=",
	"&&utm_content=c&",
	"utm_source=%",
	"utm+source=space&utm_source",
}

func TestUTMIsParseQuerys(t *testing.T) {
	for _, raw := range utmQueries {
		var got [5]string
		got[0], got[1], got[2], got[3], got[4] = utm(raw)
		if want := utmOfValues(raw); got != want {
			t.Errorf("utm(%q) = %q; want %q (url.ParseQuery)", raw, got, want)
		}
	}
}

func FuzzUTM(f *testing.F) {
	for _, raw := range utmQueries {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var got [5]string
		got[0], got[1], got[2], got[3], got[4] = utm(raw)
		if want := utmOfValues(raw); got != want {
			t.Errorf("utm(%q) = %q; want %q (url.ParseQuery)", raw, got, want)
		}
	})
}

func BenchmarkUTM(b *testing.B) {
	u, _ := url.Parse("https://docs.example.com/guides/start?ref=home&lang=en&utm_source=newsletter&utm_campaign=launch")
	b.ReportAllocs()
	for b.Loop() {
		_, _, _, _, _ = utm(u.RawQuery)
	}
}

func BenchmarkUTMOfValues(b *testing.B) {
	u, _ := url.Parse("https://docs.example.com/guides/start?ref=home&lang=en&utm_source=newsletter&utm_campaign=launch")
	b.ReportAllocs()
	for b.Loop() {
		_ = utmOfValues(u.RawQuery)
	}
}
