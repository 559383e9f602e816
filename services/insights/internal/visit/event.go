package visit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	gojson "github.com/goccy/go-json"
)

// Event is one event as a site posts it (SiteInsightsEvent): the base
// fields of every type and the extra fields of each.
type Event struct {
	Type      string        `json:"type"`
	Session   *Session      `json:"session"`
	Location  *Location     `json:"location"`
	Timestamp *string       `json:"timestamp"`
	Query     *string       `json:"query"`
	Goal      *string       `json:"goal"`
	Result    *SearchResult `json:"result"`
	Feedback  *Feedback     `json:"feedback"`
	Rating    *int          `json:"rating"`
	Response  *string       `json:"responseId"`
	Link      *Link         `json:"link"`
	Operation *Operation    `json:"operation"`
	Placement *string       `json:"placement"`
	Ad        *Ad           `json:"ad"`
	LLMS      *string       `json:"llmsVariant"`
	Markdown  *string       `json:"markdownSource"`

	// What check parsed, for enrich: the location's URL, the referrer
	// (nil when none was given), the timestamp (zero when none was) and
	// the visitor's claims as canonical JSON ("" when none were).
	url, referrer *parsedURL
	at            time.Time
	claims        string
}

// Session is SiteInsightsEventSession.
type Session struct {
	VisitorID  *string         `json:"visitorId"`
	SessionID  *string         `json:"sessionId"`
	Cookies    struct{}        `json:"cookies"` // an object, checked and not kept
	IP         string          `json:"ip"`
	UserAgent  *string         `json:"userAgent"`
	Language   *string         `json:"language"`
	Referrer   *string         `json:"referrer"`
	AuthToken  *string         `json:"visitorAuthToken"`
	AuthClaims json.RawMessage `json:"visitorAuthClaims"`
}

// Location is SiteInsightsEventLocation.
type Location struct {
	URL            *string `json:"url"`
	DisplayContext *string `json:"displayContext"`
	SiteSection    *string `json:"siteSection"`
	SiteSpace      *string `json:"siteSpace"`
	SiteShareKey   *string `json:"siteShareKey"`
	Space          *string `json:"space"`
	Revision       *string `json:"revision"`
	Page           *string `json:"page"`
}

// SearchResult is the result of search_open_result: a page or a record.
type SearchResult struct {
	SpaceID  *string `json:"spaceId"`
	PageID   *string `json:"pageId"`
	RecordID *string `json:"recordId"`
}

// Feedback is a page feedback.
type Feedback struct {
	Rating  *string `json:"rating"`
	Comment *string `json:"comment"`
}

// Link is the link of link_click.
type Link struct {
	Target   json.RawMessage `json:"target"`
	Position *string         `json:"position"`
}

// Operation is an OpenAPIOperationPointer.
type Operation struct {
	Path   *string `json:"path"`
	Method *string `json:"method"`
}

// Ad is SiteInsightsAd.
type Ad struct {
	Domain    *string `json:"domain"`
	ZoneID    *string `json:"zoneId"`
	Placement *string `json:"placement"`
}

// Decode reads the events of a batch, each on its own, so that an error
// names the event's index ("events[3].session.visitorId: must be a string").
func Decode(raw []json.RawMessage) ([]Event, error) {
	if len(raw) > MaxEvents {
		return nil, apierr.Invalid("events", "must hold at most %d events, got %d", MaxEvents, len(raw))
	}
	out := make([]Event, len(raw))
	for i, r := range raw {
		field := "events[" + strconv.Itoa(i) + "]"
		if t := bytes.TrimSpace(r); len(t) == 0 || t[0] != '{' {
			return nil, apierr.Invalid(field, "must be an object")
		}
		// goccy/go-json decodes the hot path at about a third of the cost
		// of encoding/json; an event it refuses is decoded again by
		// encoding/json, whose errors name the field's full path.
		if gojson.Unmarshal(r, &out[i]) == nil {
			continue
		}
		out[i] = Event{}
		if err := json.Unmarshal(r, &out[i]); err != nil {
			var typ *json.UnmarshalTypeError
			if errors.As(err, &typ) {
				return nil, apierr.Invalid(field+"."+typ.Field, "must be %s", kind(typ.Type.Kind().String()))
			}
			return nil, apierr.Invalid(field, "malformed event")
		}
	}
	return out, nil
}

