package views

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/readerapi"
)

// Insights cookies: who reads, across visits and within one.
const (
	CookieVisitorID = "docspub_vid"
	CookieSessionID = "docspub_sid"
)

// Bounds of insights events (the insights service's): claims or a URL
// over them are left out, since insights refuses a whole batch for one
// event it cannot take.
const (
	maxClaimsBytes = 4096
	maxURL         = 2048
	maxUserAgent   = 1024
	maxCookie      = 64
	maxCookies     = 3000 // of a request, net/http's (GODEBUG httpcookiemaxnum's default)
)

// Header is where View adds the reader's cookies: an answer's headers,
// whichever server writes it (net/http's http.Header, fasthttp's
// *ResponseHeader).
type Header interface{ Add(name, value string) }

// Request is what a read's event takes of the reader's request, whichever
// server read it (net/http's RequestOf, or the readers' edge).
type Request struct {
	UserAgent, AcceptLanguage, Referer string
	// Cookies are its Cookie lines.
	Cookies []string
}

// RequestOf is what a read's event takes of r.
func RequestOf(r *http.Request) Request {
	return Request{UserAgent: r.Header.Get("User-Agent"), AcceptLanguage: r.Header.Get("Accept-Language"),
		Referer: r.Header.Get("Referer"), Cookies: r.Header["Cookie"]}
}

// View queues the event of view v read by r from client (its address),
// displayContext server. The reader's visitor and session ids are cookies
// a page view sets (in out, the answer's headers: it reports whether it
// set them); without them (robots, agents) they derive from the address
// and user agent.
func (rec *Recorder) View(out Header, r Request, client string, v readerapi.View) (setCookies bool) {
	ua := r.UserAgent
	if len(ua) > maxUserAgent {
		ua = ua[:maxUserAgent]
	}
	visitorID, sessionID := insightsCookies(r.Cookies)
	if visitorID == "" || sessionID == "" {
		visitorID, sessionID, setCookies = identify(out, v, client, ua, visitorID, sessionID)
	}
	if len(v.URL) > maxURL {
		return setCookies
	}
	rec.Record(Event{Organization: v.Organization, Site: v.Site,
		Body: event(v, newSession(r, client, ua, visitorID, sessionID, v.Claims))})
	return setCookies
}

// identify fills the visitor and session ids a reader has no cookie of:
// a page view sets them as cookies of the site's path, other reads derive
// them from the address and user agent.
func identify(out Header, v readerapi.View, client, ua, visitorID, sessionID string) (string, string, bool) {
	var derived string
	set := false
	if v.Type == "page_view" {
		if visitorID == "" || sessionID == "" {
			derived = ids.New()
		}
		if visitorID == "" {
			visitorID, set = derived, true
			setCookie(out, &http.Cookie{Name: CookieVisitorID, Value: visitorID, Path: v.CookiePath,
				MaxAge: 365 * 24 * 3600, HttpOnly: true, Secure: v.Secure, SameSite: http.SameSiteLaxMode})
		}
		if sessionID == "" {
			sessionID, set = derived, true
			setCookie(out, &http.Cookie{Name: CookieSessionID, Value: sessionID, Path: v.CookiePath,
				HttpOnly: true, Secure: v.Secure, SameSite: http.SameSiteLaxMode})
		}
	} else if visitorID == "" || sessionID == "" {
		sum := sha256.Sum256([]byte(client + "\x00" + ua))
		derived = hex.EncodeToString(sum[:12])
	}
	if visitorID == "" {
		visitorID = derived
	}
	if sessionID == "" {
		sessionID = derived
	}
	return visitorID, sessionID, set
}

// PrivateCacheControl is the Cache-Control of an answer that set a
// reader's insights cookies (View) and said it was Shared: no shared
// cache may keep the reader's cookies.
const PrivateCacheControl = "private, no-cache"

// Shared tells whether an answer's Cache-Control lets shared caches keep
// it.
func Shared(cacheControl string) bool { return strings.HasPrefix(cacheControl, "public") }

func setCookie(h Header, c *http.Cookie) {
	if s := c.String(); s != "" {
		h.Add("Set-Cookie", s)
	}
}

