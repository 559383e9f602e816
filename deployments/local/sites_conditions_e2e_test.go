package local

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/waittest"
	"github.com/golang-jwt/jwt/v5"
)

// Words of the conditional page, each in one place of it.
const (
	condControl    = "pricingcontrol"   // unconditional text of the page
	condIndexed    = "welcomecontrol"   // a page without conditions, searched in content's index
	condEnterprise = "enterprisesecret" // {% if visitor.claims.enterprise == true %}, also in a heading
	condPro        = "promarker"        // {% elif visitor.claims.unsigned.pro === true %}
	condAnon       = "anonmarker"       // {% else %}
	condNegated    = "negatedmarker"    // {% if !visitor.claims.enterprise %}
	condCode       = "codemarker"       // a literal {% if %} in a code block
)

// condBranches are the words of the branches: each reader sees some.
var condBranches = []string{condEnterprise, condPro, condAnon, condNegated}

// condPricing is the conditional page. The filler keeps a search snippet
// of a branch's word (240 runes around it) off the code block.
var condPricing = "# Pricing\n\nPlans for every team: " + condControl + ".\n\n" +
	"{% if visitor.claims.enterprise == true %}\n## Support " + condEnterprise + "\n\nEnterprise plans: " + condEnterprise + ".\n" +
	"{% elif visitor.claims.unsigned.pro === true %}\nPro plans: " + condPro + ".\n" +
	"{% else %}\nOther plans: " + condAnon + ".\n{% endif %}\n\n" +
	"{% if !visitor.claims.enterprise %}\nNot enterprise: " + condNegated + ".\n{% endif %}\n\n" +
	strings.Repeat("Every plan includes hosting, search and a changelog. ", 8) + "\n\n" +
	"```liquid\n{% if visitor.claims.enterprise %}\n" + condCode + "\n{% endif %}\n```\n"

// conditionsRepo is a GitBook repository: a welcome page and condPricing.
func conditionsRepo() map[string][]byte {
	return map[string][]byte{
		"SUMMARY.md": []byte("# Table of contents\n\n* [Welcome](README.md)\n* [Pricing](pricing.md)\n"),
		"README.md":  []byte("# Welcome\n\nThe handbook: " + condIndexed + ".\n"),
		"pricing.md": []byte(condPricing),
	}
}

var (
	fencedCode = regexp.MustCompile("(?s)```.*?```")
	resultsRe  = regexp.MustCompile(`(?s)<ol class="results">.*?</ol>`)
)

// outsideCode is out without its code blocks (HTML or markdown).
func outsideCode(out string) string {
	return fencedCode.ReplaceAllString(codeOrPre.ReplaceAllString(out, ""), "")
}