// DecodeBatch decodes a batch's body, {"events": [...]}, in one pass: the
// hot path. It reports false when the body is not such a batch, holds more
// than MaxEvents, or one of its events does not decode or has no type (null
// and {} among them): the caller then reads the events one by one (Decode),
// whose errors name the event and its field.
func DecodeBatch(body []byte) ([]Event, bool) {
	var batch struct {
		Events *[]Event `json:"events"`
	}
	if gojson.Unmarshal(body, &batch) != nil || batch.Events == nil || len(*batch.Events) > MaxEvents {
		return nil, false
	}
	events := *batch.Events
	for i := range events {
		if events[i].Type == "" {
			return nil, false
		}
	}
	return events, true
}

func kind(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	case "int", "int64", "float64":
		return "a number"
	}
	return "of another type"
}

// check validates one event at index i against the public spec and the
// limits; now is the server's time, the reference of the timestamp window.
// A valid event is checked once with its fields' plain names; only an
// invalid one is checked again to name them "events[i]....". urls holds
// the URLs parsed for the batch's events before it.
func (e *Event) check(p *apierr.Problems, i int, now time.Time, urls *parsedURLs) {
	var plain apierr.Problems
	e.checkNamed(&plain, func(name string) string { return name }, now, urls)
	if plain.Len() == 0 {
		return
	}
	at := "events[" + strconv.Itoa(i) + "]."
	e.checkNamed(p, func(name string) string { return at + name }, now, urls)
}

// parsedURLs are the absolute URLs a batch's check read, by their text: a
// browser's batch repeats its referrer from event to event, and its pages.
// A batch of at most MaxEvents events keeps at most twice as many.
type parsedURLs map[string]*parsedURL

// parsedURL is what enrich reads of an absolute URL, made once per text.
type parsedURL struct {
	path   string    // the escaped path, "/" for none
	utm    [5]string // its utm_source, utm_medium, utm_campaign, utm_term, utm_content
	domain string    // its host in lower case, without "www."
}

// absolute checks that s is an absolute URL (absoluteURL) and returns what
// enrich reads of it, answered from the URLs read before when s is the
// text of one of them; nil when s is not one.
func (parsed *parsedURLs) absolute(p *apierr.Problems, field, s string) *parsedURL {
	if u, ok := (*parsed)[s]; ok {
		return u
	}
	u := absoluteURL(p, field, s)
	if u == nil {
		return nil
	}
	r := &parsedURL{path: u.EscapedPath(), domain: hostname(u)}
	if r.path == "" {
		r.path = "/"
	}
	r.utm[0], r.utm[1], r.utm[2], r.utm[3], r.utm[4] = utm(u.RawQuery)
	if *parsed == nil {
		*parsed = make(parsedURLs)
	}
	(*parsed)[s] = r
	return r
}

