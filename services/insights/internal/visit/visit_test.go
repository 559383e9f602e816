package visit

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/google/go-cmp/cmp"
	"github.com/maxmind/mmdbwriter"
	"github.com/maxmind/mmdbwriter/mmdbtype"
)

var now = time.Date(2026, 5, 4, 12, 0, 0, 0, time.UTC)

// event returns a valid event of typ with extra fields, as JSON.
func event(typ string, extra map[string]any) map[string]any {
	ev := map[string]any{
		"type": typ, "timestamp": now.Add(-time.Minute).Format(time.RFC3339),
		"session": map[string]any{"visitorId": "v1", "sessionId": "s1", "cookies": map[string]any{},
			"userAgent": "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", "language": "fr",
			"referrer": "https://www.Example.com/from", "ip": "203.0.113.9", "visitorAuthClaims": map[string]any{"plan": "pro"}},
		"location": map[string]any{"url": "https://docs.example.com/guides/install?utm_source=news&utm_medium=mail&utm_campaign=may",
			"siteSection": "sec", "siteSpace": nil, "siteShareKey": nil, "space": "sp", "revision": nil, "page": "pg"},
	}
	for k, v := range extra {
		ev[k] = v
	}
	return ev
}

// extras are valid extra fields of each type that needs some.
var extras = map[string]map[string]any{
	"page_markdown_request":      {"markdownSource": "page-action"},
	"search_type_query":          {"query": "install"},
	"search_open_result":         {"query": "install", "result": map[string]any{"recordId": "r1"}},
	"page_post_feedback":         {"feedback": map[string]any{"rating": "good"}},
	"page_post_feedback_comment": {"feedback": map[string]any{"rating": "bad", "comment": "unclear"}},
	"ask_question":               {"query": "how?"},
	"ask_rate_response":          {"query": "how?", "rating": -1, "responseId": "r"},
	"link_click":                 {"link": map[string]any{"target": map[string]any{"kind": "url", "url": "https://www.github.com/x"}, "position": "sidebar"}},
	"api_client_open":            {"operation": map[string]any{"path": "/pets", "method": "get"}},
	"api_client_request":         {"operation": map[string]any{"path": "/pets", "method": "post"}},
	"trademark_click":            {"placement": "footer"},
	"ad_click":                   {"ad": map[string]any{"domain": "ads.example", "zoneId": "z", "placement": "aside"}},
	"ad_display":                 {"ad": map[string]any{"domain": "ads.example", "zoneId": "z", "placement": "aside"}},
	"llms_request":               {"llmsVariant": "full"},
}

func check(t *testing.T, evs ...map[string]any) error {
	t.Helper()
	_, err := checked(evs...)
	return err
}

// checked decodes evs as one batch and checks them as IngestEvents does.
func checked(evs ...map[string]any) ([]Event, error) {
	raw := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		raw[i], _ = json.Marshal(e)
	}
	decoded, err := Decode(raw)
	if err != nil {
		return nil, err
	}
	var p apierr.Problems
	var urls parsedURLs
	for i := range decoded {
		decoded[i].check(&p, i, now, &urls)
	}
	return decoded, p.Err()
}

// TestBatchURLsAreEachEvents: a batch's check reuses a URL it read for an
// event before only when the text is the same; a bad URL after a good one
// is refused, and each event keeps its own.
func TestBatchURLsAreEachEvents(t *testing.T) {
	with := func(referrer, location string) map[string]any {
		ev := event("page_view", nil)
		ev["session"].(map[string]any)["referrer"] = referrer
		ev["location"].(map[string]any)["url"] = location
		return ev
	}
	a, b := with("https://a.example/x", "https://docs.example.com/one?utm_source=news"), with("https://www.b.example/y", "https://docs.example.com/two")
	evs, err := checked(a, a, b, a)
	if err != nil {
		t.Fatal(err)
	}
	s := New(nil, nil, nil, func() time.Time { return now })
	for i, want := range [][3]string{{"a.example", "/one", "news"}, {"a.example", "/one", "news"}, {"b.example", "/two", ""}, {"a.example", "/one", "news"}} {
		var v Visit
		s.enrich(&v, &evs[i], now)
		if got := [3]string{v.Dims.ReferrerDomain, v.Dims.URLPath, v.Dims.UTMSource}; got != want {
			t.Errorf("event %d: referrer domain, path, utm_source %q; want %q", i, got, want)
		}
	}
	for _, bad := range []map[string]any{with("/relative", "https://docs.example.com/one"), with("https://a.example/x", "docs.example.com/one")} {
		err := check(t, a, bad)
		if err == nil || !strings.Contains(err.Error(), "events[1].") {
			t.Errorf("a bad URL after a good one: %v", err)
		}
	}
}

