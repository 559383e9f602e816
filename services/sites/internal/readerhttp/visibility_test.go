package readerhttp_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/reader"
	"github.com/golang-jwt/jwt/v5"
)

// TestShareLinkSite: a share-link site opens with an active link's key
// (from its urls.published, then from the cookie it sets), not without
// one, not with a deactivated or deleted one.
func TestShareLinkSite(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Handbook", contenttest.Doc("p1", "Welcome", "welcome", "For partners."),
		contenttest.Doc("p2", "More", "more", "More for partners."))
	id, url := e.site(`{"title":"Partners","spaces":["sp1"],"visibility":"share-link"}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	link := e.call("ada", "POST", sitePath+"/share-links", `{"name":"ACME partners"}`, 201)
	shared := str(link, "urls", "published")

	if p := e.want(url, 404); strings.Contains(p.body, "Partners") {
		t.Errorf("without a key the site shows its title: %s", p.body)
	}
	e.want(url+"?shareKey=wrong", 403)
	first := e.want(shared, 200)
	if !strings.Contains(first.body, "For partners.") || first.header.Get("X-Robots-Tag") != "noindex" {
		t.Errorf("with the key: %v %s", first.header, first.body)
	}
	ck := first.cookie(reader.CookieShareKey)
	if ck == nil || !ck.HttpOnly || ck.Path != "/sites/acme/"+id || ck.SameSite != http.SameSiteLaxMode {
		t.Fatalf("share key cookie %+v", ck)
	}
	// Links of the page work with the cookie alone.
	for _, l := range first.navLinks() {
		e.want("http://gw.test"+l, 200, ck)
	}
	e.want(strings.Split(shared, "?")[0]+"/more", 404) // not without it

	e.call("ada", "PATCH", sitePath+"/share-links/"+str(link, "id"), `{"active":false}`, 200)
	e.want(shared, 403)
	p := e.want(url, 403, ck)
	if c := p.cookie(reader.CookieShareKey); c == nil || c.MaxAge >= 0 {
		t.Errorf("an inactive key's cookie is not cleared: %+v", c)
	}
	e.call("ada", "PATCH", sitePath+"/share-links/"+str(link, "id"), `{"active":true}`, 200)
	e.want(url, 200, ck)
	e.call("ada", "DELETE", sitePath+"/share-links/"+str(link, "id"), "", 205)
	e.want(url, 403, ck)
}

func visitorToken(t *testing.T, key string, exp time.Time, claims jwt.MapClaims) string {
	t.Helper()
	c := jwt.MapClaims{"exp": exp.Unix()}
	for k, v := range claims {
		c[k] = v
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestVisitorAuthSite: a visitor-auth site opens with a JWT signed with
// the site's private key (?jwt_token=, then its cookie), sends anyone else
// to its fallbackURL (or answers 401 without one); a regenerated key stops
// old tokens. With adaptive content, a section whose condition the
// token's claims do not meet is absent, and its URL a 404.
func TestVisitorAuthSite(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Guides", contenttest.Doc("p1", "Start", "start", "Everyone reads this."))
	e.content.AddSpace("sp2", "acme", "Beta", contenttest.Doc("b1", "Beta features", "features", "Only for beta."))
	id, url := e.site(`{"title":"Private docs","spaces":["sp1"],"visibility":"visitor-auth"}`)
	sitePath := "/v1/orgs/acme/sites/" + id

	e.want(url, 401)
	auth := e.call("ada", "GET", sitePath+"/publishing/auth", "", 200)
	key := str(auth, "privateKey")
	if str(auth, "object") != "publishing-auth" || str(auth, "backend") != "custom" || len(key) != 43 {
		t.Fatalf("publishing auth %v", auth)
	}
	e.call("rex", "GET", sitePath+"/publishing/auth", "", 403) // the key is for admins
	e.call("eve", "GET", sitePath+"/publishing/auth", "", 404)
	e.call("ada", "PATCH", sitePath+"/publishing/auth", `{"fallbackURL":"javascript:alert(1)"}`, 400)
	e.call("ada", "PATCH", sitePath+"/publishing/auth", `{"fallbackURL":"https://login.acme.test/sso","logoutURL":"https://login.acme.test/out"}`, 200)

	p := e.want(url+"/start", http.StatusFound)
	loc, _ := neturlParse(p.header.Get("Location"))
	if loc.Host != "login.acme.test" || loc.Query().Get("location") != "http://gw.test/sites/acme/"+id+"/start" {
		t.Errorf("redirect to %q", p.header.Get("Location"))
	}
	e.want(url+"?jwt_token="+visitorToken(t, "not the key", time.Now().Add(time.Hour), nil), http.StatusFound)
	e.want(url+"?jwt_token="+visitorToken(t, key, time.Now().Add(-time.Minute), nil), http.StatusFound)

	// Sections: Guides for all, Beta for claims.beta; adaptive content on.
	sec := e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"sp1","title":"Guides"}`, 201)
	beta := e.call("ada", "POST", sitePath+"/sections", `{"spaceId":"sp2","title":"Beta"}`, 201)
	beta = e.call("ada", "PATCH", sitePath+"/sections/"+str(beta, "id"), `{"condition":"visitor.claims.beta == true"}`, 200)
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{"beta":{"type":"boolean"},
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)
	betaURL := str(beta, "urls", "published")
	if betaURL == "" || str(sec, "urls", "published") != url {
		t.Fatalf("section URLs %q %q (site %q)", str(sec, "urls", "published"), betaURL, url)
	}

	plain := e.want(url+"?jwt_token="+visitorToken(t, key, time.Now().Add(time.Hour), jwt.MapClaims{"beta": false}), 200)
	ck := plain.cookie(reader.CookieVisitor)
	if ck == nil || ck.MaxAge <= 0 || ck.MaxAge > 3600 {
		t.Fatalf("visitor cookie %+v", ck)
	}
	if !strings.Contains(plain.body, "Everyone reads this.") || strings.Contains(plain.body, ">Beta<") {
		t.Errorf("claims beta false: %s", plain.body)
	}
	e.want(betaURL, 404, ck)
	e.want(strings.TrimPrefix(betaURL, "http://gw.test")+"/features", 404, ck)

	betaTok := visitorToken(t, key, time.Now().Add(time.Hour), jwt.MapClaims{"beta": true, "email": "bo@acme.test"})
	withBeta := e.want(url+"?jwt_token="+betaTok, 200)
	if !strings.Contains(withBeta.body, ">Beta</a>") {
		t.Errorf("claims beta true: no Beta section: %s", withBeta.body)
	}
	if p := e.want(betaURL, 200, withBeta.cookie(reader.CookieVisitor)); !strings.Contains(p.body, "Only for beta.") {
		t.Errorf("beta section: %s", p.body)
	}

	// A regenerated key stops every token signed with the old one.
	e.call("ada", "POST", sitePath+"/publishing/auth/regenerate", "", 200)
	e.want(url, http.StatusFound, ck)
}