// checkNamed is check with f naming the fields.
func (e *Event) checkNamed(p *apierr.Problems, f func(string) string, now time.Time, urls *parsedURLs) {
	if !slices.Contains(Types, e.Type) {
		if e.Type == "" {
			p.Add(f("type"), "is required")
		} else {
			p.Add(f("type"), "must be one of %v", Types)
		}
		return
	}
	if e.Session == nil {
		p.Add(f("session"), "is required")
	} else {
		s := e.Session
		requiredText(p, f("session.visitorId"), s.VisitorID, MaxID)
		requiredText(p, f("session.sessionId"), s.SessionID, MaxID)
		if s.UserAgent == nil {
			p.Add(f("session.userAgent"), "is required")
		} else if len(*s.UserAgent) > MaxUserAgent {
			p.Add(f("session.userAgent"), "must be at most %d bytes", MaxUserAgent)
		}
		optionalText(p, f("session.language"), s.Language, MaxLanguage)
		if s.Referrer != nil && *s.Referrer != "" {
			e.referrer = urls.absolute(p, f("session.referrer"), *s.Referrer)
		}
		if len(s.AuthClaims) > 0 && !bytes.Equal(bytes.TrimSpace(s.AuthClaims), []byte("null")) {
			if len(s.AuthClaims) > MaxClaimsBytes {
				p.Add(f("session.visitorAuthClaims"), "must be at most %d bytes", MaxClaimsBytes)
			} else if c, err := claims(s.AuthClaims); err != nil {
				p.Add(f("session.visitorAuthClaims"), "%s", err.Error())
			} else {
				e.claims = c
			}
		}
	}
	if e.Location == nil {
		p.Add(f("location"), "is required")
	} else {
		l := e.Location
		if l.URL == nil {
			p.Add(f("location.url"), "is required")
		} else {
			e.url = urls.absolute(p, f("location.url"), *l.URL)
		}
		if l.DisplayContext != nil {
			p.OneOf(f("location.displayContext"), *l.DisplayContext, DisplayContexts...)
		}
		optionalText(p, f("location.siteSection"), l.SiteSection, MaxShort)
		optionalText(p, f("location.siteSpace"), l.SiteSpace, MaxShort)
		optionalText(p, f("location.siteShareKey"), l.SiteShareKey, MaxShort)
		optionalText(p, f("location.space"), l.Space, MaxShort)
		optionalText(p, f("location.revision"), l.Revision, MaxShort)
		optionalText(p, f("location.page"), l.Page, MaxShort)
	}
	if e.Timestamp != nil {
		t, err := time.Parse(time.RFC3339Nano, *e.Timestamp)
		switch {
		case err != nil:
			p.Add(f("timestamp"), "must be an RFC 3339 date-time")
		case t.Sub(now) > TimestampWindow || now.Sub(t) > TimestampWindow:
			p.Add(f("timestamp"), "must be within %s of the server's time", TimestampWindow)
		default:
			e.at = t.UTC()
		}
	}
	e.checkExtra(p, f)
}

// checkExtra validates the fields of the event's type.
func (e *Event) checkExtra(p *apierr.Problems, f func(string) string) {
	switch e.Type {
	case "page_markdown_request":
		if e.Markdown != nil {
			p.OneOf(f("markdownSource"), *e.Markdown, MarkdownSources...)
		}
	case "search_type_query":
		requiredText(p, f("query"), e.Query, MaxText)
	case "search_open_result":
		requiredText(p, f("query"), e.Query, MaxText)
		switch r := e.Result; {
		case r == nil:
			p.Add(f("result"), "is required")
		case r.RecordID != nil:
			requiredText(p, f("result.recordId"), r.RecordID, MaxShort)
		default:
			requiredText(p, f("result.spaceId"), r.SpaceID, MaxShort)
			requiredText(p, f("result.pageId"), r.PageID, MaxShort)
		}
	case "page_post_feedback", "page_post_feedback_comment":
		e.checkFeedback(p, f)
	case "ask_question":
		requiredText(p, f("query"), e.Query, MaxText)
		optionalText(p, f("goal"), e.Goal, MaxText)
	case "ask_rate_response":
		requiredText(p, f("query"), e.Query, MaxText)
		requiredText(p, f("responseId"), e.Response, MaxShort)
		if e.Rating == nil {
			p.Add(f("rating"), "is required")
		} else if *e.Rating != 1 && *e.Rating != -1 {
			p.Add(f("rating"), "must be 1 or -1")
		}
	case "link_click":
		e.checkLink(p, f)
	case "api_client_open", "api_client_request":
		if e.Operation == nil {
			p.Add(f("operation"), "is required")
			return
		}
		requiredText(p, f("operation.path"), e.Operation.Path, MaxURL)
		requiredText(p, f("operation.method"), e.Operation.Method, 16)
	case "trademark_click":
		if e.Placement == nil {
			p.Add(f("placement"), "is required")
		} else {
			p.OneOf(f("placement"), *e.Placement, TrademarkPlacements...)
		}
	case "ad_click", "ad_display":
		e.checkAd(p, f)
	case "llms_request":
		if e.LLMS == nil {
			p.Add(f("llmsVariant"), "is required")
		} else {
			p.OneOf(f("llmsVariant"), *e.LLMS, LLMSVariants...)
		}
	}
}

