package readerhttp_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/golang-jwt/jwt/v5"

	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestStoredConditionIsNeverRun: a condition stored before conditions
// were checked (written here straight into the database: the API refuses
// it) is checked again when the reader compiles it; refused, it matches no
// visitor, is logged, and is never run: the page answers at once.
func TestStoredConditionIsNeverRun(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Stable", contenttest.Doc("p1", "Stable", "stable", "Stable docs."))
	e.content.AddSpace("sp2", "acme", "Preview", contenttest.Doc("p2", "Preview", "preview", "Preview docs."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	var preview map[string]any
	for _, ss := range e.call("ada", "GET", sitePath+"/site-spaces", "", 200)["items"].([]any) {
		if m := ss.(map[string]any); str(m, "space", "id") == "sp2" {
			preview = m
		}
	}
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)
	const loops = `let r = 1..1000; visitor.claims.unsigned.preview == true && all(r, {all(r, {all(r, {true})})})`
	e.call("ada", "PATCH", sitePath+"/site-spaces/"+str(preview, "id"), `{"condition":"`+loops+`"}`, 400)
	if _, err := e.db.Collection(sitemongo.SiteSpaces).UpdateOne(context.Background(), bson.M{"_id": str(preview, "id")},
		bson.M{"$set": bson.M{"condition": loops}}); err != nil {
		t.Fatal(err)
	}
	e.call("ada", "PATCH", sitePath, `{"title":"Docs again"}`, 200) // drops the cached structure

	start := time.Now()
	p := e.want(url+"?visitor.preview=true", 200)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the page took %s", took)
	}
	if strings.Contains(p.body, ">Preview</a>") {
		t.Errorf("a refused condition matched: %s", p.body)
	}
	e.want(str(preview, "urls", "published")+"?visitor.preview=true", 404)
	if log := e.readerLog.String(); !strings.Contains(log, "condition refused") || !strings.Contains(log, "declares a variable") {
		t.Errorf("reader log %q: want the refused condition", log)
	}
}

// Markers of the branches of condPage, each in one branch.
const (
	markAll    = "MARKALLREADERS" // outside any block
	markIf     = "MARKIFENTERPRISE"
	markElif   = "MARKELIFPRO"
	markElse   = "MARKELSEOTHERS"
	markNot    = "MARKNOTENTERPRISE" // {% if !visitor.claims.enterprise %}
	markNested = "MARKNESTEDPROENT"  // pro inside enterprise
	markCode   = "MARKINCODE"        // {% if %} in a fenced code block: code
)

var condMarks = []string{markAll, markIf, markElif, markElse, markNot, markNested, markCode}

const condPage = "Pricing for " + markAll + ".\n\n" +
	"{% if visitor.claims.enterprise == true %}\nEnterprise " + markIf + ".\n\n" +
	"{% if visitor.claims.unsigned.pro %}\nBoth " + markNested + ".\n{% endif %}\n" +
	"{% elif visitor.claims.unsigned.pro === true %}\nPro " + markElif + ".\n" +
	"{% else %}\nOthers " + markElse + ".\n{% endif %}\n\n" +
	"{% if !visitor.claims.enterprise %}\nNegated " + markNot + ".\n{% endif %}\n\n" +
	"```liquid\n{% if visitor.claims.enterprise %}\n" + markCode + "\n{% endif %}\n```\n"

// TestConditionsOnEveryReaderRoute: a page of {% if %}, {% elif %},
// {% else %}, negated and nested branches shows each branch to exactly
// the readers it is written for, on every route a reader reads text at:
// the page, <page>.md, llms.txt, llms-full.txt, search results and their
// snippets, sitemap.xml; read anonymously and with unsigned claims on a
// public site, and with signed claims on a visitor-auth site. No output
// holds a condition's source but the code block.
func TestConditionsOnEveryReaderRoute(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Guides", contenttest.Doc("p0", "Start", "start", "Start here."),
		contenttest.Doc("p1", "Pricing", "pricing", condPage))
	schema := `{"jsonSchema":{"type":"object","properties":{"enterprise":{"type":"boolean"},
		"unsigned":{"type":"object","properties":{"pro":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`
	pubID, pub := e.site(`{"title":"Public","spaces":["sp1"]}`)
	authID, auth := e.site(`{"title":"Private","spaces":["sp1"],"visibility":"visitor-auth"}`)
	for _, id := range []string{pubID, authID} {
		e.call("ada", "PUT", "/v1/orgs/acme/sites/"+id+"/adaptive-schema", schema, 200)
		e.call("ada", "PATCH", "/v1/orgs/acme/sites/"+id, `{"adaptiveContent":{"enabled":true}}`, 200)
	}
	key := str(e.call("ada", "GET", "/v1/orgs/acme/sites/"+authID+"/publishing/auth", "", 200), "privateKey")
	token := func(claims jwt.MapClaims) string {
		return "jwt_token=" + visitorToken(t, key, time.Now().Add(time.Hour), claims)
	}
	always := []string{markAll, markCode}
	for _, tc := range []struct {
		name, site, query string
		sees              []string
	}{
		{"anonymous", pub, "", []string{markElse, markNot}},
		{"unsigned pro", pub, "visitor.pro=true", []string{markElif, markNot}},
		{"unsigned enterprise is not a signed claim", pub, "visitor.enterprise=true", []string{markElse, markNot}},
		{"signed enterprise", auth, token(jwt.MapClaims{"enterprise": true}), []string{markIf}},
		{"signed enterprise, unsigned pro", auth, token(jwt.MapClaims{"enterprise": true}) + "&visitor.pro=true", []string{markIf, markNested}},
		{"signed, not enterprise", auth, token(jwt.MapClaims{"enterprise": false}), []string{markElse, markNot}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sees := append(slices.Clone(always), tc.sees...)
			first := e.want(tc.site+"?"+tc.query, 200)
			var cookies []*http.Cookie
			for _, name := range []string{reader.CookieVisitor, reader.CookieUnsigned} {
				if c := first.cookie(name); c != nil {
					cookies = append(cookies, c)
				}
			}
			read := func(path string) string { return e.want(tc.site+path, 200, cookies...).body }
			outputs := map[string]string{
				"page":          read("/pricing"),
				"page markdown": read("/pricing.md"),
				"llms-full.txt": read("/llms-full.txt"),
			}
			for _, m := range condMarks {
				if m == markCode {
					continue // code is not searched for: its words are in the index
				}
				results := read("/~search?q=" + strings.ToLower(m))
				outputs["search "+m] = results[max(0, strings.Index(results, `<ol class="results">`)):]
			}
			for name, out := range outputs {
				for _, m := range condMarks {
					// A search's results hold the word searched for when the
					// reader sees it, and never a word hidden from them.
					search, isSearch := strings.CutPrefix(name, "search ")
					want := slices.Contains(sees, m)
					if got := strings.Contains(out, m); got != want && (!isSearch || search == m || !want) {
						t.Errorf("%s: holds %s %v, want %v:\n%s", name, m, got, want, out)
					}
				}
				if strings.Count(out, "visitor.claims") > strings.Count(condPage[strings.Index(condPage, "```"):], "visitor.claims") {
					t.Errorf("%s holds a condition's source:\n%s", name, out)
				}
			}
			for _, path := range []string{"/llms.txt", "/sitemap.xml"} {
				p := e.read(tc.site + path + "?" + tc.query)
				for _, m := range condMarks {
					if strings.Contains(p.body, m) {
						t.Errorf("%s holds %s:\n%s", path, m, p.body)
					}
				}
			}
		})
	}
}