// TestUnsignedClaims: unsigned claims of the adaptive schema come from the
// query (visitor.<name>=true), are kept in a cookie and decide what shows;
// claims the schema does not declare are ignored.
func TestUnsignedClaims(t *testing.T) {
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
	e.call("ada", "PATCH", sitePath+"/site-spaces/"+str(preview, "id"), `{"condition":"visitor.claims.unsigned.preview == true"}`, 200)
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)
	previewURL := str(preview, "urls", "published")

	if p := e.want(url, 200); strings.Contains(p.body, ">Preview</a>") {
		t.Errorf("preview listed without the claim: %s", p.body)
	}
	e.want(previewURL, 404)
	e.want(previewURL+"?visitor.other=true", 404)
	p := e.want(url+"?visitor.preview=true", 200)
	if !strings.Contains(p.body, ">Preview</a>") {
		t.Errorf("preview not listed with the claim: %s", p.body)
	}
	ck := p.cookie(reader.CookieUnsigned)
	if ck == nil {
		t.Fatal("no cookie for the unsigned claims")
	}
	if p := e.want(previewURL, 200, ck); !strings.Contains(p.body, "Preview docs.") {
		t.Errorf("preview with the cookie: %s", p.body)
	}
	e.want(previewURL+"?visitor.preview=false", 404, ck)
}

func neturlParse(s string) (*url.URL, error) { return url.Parse(s) }