// session is an event's session: who reads, from where, in which
// language, coming from which page, with which claims.
type session struct {
	VisitorID         string         `json:"visitorId"`
	SessionID         string         `json:"sessionId"`
	IP                string         `json:"ip"`
	UserAgent         string         `json:"userAgent"`
	Language          string         `json:"language,omitempty"`
	Referrer          string         `json:"referrer,omitempty"`
	VisitorAuthClaims map[string]any `json:"visitorAuthClaims,omitempty"`
}

// location is where a read happened.
type location struct {
	URL            string `json:"url"`
	DisplayContext string `json:"displayContext"`
	SiteSection    string `json:"siteSection,omitempty"`
	SiteSpace      string `json:"siteSpace,omitempty"`
	Space          string `json:"space,omitempty"`
	Revision       string `json:"revision,omitempty"`
	Page           string `json:"page,omitempty"`
}

// eventBody is an insights event (SiteInsightsEvent) of a read.
type eventBody struct {
	Type        string    `json:"type"`
	Session     session   `json:"session"`
	Location    location  `json:"location"`
	Timestamp   time.Time `json:"timestamp"` // RFC 3339 with nanoseconds, as encoded
	LLMSVariant string    `json:"llmsVariant,omitempty"`
}

// newSession is the session of a read by r from client.
func newSession(r Request, client, ua, visitorID, sessionID string, claims map[string]any) session {
	s := session{VisitorID: visitorID, SessionID: sessionID, IP: client, UserAgent: ua,
		Language: language(r.AcceptLanguage)}
	if ref := r.Referer; ref != "" && len(ref) <= maxURL {
		if u, err := url.Parse(ref); err == nil && u.IsAbs() && u.Host != "" {
			s.Referrer = ref
		}
	}
	if len(claims) > 0 {
		if raw, err := json.Marshal(claims); err == nil && len(raw) <= maxClaimsBytes {
			s.VisitorAuthClaims = claims
		}
	}
	return s
}

// event is the insights event of view v with its session.
func event(v readerapi.View, s session) eventBody {
	return eventBody{Type: v.Type, Session: s, LLMSVariant: v.LLMS,
		Location: location{URL: v.URL, DisplayContext: "server", SiteSection: v.SiteSection, SiteSpace: v.SiteSpace,
			Space: v.Space, Revision: v.Revision, Page: v.Page},
		Timestamp: time.Now().UTC()}
}

// insightsCookies are the values of the visitor and session cookies of a
// request's Cookie lines (at most maxCookie bytes each), "" for one it
// lacks: what net/http's Request.Cookie finds for each name, read in place
// (Request.Cookie parses every cookie of the header into new values, twice
// a page view), the Cookie lines counted once.
func insightsCookies(lines []string) (visitorID, sessionID string) {
	if !cookiesWithinMax(lines) {
		return "", ""
	}
	return cookieIn(lines, CookieVisitorID), cookieIn(lines, CookieSessionID)
}

// cookiesWithinMax is false for more cookies than net/http reads (it
// then reads none).
func cookiesWithinMax(lines []string) bool {
	parts := 0
	for _, line := range lines {
		parts += strings.Count(line, ";") + 1
	}
	return parts <= maxCookies
}

// cookieIn is the value of the cookie name in a request's Cookie lines.
func cookieIn(lines []string, name string) string {
	for _, line := range lines {
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ";")
			k, v, _ := strings.Cut(textproto.TrimString(part), "=")
			if textproto.TrimString(k) != name {
				continue
			}
			if len(v) > 1 && v[0] == '"' && v[len(v)-1] == '"' {
				v = v[1 : len(v)-1]
			}
			if !validCookieValue(v) {
				continue
			}
			if len(v) > maxCookie {
				return ""
			}
			return v
		}
	}
	return ""
}

// validCookieValue is net/http's test of a cookie value's bytes.
func validCookieValue(v string) bool {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b < 0x20 || b >= 0x7f || b == '"' || b == ';' || b == '\\' {
			return false
		}
	}
	return true
}

// language is the first language of an Accept-Language header, when it
// looks like a language tag.
func language(header string) string {
	first, _, _ := strings.Cut(header, ",")
	first, _, _ = strings.Cut(first, ";")
	tag := strings.TrimSpace(first)
	if tag == "" || tag == "*" || len(tag) > 35 {
		return ""
	}
	for _, r := range tag {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return tag
}