// everySite says every site exists.
type everySite struct{}

func (everySite) Exists(context.Context, string, string) (bool, error) { return true, nil }

// copyingLog keeps a copy of each batch appended, as a log must (the
// visits are reused for the next batch).
type copyingLog struct{ batches [][]Visit }

func (l *copyingLog) Append(_ context.Context, _, _ string, visits []Visit) error {
	l.batches = append(l.batches, slices.Clone(visits))
	return nil
}

// A batch's visits are its own: the ones IngestEvents reuses from a batch
// before carry nothing of it (a referrer, a claim, more visits).
func TestBatchesReuseNoVisit(t *testing.T) {
	log := &copyingLog{}
	s := New(everySite{}, log, nil, func() time.Time { return now })
	first := event("page_view", nil)
	first["session"].(map[string]any)["referrer"] = "https://a.example/x"
	second := event("page_view", nil)
	delete(second["session"].(map[string]any), "referrer")
	delete(second["session"].(map[string]any), "visitorAuthClaims")
	for _, batch := range [][]map[string]any{{first, first, first}, {second}, {first, first}} {
		evs, err := checked(batch...)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.IngestEvents(context.Background(), "org", "site", evs); err != nil {
			t.Fatal(err)
		}
	}
	if len(log.batches) != 3 || len(log.batches[0]) != 3 || len(log.batches[1]) != 1 || len(log.batches[2]) != 2 {
		t.Fatalf("batches appended: %d", len(log.batches))
	}
	want := enrichOne(t, s, second)
	if diff := cmp.Diff(log.batches[1][0], want); diff != "" {
		t.Errorf("the second batch's visit (-got +want):\n%s", diff)
	}
	if got := log.batches[2][1].Dims.ReferrerDomain; got != "a.example" {
		t.Errorf("the third batch's referrer domain %q", got)
	}
}

func TestEveryTypeIsAcceptedWithItsFields(t *testing.T) {
	for _, typ := range Types {
		if err := check(t, event(typ, extras[typ])); err != nil {
			t.Errorf("%s: %v", typ, err)
		}
	}
}

func TestInvalidEventsNameTheField(t *testing.T) {
	late := event("page_view", nil)
	late["timestamp"] = now.Add(6 * time.Minute).Format(time.RFC3339)
	early := event("page_view", nil)
	early["timestamp"] = now.Add(-6 * time.Minute).Format(time.RFC3339)
	noSession, noLocation := event("page_view", nil), event("page_view", nil)
	delete(noSession, "session")
	delete(noLocation, "location")
	badVisitor := event("page_view", nil)
	badVisitor["session"].(map[string]any)["visitorId"] = 7
	badURL := event("page_view", nil)
	badURL["location"].(map[string]any)["url"] = "not a url"
	badCookies := event("page_view", nil)
	badCookies["session"].(map[string]any)["cookies"] = []any{"a=1"}
	tests := []struct {
		name  string
		event map[string]any
		field string
	}{
		{"unknown type", event("page_explode", nil), "events[1].type"},
		{"timestamp ahead", late, "events[1].timestamp"},
		{"timestamp behind", early, "events[1].timestamp"},
		{"no session", noSession, "events[1].session"},
		{"no location", noLocation, "events[1].location"},
		{"visitor id of the wrong type", badVisitor, "events[1].session.visitorId"},
		{"relative url", badURL, "events[1].location.url"},
		{"cookies not an object", badCookies, "events[1].session.cookies"},
		{"search without query", event("search_type_query", nil), "events[1].query"},
		{"feedback rating", event("page_post_feedback", map[string]any{"feedback": map[string]any{"rating": "great"}}), "events[1].feedback.rating"},
		{"comment without text", event("page_post_feedback_comment", map[string]any{"feedback": map[string]any{"rating": "ok"}}), "events[1].feedback.comment"},
		{"ask rating", event("ask_rate_response", map[string]any{"query": "q", "responseId": "r", "rating": 2}), "events[1].rating"},
		{"link position", event("link_click", map[string]any{"link": map[string]any{"target": map[string]any{"kind": "url"}, "position": "top"}}), "events[1].link.position"},
		{"link target", event("link_click", map[string]any{"link": map[string]any{"target": "x", "position": "content"}}), "events[1].link.target"},
		{"operation", event("api_client_open", nil), "events[1].operation"},
		{"placement", event("trademark_click", map[string]any{"placement": "moon"}), "events[1].placement"},
		{"ad", event("ad_click", map[string]any{"ad": map[string]any{"domain": "d", "zoneId": "z"}}), "events[1].ad.placement"},
		{"llms variant", event("llms_request", nil), "events[1].llmsVariant"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := check(t, event("page_view", nil), tc.event)
			if !apierr.IsInvalid(err) || !strings.HasPrefix(err.Error(), tc.field+":") {
				t.Errorf("error = %v; want a 400 naming %s", err, tc.field)
			}
		})
	}
}

