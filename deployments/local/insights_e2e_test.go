package local

import (
	"bytes"
	"encoding/json"
	"net/http"

	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/internaltoken"
)

// User agents of the test visitors and what enrichment must make of them.
var (
	chromeWindows = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"
	firefoxLinux  = "Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0"
	safariIPhone  = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Mobile/15E148 Safari/604.1"
	googlebot     = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"
)

// testEvent is one event the test sends, with what it expects of it.
type testEvent struct {
	typ, visitor, session, path, ua, browser string
	claims                                   map[string]any
	at                                       time.Time
}

func (e testEvent) body() map[string]any {
	ev := map[string]any{
		"type":      e.typ,
		"timestamp": e.at.Format(time.RFC3339Nano),
		"session": map[string]any{
			"visitorId": e.visitor, "sessionId": e.session, "cookies": map[string]any{}, "userAgent": e.ua,
			"language": "en", "referrer": "https://www.example.com/blog?x=1", "ip": "203.0.113.9",
		},
		"location": map[string]any{
			"url": "https://docs.example.com" + e.path + "?utm_source=news", "siteSection": nil, "siteSpace": nil,
			"siteShareKey": nil, "space": nil, "revision": nil, "page": nil,
		},
	}
	if e.claims != nil {
		ev["session"].(map[string]any)["visitorAuthClaims"] = e.claims
	}
	switch e.typ {
	case "search_type_query":
		ev["query"] = "install"
	case "page_post_feedback":
		ev["feedback"] = map[string]any{"rating": "good"}
	case "link_click":
		ev["link"] = map[string]any{"target": map[string]any{"kind": "url", "url": "https://github.com/x"}, "position": "content"}
	}
	return ev
}

// insightsEvents builds a known set of events: several visitors, sessions,
// paths, types, user agents and claims, spread over the last few minutes.
func insightsEvents(now time.Time) []testEvent {
	type v struct {
		id, ua, browser string
		claims          map[string]any
	}
	visitors := []v{
		{"v1", chromeWindows, "chrome", map[string]any{"plan": "pro"}},
		{"v2", firefoxLinux, "firefox", map[string]any{"plan": "pro"}},
		{"v3", safariIPhone, "safari", map[string]any{"plan": "free"}},
		{"v4", chromeWindows, "chrome", nil},
		{"v5", googlebot, "unknown", nil},
	}
	paths := []string{"/", "/guides/install", "/guides/install", "/api", "/guides/install", "/"}
	types := []string{"page_view", "page_view", "search_type_query", "page_view", "page_post_feedback", "link_click", "page_view"}
	var out []testEvent
	n := 0
	for i, vis := range visitors {
		for s := 0; s <= i%3; s++ {
			for k := 0; k < 3+i; k++ {
				out = append(out, testEvent{
					typ: types[n%len(types)], visitor: vis.id, session: fmt.Sprintf("%s-s%d", vis.id, s),
					path: paths[n%len(paths)], ua: vis.ua, browser: vis.browser, claims: vis.claims,
					at: now.Add(-time.Duration(n*4) * time.Second),
				})
				n++
			}
		}
	}
	return out
}

func batch(evs []testEvent) map[string]any {
	bodies := make([]map[string]any, len(evs))
	for i, e := range evs {
		bodies[i] = e.body()
	}
	return map[string]any{"events": bodies}
}

// aggregate posts a query and returns its columns by name (visitorClaim: by "visitorClaim:<claim>").
func aggregate(t *testing.T, c client, site string, q map[string]any) map[string][]any {
	t.Helper()
	r := c.op("aggregateSiteEvents", "POST", site+"/insights/events/aggregate", q)
	if r.Status != 200 {
		t.Fatalf("aggregate %v: %d %s", q, r.Status, r.Body)
	}
	var res struct {
		Columns []struct {
			Column string `json:"column"`
			Claim  string `json:"claim"`
			Values []any  `json:"values"`
		} `json:"columns"`
	}
	if err := json.Unmarshal(r.Body, &res); err != nil {
		t.Fatal(err)
	}
	out := map[string][]any{}
	for _, c := range res.Columns {
		out[c.Column] = c.Values
	}
	return out
}