// TestConditionalBlocksThroughGateway: a page of {% if %}, {% elif %},
// {% else %} and negated branches, synced by Git and published, read
// through the gateway anonymously and with unsigned claims on a public
// site (a token signed with another site's key carries none) and with
// signed claims on a visitor-auth site: its HTML, <page>.md,
// llms-full.txt, llms.txt, sitemap.xml and the site's search (results and
// snippets, content's real index once it holds the page) show each reader
// exactly the branches written for them and no {% tag outside the code
// block, whose literal {% if %} stays code. Content's shared index holds
// no branch's word; the gateway's page cache never answers one reader
// with the page evaluated for another.
func TestConditionalBlocksThroughGateway(t *testing.T) {
	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID

	space := importRepository(t, admin, p.Credentials.DemoOrgID, "Pricing handbook", conditionsRepo())

	schema := map[string]any{"jsonSchema": map[string]any{
		"type": "object", "additionalProperties": false, "properties": map[string]any{
			"enterprise": map[string]any{"type": "boolean"},
			"unsigned": map[string]any{"type": "object", "additionalProperties": false,
				"properties": map[string]any{"pro": map[string]any{"type": "boolean"}}}}}}
	// publish creates a site of the space with the schema, its other
	// settings changed by patch: its API path, published URL and key.
	publish := func(title string, patch map[string]any) (path, url, key string) {
		path = org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{
			"title": title, "spaces": []string{space}}).json(t), "id")
		admin.op("updateSiteAdaptiveSchema", "PUT", path+"/adaptive-schema", schema)
		admin.op("updateSiteById", "PATCH", path, patch)
		url = str(admin.schema("Site", 200, "POST", path+"/publish", nil).json(t), "urls", "published")
		return path, url, str(admin.status(200, "GET", path+"/publishing/auth", nil).json(t), "privateKey")
	}
	adaptive := map[string]any{"enabled": true}
	_, pub, pubKey := publish("Public pricing", map[string]any{"adaptiveContent": adaptive})
	_, auth, authKey := publish("Private pricing", map[string]any{"visibility": "visitor-auth", "adaptiveContent": adaptive})
	token := func(key string, claims jwt.MapClaims) string {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte(key))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	// Content's index holds the page (an event after the import): its
	// unconditional word is found, no branch's word is.
	apiSearch := func(q string) []string {
		var res struct {
			Items []struct {
				Pages []struct {
					Title    string `json:"title"`
					Sections []struct {
						Body string `json:"body"`
					} `json:"sections"`
				} `json:"pages"`
			} `json:"items"`
		}
		if err := json.Unmarshal(admin.op("searchOrganizationContent", "GET", org+"/search?query="+q, nil).Body, &res); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range res.Items {
			for _, pg := range it.Pages {
				out = append(out, pg.Title)
				for _, s := range pg.Sections {
					out = append(out, s.Body)
				}
			}
		}
		return out
	}
	waittest.Until(t, "content's index to hold the pricing page", 60*time.Second, func() bool {
		return slices.Contains(apiSearch(condControl), "Pricing")
	})
	for _, m := range condBranches {
		if got := apiSearch(m); len(got) > 0 {
			t.Errorf("content's index search for %s: %q, want nothing", m, got)
		}
	}
	waittest.Until(t, "the reader's search to find the page without conditions", 60*time.Second, func() bool {
		return strings.Contains(newReader(t).want(200, pub+"/~search?q="+condIndexed), ">Welcome</a>")
	})

	for _, tc := range []struct {
		name  string
		site  string // its URL
		first string // the query of the reader's first read, which sets their cookies
		sees  []string
	}{
		{"anonymous, public site", pub, "", []string{condAnon, condNegated}},
		{"unsigned pro, public site", pub, "visitor.pro=true", []string{condPro, condNegated}},
		{"unsigned enterprise is no signed claim", pub, "visitor.enterprise=true", []string{condAnon, condNegated}},
		{"signed enterprise, public site", pub, "jwt_token=" + token(pubKey, jwt.MapClaims{"enterprise": true}), []string{condEnterprise}},
		{"signed with another site's key", pub, "jwt_token=" + token(authKey, jwt.MapClaims{"enterprise": true}), []string{condAnon, condNegated}},
		{"signed enterprise, visitor-auth site", auth, "jwt_token=" + token(authKey, jwt.MapClaims{"enterprise": true}), []string{condEnterprise}},
		{"signed not enterprise, visitor-auth site", auth, "jwt_token=" + token(authKey, jwt.MapClaims{"enterprise": false}), []string{condAnon, condNegated}},
		{"signed not enterprise, unsigned pro, visitor-auth site", auth,
			"jwt_token=" + token(authKey, jwt.MapClaims{"enterprise": false}) + "&visitor.pro=true", []string{condPro, condNegated}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := newReader(t)
			rd.want(200, tc.site+"?"+tc.first)
			read := func(path string) string { return rd.want(200, tc.site+path) }
			outputs := map[string]string{
				"page":          read("/pricing"),
				"page markdown": read("/pricing.md"),
				"llms-full.txt": read("/llms-full.txt"),
			}
			for _, name := range []string{"page", "page markdown", "llms-full.txt"} {
				if out := outputs[name]; !strings.Contains(out, condControl) || !strings.Contains(out, condCode) ||
					!strings.Contains(out, "{% if visitor.claims.enterprise %}") {
					t.Errorf("%s lacks the unconditional text or the code block's {%% if %%}:\n%s", name, out)
				}
			}
			if code := strings.Join(codeOrPre.FindAllString(outputs["page"], -1), "\n"); !strings.Contains(code, condCode) {
				t.Errorf("the page's code blocks %q lack %s: the literal {%% if %%} is not code", code, condCode)
			}
			for _, q := range append([]string{condControl, condCode}, condBranches...) {
				outputs["search "+q] = resultsRe.FindString(read("/~search?q=" + q))
			}
			for name, out := range outputs {
				q, isSearch := strings.CutPrefix(name, "search ")
				for _, m := range condBranches {
					want := slices.Contains(tc.sees, m)
					// A search's results hold the word searched for when
					// the reader sees it, never a word hidden from them.
					if got := strings.Contains(out, m); got != want && (!isSearch || q == m || !want) {
						t.Errorf("%s: holds %s %v, want %v:\n%s", name, m, got, want, out)
					}
				}
				if isSearch && q == condCode {
					if !strings.Contains(out, ">Pricing</a>") {
						t.Errorf("search %s (code is text of the page): %s", q, out)
					}
					continue // its snippet is the code block's text
				}
				if isSearch && q == condControl && !strings.Contains(out, ">Pricing</a>") {
					t.Errorf("search %s lacks the page: %s", q, out)
				}
				if strings.Contains(outsideCode(out), "{%") {
					t.Errorf("%s holds a {%% tag outside code:\n%s", name, out)
				}
			}
			for _, path := range []string{"/llms.txt", "/sitemap.xml"} {
				if path == "/sitemap.xml" && tc.site == auth {
					rd.want(404, tc.site+path) // a site for some readers is listed for no search engine
					continue
				}
				out := read(path)
				if !strings.Contains(out, "pricing") {
					t.Errorf("%s does not list the page:\n%s", path, out)
				}
				for _, m := range append([]string{condCode}, condBranches...) {
					if strings.Contains(out, m) {
						t.Errorf("%s holds %s:\n%s", path, m, out)
					}
				}
				if strings.Contains(out, "{%") {
					t.Errorf("%s holds a {%% tag:\n%s", path, out)
				}
			}
		})
	}

	// The gateway's page cache: the public page read anonymously, then
	// with claims (unsigned, then signed), then anonymously again: each
	// reader reads the page evaluated for them.
	branchesIn := func(body string) []string {
		var got []string
		for _, m := range condBranches {
			if strings.Contains(body, m) {
				got = append(got, m)
			}
		}
		return got
	}
	anonymous := func(when string) {
		t.Helper()
		for range 2 { // the second read is the one a cache would answer
			r := newReader(t).get(pub+"/pricing", "")
			if got := branchesIn(string(r.Body)); r.Status != 200 || !slices.Equal(got, []string{condAnon, condNegated}) {
				t.Errorf("anonymous reader %s: %d, branches %v, want [%s %s]", when, r.Status, got, condAnon, condNegated)
			}
			// The answer depends on the reader's claims: no shared cache keeps it.
			if cc := r.Header.Get("Cache-Control"); strings.Contains(cc, "public") {
				t.Errorf("anonymous reader %s: Cache-Control %q of a page evaluated for its reader", when, cc)
			}
		}
	}
	anonymous("first")
	for _, c := range []struct {
		query string
		want  []string
	}{
		{"visitor.pro=true", []string{condPro, condNegated}},
		{"jwt_token=" + token(pubKey, jwt.MapClaims{"enterprise": true}), []string{condEnterprise}},
	} {
		rd := newReader(t)
		for _, u := range []string{pub + "/pricing?" + c.query, pub + "/pricing"} {
			if got := branchesIn(rd.want(200, u)); !slices.Equal(got, c.want) {
				t.Errorf("reader with %.30s at %s: branches %v, want %v", c.query, u, got, c.want)
			}
		}
		anonymous("after one with " + c.query[:min(len(c.query), 30)])
	}
}