func TestBatchOverTheMaximumIsRefused(t *testing.T) {
	raw := make([]json.RawMessage, MaxEvents+1)
	for i := range raw {
		raw[i] = json.RawMessage(`{}`)
	}
	if _, err := Decode(raw); !apierr.IsInvalid(err) || !strings.HasPrefix(err.Error(), "events:") {
		t.Errorf("error = %v; want a 400 naming events", err)
	}
}

// writeGeo writes a MaxMind database that places 203.0.113.0/24 in France.
func writeGeo(t *testing.T) string {
	t.Helper()
	tree, err := mmdbwriter.New(mmdbwriter.Options{DatabaseType: "GeoLite2-Country", IncludeReservedNetworks: true, RecordSize: 24})
	if err != nil {
		t.Fatal(err)
	}
	_, network, _ := net.ParseCIDR("203.0.113.0/24")
	if err := tree.Insert(network, mmdbtype.Map{"country": mmdbtype.Map{"iso_code": mmdbtype.String("FR")}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "geo.mmdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := tree.WriteTo(f); err != nil {
		t.Fatal(err)
	}
	return path
}

func enrichOne(t *testing.T, s *Service, ev map[string]any) Visit {
	t.Helper()
	evs, err := checked(ev)
	if err != nil {
		t.Fatal(err)
	}
	var v Visit
	s.enrich(&v, &evs[0], now)
	return v
}

func TestEnrichment(t *testing.T) {
	geo, err := OpenGeo(writeGeo(t))
	if err != nil {
		t.Fatal(err)
	}
	defer geo.Close()
	s := New(nil, nil, geo, func() time.Time { return now })
	got := enrichOne(t, s, event("link_click", extras["link_click"]))
	want := Visit{Time: now.Add(-time.Minute), Visitor: "v1", Session: "s1", Dims: Dims{
		EventType: "link_click", URL: "https://docs.example.com/guides/install?utm_source=news&utm_medium=mail&utm_campaign=may",
		URLPath: "/guides/install", SiteSection: "sec", DisplayContext: "site", Space: "sp", Page: "pg",
		GeoCountry: "FR", Device: "desktop", Browser: "firefox", OS: "linux", Language: "fr",
		Referrer: "https://www.Example.com/from", ReferrerDomain: "example.com", UTMSource: "news", UTMMedium: "mail", UTMCampaign: "may",
		Authenticated: true, Claims: `{"plan":"pro"}`,
		LinkTarget: `{"kind":"url","url":"https://www.github.com/x"}`, LinkKind: "url", LinkDomain: "github.com", LinkPosition: "sidebar",
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("visit (-want +got):\n%s", diff)
	}
	if b, _ := json.Marshal(got); strings.Contains(string(b), "203.0.113") {
		t.Errorf("the visit keeps the IP address: %s", b)
	}
	// Without a database the country is null.
	if v := enrichOne(t, New(nil, nil, nil, nil), event("page_view", nil)); v.Dims.GeoCountry != "" {
		t.Errorf("country without GEOIP_DB = %q", v.Dims.GeoCountry)
	}
}

func TestUserAgents(t *testing.T) {
	tests := []struct {
		ua   string
		want Agent
	}{
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36", Agent{"chrome", "windows", "desktop", ""}},
		{"Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15", Agent{"safari", "macos", "desktop", ""}},
		{"Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1", Agent{"safari", "ios", "mobile", ""}},
		{"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Mobile Safari/537.36", Agent{"chrome", "android", "mobile", ""}},
		{"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36 Edg/124.0.0.0", Agent{"edge", "windows", "desktop", ""}},
		{"Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", Agent{"unknown", "unknown", "unknown", "googlebot"}},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.2; +https://openai.com/gptbot)", Agent{"unknown", "unknown", "unknown", "gptbot"}},
		{"Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)", Agent{"unknown", "unknown", "unknown", "claudebot"}},
	}
	a := NewAgents()
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.want), func(t *testing.T) {
			got := a.Parse(tc.ua)
			if tc.want.Bot != "" { // a crawler's browser and OS are whatever it claims
				got.Browser, got.OS, got.Device = tc.want.Browser, tc.want.OS, tc.want.Device
			}
			if got != tc.want {
				t.Errorf("Parse = %+v; want %+v", got, tc.want)
			}
			if again := a.Parse(tc.ua); again.Bot != got.Bot {
				t.Errorf("cached answer differs")
			}
		})
	}
}

