package visit

import (
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/docspub/platform/libs/sizedcache"
	"github.com/mileusna/useragent"
	"github.com/oschwald/maxminddb-golang/v2"
)

// Agent is what a user agent says about the visitor (enum values of the
// public spec); Bot is "" for a person.
type Agent struct {
	Browser, OS, Device, Bot string
}

// Agents parses user agents with a well-kept parser and keeps the answers
// of recent ones: a batch, and a site's traffic, repeat a few user agents.
// It is safe for concurrent use.
type Agents struct {
	cache *sizedcache.Cache[string, Agent]
}

// agentCacheSize is how many distinct user agents Agents remembers.
const agentCacheSize = 8192

// NewAgents returns a user agent parser with a cache.
func NewAgents() *Agents {
	c := sizedcache.New[string, Agent](agentCacheSize, 0)
	return &Agents{cache: c}
}

// Parse returns what ua says about its visitor.
func (a *Agents) Parse(ua string) Agent {
	if ag, ok := a.cache.Get(ua); ok {
		return ag
	}
	ag := parseAgent(ua)
	a.cache.Set(ua, ag, 0)
	return ag
}

// bots maps a lower-case token of a crawler's or agent's user agent to its
// SiteInsightsVisitorBot value; the first match wins, so specific tokens
// come before the general ones they contain.
var bots = []struct{ token, bot string }{
	{"chatgpt-user", "chatgpt"}, {"oai-searchbot", "openai"}, {"gptbot", "gptbot"},
	{"claude-user", "claude"}, {"claude-searchbot", "claude"}, {"claudebot", "claudebot"}, {"claude-code", "claude-code"},
	{"anthropic-ai", "anthropic"}, {"google-extended", "gemini"}, {"gemini", "gemini"},
	{"googlebot", "googlebot"}, {"bingbot", "bingbot"}, {"duckassistbot", "duckassist"}, {"duckduckbot", "duckduckbot"},
	{"facebookexternalhit", "facebookbot"}, {"facebookbot", "facebookbot"}, {"meta-externalfetcher", "meta-fetcher"},
	{"meta-webindexer", "meta-webindexer"}, {"meta-externalads", "meta-ads"}, {"meta-externalagent", "meta"},
	{"applebot", "applebot"}, {"perplexity", "perplexity"}, {"cohere-ai", "cohere"}, {"mistralai", "mistral"},
	{"deepseek", "deepseek"}, {"bytespider", "bytespider"}, {"ccbot", "ccbot"}, {"amzn-searchbot", "amzn-searchbot"},
	{"amzn-user", "amzn-user"}, {"amazonbot", "amazonbot"}, {"youbot", "youbot"}, {"cursor/", "cursor"},
	{"vscode", "vscode"}, {"codex", "codex"}, {"opencode", "opencode"}, {"grok", "grok"}, {"github-copilot", "github-copilot"},
}

func parseAgent(s string) Agent {
	ua := useragent.Parse(s)
	ag := Agent{Browser: "unknown", OS: "unknown", Device: "unknown"}
	switch ua.Name {
	case useragent.Chrome, useragent.HeadlessChrome, useragent.Vivaldi, useragent.SamsungBrowser:
		ag.Browser = "chrome"
	case useragent.Firefox:
		ag.Browser = "firefox"
	case useragent.Safari, useragent.MobileSafari:
		ag.Browser = "safari"
	case useragent.Edge:
		ag.Browser = "edge"
	case useragent.InternetExplorer, useragent.Msie:
		ag.Browser = "ie"
	case useragent.Opera, useragent.OperaMini, useragent.OperaTouch:
		ag.Browser = "opera"
	}
	switch ua.OS {
	case useragent.Windows, useragent.WindowsNT, useragent.WindowsPhone, useragent.WindowsPhoneOS:
		ag.OS = "windows"
	case useragent.MacOS:
		ag.OS = "macos"
	case useragent.Linux, useragent.ChromeOS, useragent.CrOS, useragent.FreeBSD:
		ag.OS = "linux"
	case useragent.Android:
		ag.OS = "android"
	case useragent.IOS:
		ag.OS = "ios"
	}
	switch {
	case ua.Tablet:
		ag.Device = "tablet"
	case ua.Mobile:
		ag.Device = "mobile"
	case ua.Desktop:
		ag.Device = "desktop"
	}
	low := strings.ToLower(s)
	for _, b := range bots {
		if strings.Contains(low, b.token) {
			ag.Bot = b.bot
			return ag
		}
	}
	if ua.Bot {
		ag.Bot = "unknown"
	}
	return ag
}

// Geo finds the country of an IP address in a MaxMind database.
type Geo struct {
	db *maxminddb.Reader
}

// OpenGeo opens the MaxMind database at path (GeoLite2/GeoIP2 Country or City).
func OpenGeo(path string) (*Geo, error) {
	db, err := maxminddb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open GEOIP_DB %s: %w", path, err)
	}
	return &Geo{db: db}, nil
}

// Country returns the ISO 3166 code of ip's country, "" when unknown (or
// when g is nil: no database configured).
func (g *Geo) Country(ip string) string {
	if g == nil || ip == "" {
		return ""
	}
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return ""
	}
	var rec struct {
		Country struct {
			ISOCode string `maxminddb:"iso_code"`
		} `maxminddb:"country"`
	}
	if err := g.db.Lookup(addr).Decode(&rec); err != nil {
		return ""
	}
	return rec.Country.ISOCode
}

// Close closes the database.
func (g *Geo) Close() error {
	if g == nil {
		return nil
	}
	return g.db.Close()
}

// utmKeys are the UTM parameters, in Dims order.
var utmKeys = [5]string{"utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content"}

// utm are the UTM parameters of a URL's raw query, in Dims order: what
// url.ParseQuery's Get of each gives (the first value; a pair with ";" or
// a bad escape skipped), read without the map ParseQuery makes of every
// parameter (on every event, most of them without a UTM parameter).
func utm(rawQuery string) (source, medium, campaign, term, content string) {
	var out [5]string
	if !strings.Contains(rawQuery, "utm") && !strings.Contains(rawQuery, "%") {
		return
	}
	var seen [5]bool
	for rawQuery != "" {
		var pair string
		pair, rawQuery, _ = strings.Cut(rawQuery, "&")
		if strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, ok := unescapeQuery(k)
		i := slices.Index(utmKeys[:], k)
		if !ok || i < 0 || seen[i] {
			continue
		}
		if v, ok = unescapeQuery(v); ok {
			out[i], seen[i] = v, true
		}
	}
	return out[0], out[1], out[2], out[3], out[4]
}

// unescapeQuery is url.QueryUnescape, without its work for a plain s.
func unescapeQuery(s string) (string, bool) {
	if !strings.ContainsAny(s, "%+") {
		return s, true
	}
	u, err := url.QueryUnescape(s)
	return u, err == nil
}

// host returns the lower-case host of an absolute URL without "www.", "" when none.
func host(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return hostname(u)
}

// hostname is u's host name, lower case, without "www.".
func hostname(u *url.URL) string {
	return strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.")
}