// checkSegments validates a visitor-segments answer against the contract.
// The public spec's PlainObject (the type of claims) has no "type": object,
// so every string, number or boolean claim value matches two branches of its
// oneOf and no non-empty claims object can validate; the claims are checked
// here to be a JSON object and the rest of the body against the contract.
func checkSegments(t *testing.T, body []byte) {
	t.Helper()
	var list map[string]any
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatalf("segments: %v", err)
	}
	items, _ := list["items"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if _, ok := m["claims"].(map[string]any); !ok {
			t.Errorf("segment claims %v is not an object", m["claims"])
		}
		m["claims"] = map[string]any{}
	}
	b, _ := json.Marshal(list)
	if err := contracttest.CheckOperation("listSiteVisitorSegments", 200, b); err != nil {
		t.Error(err)
	}
}

func count(vs map[string]bool) float64 { return float64(len(vs)) }

func TestInsightsThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	reader := client{t, p.URL, p.Credentials.DemoReaderToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{"title": "Docs site"}).json(t), "id")

	// The site reaches insights through sites.events: 404 until then.
	eventually(t, "the site known to insights", func() bool {
		return admin.do("POST", site+"/insights/events", map[string]any{"events": []any{}}).Status == 204
	})
	now := time.Now().UTC()
	evs := insightsEvents(now)
	admin.op("trackEventsInSiteById", "POST", site+"/insights/events", batch(evs[:20]))
	reader.op("trackEventsInSiteById", "POST", site+"/insights/events", batch(evs[20:])) // any member may ingest

	// What the test expects, computed from the same events.
	visitors, sessions := map[string]bool{}, map[string]bool{}
	byPath := map[string]int{}
	byHour := map[string]int{}
	pageViewsNotFirefox, pvVisitors := 0, map[string]bool{}
	byBrowser := map[string]int{}
	type seg struct {
		events             int
		visitors, sessions map[string]bool
	}
	segs := map[string]*seg{}
	for _, e := range evs {
		visitors[e.visitor], sessions[e.session] = true, true
		byPath[e.path]++
		byHour[e.at.Truncate(time.Hour).Format(time.RFC3339)]++
		byBrowser[e.browser]++
		if e.typ == "page_view" && e.browser != "firefox" {
			pageViewsNotFirefox++
			pvVisitors[e.visitor] = true
		}
		if e.claims != nil {
			k := e.claims["plan"].(string)
			if segs[k] == nil {
				segs[k] = &seg{visitors: map[string]bool{}, sessions: map[string]bool{}}
			}
			segs[k].events++
			segs[k].visitors[e.visitor], segs[k].sessions[e.session] = true, true
		}
	}

	totals := map[string]any{"range": "last24Hours", "select": []any{
		map[string]any{"column": "eventsCount"}, map[string]any{"column": "visitorsCount"}, map[string]any{"column": "sessionsCount"}}}
	eventually(t, "every event counted", func() bool {
		got := aggregate(t, admin, site, totals)
		return len(got["eventsCount"]) == 1 && got["eventsCount"][0] == float64(len(evs))
	})
	got := aggregate(t, reader, site, totals)
	if got["visitorsCount"][0] != count(visitors) || got["sessionsCount"][0] != count(sessions) {
		t.Errorf("visitors, sessions = %v, %v; want %d, %d", got["visitorsCount"], got["sessionsCount"], len(visitors), len(sessions))
	}

	// Top paths by events, limited.
	got = aggregate(t, admin, site, map[string]any{"range": "lastYear", "limit": 2,
		"select":  []any{map[string]any{"column": "urlPath"}, map[string]any{"column": "eventsCount"}},
		"groupBy": []any{map[string]any{"column": "urlPath"}},
		"order":   map[string]any{"by": map[string]any{"column": "eventsCount"}, "direction": "desc"}})
	paths := make([]string, 0, len(byPath))
	for p := range byPath {
		paths = append(paths, p)
	}
	sort.Slice(paths, func(i, j int) bool { return byPath[paths[i]] > byPath[paths[j]] })
	if len(got["urlPath"]) != 2 || got["urlPath"][0] != paths[0] || got["eventsCount"][0] != float64(byPath[paths[0]]) ||
		got["urlPath"][1] != paths[1] || got["eventsCount"][1] != float64(byPath[paths[1]]) {
		t.Errorf("top paths = %v %v; want %v with %v", got["urlPath"], got["eventsCount"], paths[:2], byPath)
	}

	// Hourly buckets, ascending.
	got = aggregate(t, admin, site, map[string]any{"range": "last24Hours",
		"select":  []any{map[string]any{"column": "datetime", "interval": "hour"}, map[string]any{"column": "eventsCount"}},
		"groupBy": []any{map[string]any{"column": "datetime", "interval": "hour"}},
		"order":   map[string]any{"by": map[string]any{"column": "datetime", "interval": "hour"}, "direction": "asc"}})
	hours := map[string]int{}
	for i, h := range got["datetime"] {
		hours[h.(string)] = int(got["eventsCount"][i].(float64))
	}
	if fmt.Sprint(hours) != fmt.Sprint(byHour) {
		t.Errorf("hourly = %v; want %v", hours, byHour)
	}

	// in / notIn filters.
	got = aggregate(t, admin, site, map[string]any{"range": "last7Days",
		"select": []any{map[string]any{"column": "eventsCount"}, map[string]any{"column": "visitorsCount"}},
		"where": []any{map[string]any{"column": "eventType", "values": []any{"page_view"}, "operator": "in"},
			map[string]any{"column": "visitorBrowser", "values": []any{"firefox"}, "operator": "notIn"}}})
	if got["eventsCount"][0] != float64(pageViewsNotFirefox) || got["visitorsCount"][0] != count(pvVisitors) {
		t.Errorf("page views not in firefox = %v (%v visitors); want %d (%d)", got["eventsCount"], got["visitorsCount"], pageViewsNotFirefox, len(pvVisitors))
	}

	// Browsers from the user agents; empty select = groupBy columns, then eventsCount.
	got = aggregate(t, admin, site, map[string]any{"range": "last7Days", "groupBy": []any{map[string]any{"column": "visitorBrowser"}}})
	browsers := map[string]int{}
	for i, b := range got["visitorBrowser"] {
		browsers[b.(string)] = int(got["eventsCount"][i].(float64))
	}
	if fmt.Sprint(browsers) != fmt.Sprint(byBrowser) {
		t.Errorf("browsers = %v; want %v", browsers, byBrowser)
	}

	// Visitor segments.
	r := admin.status(200, "GET", site+"/insights/visitor-segments", nil)
	checkSegments(t, r.Body)
	var list struct {
		Items []struct {
			Title                      string
			Claims                     map[string]any
			Events, Visitors, Sessions float64
		}
	}
	if err := json.Unmarshal(r.Body, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != len(segs) {
		t.Fatalf("segments = %s; want %d", r.Body, len(segs))
	}
	for _, it := range list.Items {
		s := segs[it.Claims["plan"].(string)]
		if s == nil || it.Events != float64(s.events) || it.Visitors != count(s.visitors) || it.Sessions != count(s.sessions) || !strings.Contains(it.Title, "plan") {
			t.Errorf("segment %+v; want %+v", it, s)
		}
	}

	// A platform service (sites, for anonymous readers) ingests with an
	// internal token minted for it, on insights' own address.
	signer, err := internaltoken.NewSigner("sites", p.InternalTokenSecret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := signer.Mint("insights", internaltoken.Principal{Service: "sites"})
	forContent, _ := signer.Mint("content", internaltoken.Principal{Service: "sites"})
	stranger, _ := signer.Mint("insights", internaltoken.Principal{UserID: "someone", Roles: map[string]string{"another-org": "admin"}})
	for _, tc := range []struct {
		token string
		want  int
	}{{svc, 204}, {forContent, 401}, {stranger, 404}, {"", 401}} {
		body, _ := json.Marshal(batch(evs[:1]))
		req, _ := http.NewRequest("POST", p.InsightsURL+site+"/insights/events", bytes.NewReader(body))
		req.Header.Set(internaltoken.Header, tc.token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("ingest with internal token %q…: %d, want %d", tc.token[:min(len(tc.token), 10)], res.StatusCode, tc.want)
		}
	}

	// A batch sent without a length (chunked) is read whole (the same event
	// again: counted once); a body past 1 MiB is a 413.
	one, _ := json.Marshal(batch(evs[:1]))
	for _, tc := range []struct {
		body io.Reader
		want int
	}{
		{io.MultiReader(bytes.NewReader(one)), 204},
		{strings.NewReader(`{"events":[{"type":"` + strings.Repeat("a", 1<<20) + `"}]}`), 413},
	} {
		req, _ := http.NewRequest("POST", p.InsightsURL+site+"/insights/events", tc.body)
		req.Header.Set(internaltoken.Header, svc)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("ingest of %d announced bytes (0: chunked): %d %s, want %d", req.ContentLength, res.StatusCode, out, tc.want)
		}
	}

	// Another organization sees no site; bad input is a 400 naming the field.
	other.status(404, "POST", site+"/insights/events", batch(evs[:1]))
	other.status(404, "POST", site+"/insights/events/aggregate", totals)
	other.status(404, "GET", site+"/insights/visitor-segments", nil)
	client{t, p.URL, ""}.status(401, "GET", site+"/insights/visitor-segments", nil)
	admin.status(404, "POST", org+"/sites/nosuchsite/insights/events", batch(evs[:1]))

	bad := func(wantInMessage string, path string, body any) {
		t.Helper()
		r := admin.status(400, "POST", site+path, body)
		if !strings.Contains(string(r.Body), wantInMessage) {
			t.Errorf("400 %s does not name %q", r.Body, wantInMessage)
		}
	}
	bad("request body is required", "/insights/events", nil)
	unknown := batch(evs[:4])
	unknown["events"].([]map[string]any)[3]["type"] = "page_explode"
	bad("events[3].type", "/insights/events", unknown)
	late := batch(evs[:2])
	late["events"].([]map[string]any)[1]["timestamp"] = now.Add(10 * time.Minute).Format(time.RFC3339)
	bad("events[1].timestamp", "/insights/events", late)
	noSession := batch(evs[:1])
	delete(noSession["events"].([]map[string]any)[0], "session")
	bad("events[0].session", "/insights/events", noSession)
	noLocation := batch(evs[:1])
	delete(noLocation["events"].([]map[string]any)[0], "location")
	bad("events[0].location", "/insights/events", noLocation)
	noQuery := batch([]testEvent{{typ: "search_type_query", visitor: "x", session: "y", path: "/", ua: firefoxLinux, at: now}})
	delete(noQuery["events"].([]map[string]any)[0], "query")
	bad("events[0].query", "/insights/events", noQuery)
	var many []testEvent
	for len(many) <= 1000 {
		many = append(many, evs...)
	}
	bad("events", "/insights/events", batch(many[:1001]))
	bad("events", "/insights/events", map[string]any{})

	bad("range", "/insights/events/aggregate", map[string]any{})
	bad("range", "/insights/events/aggregate", map[string]any{"range": "lastCentury"})
	bad("limit", "/insights/events/aggregate", map[string]any{"range": "lastYear", "limit": 0})
	bad("limit", "/insights/events/aggregate", map[string]any{"range": "lastYear", "limit": 1001})
	bad("groupBy[0].column", "/insights/events/aggregate", map[string]any{"range": "lastYear", "groupBy": []any{map[string]any{"column": "eventsCount"}}})
	bad("select[0].column", "/insights/events/aggregate", map[string]any{"range": "lastYear", "select": []any{map[string]any{"column": "nope"}}})
	bad("select[0].interval", "/insights/events/aggregate", map[string]any{"range": "lastYear", "select": []any{map[string]any{"column": "urlPath", "interval": "day"}}})
	bad("where[0].values[0]", "/insights/events/aggregate", map[string]any{"range": "lastYear", "where": []any{map[string]any{"column": "hourOfDay", "values": []any{"noon"}}}})
	bad("where[0].operator", "/insights/events/aggregate", map[string]any{"range": "lastYear", "where": []any{map[string]any{"column": "urlPath", "values": []any{"/"}, "operator": "greaterThan"}}})
	bad("order.by.column", "/insights/events/aggregate", map[string]any{"range": "lastYear", "order": map[string]any{"by": map[string]any{"column": "urlPath"}, "direction": "asc"}})
	bad("range.to", "/insights/events/aggregate", map[string]any{"range": map[string]any{"from": now.Format(time.RFC3339), "to": now.Add(-time.Hour).Format(time.RFC3339)}})
}