// checkFeedback checks a page feedback event's rating (and comment).
func (e *Event) checkFeedback(p *apierr.Problems, f func(string) string) {
	if e.Feedback == nil {
		p.Add(f("feedback"), "is required")
		return
	}
	if e.Feedback.Rating == nil {
		p.Add(f("feedback.rating"), "is required")
	} else {
		p.OneOf(f("feedback.rating"), *e.Feedback.Rating, FeedbackRatings...)
	}
	if e.Type == "page_post_feedback_comment" {
		requiredText(p, f("feedback.comment"), e.Feedback.Comment, MaxText)
	}
}

// checkLink checks a link click's position and target.
func (e *Event) checkLink(p *apierr.Problems, f func(string) string) {
	if e.Link == nil {
		p.Add(f("link"), "is required")
		return
	}
	if e.Link.Position == nil {
		p.Add(f("link.position"), "is required")
	} else {
		p.OneOf(f("link.position"), *e.Link.Position, LinkPositions...)
	}
	if _, _, err := linkTarget(e.Link.Target); err != nil {
		p.Add(f("link.target"), "%s", err.Error())
	}
}

// checkAd checks an ad event's domain, zone and placement.
func (e *Event) checkAd(p *apierr.Problems, f func(string) string) {
	if e.Ad == nil {
		p.Add(f("ad"), "is required")
		return
	}
	requiredText(p, f("ad.domain"), e.Ad.Domain, MaxShort)
	requiredText(p, f("ad.zoneId"), e.Ad.ZoneID, MaxShort)
	if e.Ad.Placement == nil {
		p.Add(f("ad.placement"), "is required")
	} else {
		p.OneOf(f("ad.placement"), *e.Ad.Placement, AdPlacements...)
	}
}

func requiredText(p *apierr.Problems, field string, s *string, max int) {
	if s == nil {
		p.Add(field, "is required")
		return
	}
	p.Text(field, *s, 1, max)
}

func optionalText(p *apierr.Problems, field string, s *string, max int) {
	if s != nil {
		p.Text(field, *s, 0, max)
	}
}

// absoluteURL checks that s is an absolute URL and returns it parsed (nil
// when it is not one).
func absoluteURL(p *apierr.Problems, field, s string) *url.URL {
	if len(s) > MaxURL {
		p.Add(field, "must be at most %d characters", MaxURL)
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" || u.Host == "" || strings.ContainsAny(s, " \t\r\n") {
		p.Add(field, "must be an absolute URL")
		return nil
	}
	return u
}

// claims checks visitor auth claims (a PlainObject) and returns them as
// canonical JSON (keys sorted).
func claims(raw json.RawMessage) (string, error) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", errors.New("must be an object")
	}
	if len(m) == 0 {
		return "", nil
	}
	b, err := json.Marshal(m) // maps marshal with sorted keys
	if err != nil {
		return "", errors.New("must be an object")
	}
	return string(b), nil
}

// linkTarget checks a link target (a ContentRef: an object with a kind)
// and returns it as compact JSON with its kind.
func linkTarget(raw json.RawMessage) (string, string, error) {
	var ref map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &ref) != nil || ref == nil {
		return "", "", errors.New("must be a content reference object")
	}
	k, _ := ref["kind"].(string)
	if k == "" {
		return "", "", errors.New("must have a kind")
	}
	b, _ := json.Marshal(ref)
	if len(b) > MaxURL+256 {
		return "", "", fmt.Errorf("must be at most %d bytes", MaxURL+256)
	}
	return string(b), k, nil
}