// BenchmarkDecode decodes a batch of 100 page views, as Ingest does.
//
//	go test -run '^$' -bench Decode ./services/insights/internal/visit/
func BenchmarkDecode(b *testing.B) {
	raw := make([]json.RawMessage, 100)
	for i := range raw {
		raw[i], _ = json.Marshal(event("page_view", nil))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Decode(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// ingestShapeBody is a batch of 100 page views shaped like the ingest
// benchmark's (deployments/local BenchmarkInsightsIngest): 25 visitors,
// 50 sessions, 25 pages with a UTM source, one referrer.
func ingestShapeBody() []byte {
	evs := make([]map[string]any, 100)
	for i := range evs {
		ev := event("page_view", nil)
		ev["session"].(map[string]any)["visitorId"] = fmt.Sprintf("v%d", i/4)
		ev["session"].(map[string]any)["sessionId"] = fmt.Sprintf("s%d", i/2)
		delete(ev["session"].(map[string]any), "visitorAuthClaims")
		ev["location"].(map[string]any)["url"] = fmt.Sprintf("https://docs.example.com/guides/%d?utm_source=news", i%25)
		evs[i] = ev
	}
	body, _ := json.Marshal(map[string]any{"events": evs})
	return body
}

// BenchmarkDecodeBatch decodes a batch of 100 page views shaped like the
// ingest benchmark's, as the hot path does.
//
//	go test -run '^$' -bench DecodeBatch ./services/insights/internal/visit/
func BenchmarkDecodeBatch(b *testing.B) {
	body := ingestShapeBody()
	b.ReportAllocs()
	for b.Loop() {
		if _, ok := DecodeBatch(body); !ok {
			b.Fatal("not decoded")
		}
	}
}

// BenchmarkCheckAndEnrichBatch checks and enriches a batch of 100 page
// views shaped like the ingest benchmark's, as IngestEvents does.
//
//	go test -run '^$' -bench CheckAndEnrich ./services/insights/internal/visit/
func BenchmarkCheckAndEnrichBatch(b *testing.B) {
	events, ok := DecodeBatch(ingestShapeBody())
	if !ok {
		b.Fatal("not decoded")
	}
	s := New(nil, nil, nil, nil)
	visits := make([]Visit, len(events))
	b.ReportAllocs()
	for b.Loop() {
		checkBatch(b, events)
		for i := range events {
			visits[i] = Visit{}
			s.enrich(&visits[i], &events[i], now)
		}
	}
}

// BenchmarkCheck checks a batch of 100 valid page views, as Ingest does.
//
//	go test -run '^$' -bench Check ./services/insights/internal/visit/
func BenchmarkCheck(b *testing.B) {
	raw := make([]json.RawMessage, 100)
	for i := range raw {
		raw[i], _ = json.Marshal(event("page_view", nil))
	}
	events, err := Decode(raw)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		checkBatch(b, events)
	}
}

// checkBatch checks a batch's events as IngestEvents does; they must pass.
func checkBatch(tb testing.TB, events []Event) {
	var p apierr.Problems
	var urls parsedURLs
	for i := range events {
		events[i].check(&p, i, now, &urls)
	}
	if err := p.Err(); err != nil {
		tb.Fatal(err)
	}
}

// DecodeBatch reads a batch in one pass as Decode reads its events one by
// one, and leaves to Decode every batch whose errors Decode names.
func TestDecodeBatchIsDecode(t *testing.T) {
	var evs []map[string]any
	for _, typ := range Types {
		evs = append(evs, event(typ, extras[typ]))
	}
	body, _ := json.Marshal(map[string]any{"events": evs})
	got, ok := DecodeBatch(body)
	if !ok {
		t.Fatal("a valid batch was not decoded in one pass")
	}
	raw := make([]json.RawMessage, len(evs))
	for i, e := range evs {
		raw[i], _ = json.Marshal(e)
	}
	want, err := Decode(raw)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(Event{})); diff != "" {
		t.Errorf("one pass differs from Decode (-Decode +DecodeBatch):\n%s", diff)
	}

	tooMany := `{"events":[` + strings.TrimSuffix(strings.Repeat(`{"type":"page_view"},`, MaxEvents+1), ",") + `]}`
	for _, body := range []string{`{"events":[null]}`, `{"events":[{}]}`, `{"events":[1]}`, `{"events":[{"type":3}]}`,
		`{"events":null}`, `{}`, `[]`, `{"events":[`, tooMany} {
		if _, ok := DecodeBatch([]byte(body)); ok {
			t.Errorf("%.60s: decoded in one pass, want it left to Decode", body)
		}
	}
}
