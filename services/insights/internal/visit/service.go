package visit

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/slicepool"
)

// Sites tells whether a site exists in an organization (the projection of
// sites.events).
type Sites interface {
	Exists(ctx context.Context, org, site string) (bool, error)
}

// Log is the durable log of accepted visits (Kafka's insights.visits).
// Append returns once every visit is stored there; an error means none may
// be counted on.
type Log interface {
	// Append stores visits before it returns; it keeps no reference to
	// them (IngestEvents reuses them for the next batch).
	Append(ctx context.Context, org, site string, visits []Visit) error
}

// ErrUnavailable is returned by a Log that could not store a batch.
var ErrUnavailable = errors.New("visit log unavailable")

// RetryAfter is what a client is asked to wait when the log is down.
const RetryAfter = 5 * time.Second

// Service accepts batches of events.
type Service struct {
	sites  Sites
	log    Log
	agents *Agents
	geo    *Geo
	now    func() time.Time
}

// New returns the ingest service. geo may be nil (no country); now nil is time.Now.
func New(sites Sites, log Log, geo *Geo, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{sites: sites, log: log, agents: NewAgents(), geo: geo, now: now}
}

// Ingest validates a batch of events of site in org, enriches them and
// appends them to the log. Nothing is appended when one event is invalid
// (400 naming it), when the site is not in org (404), or when the log is
// down (503 with Retry-After: the client sends the batch again).
func (s *Service) Ingest(ctx context.Context, org, site string, raw []json.RawMessage) error {
	events, err := Decode(raw)
	if err != nil {
		return err
	}
	return s.IngestEvents(ctx, org, site, events)
}

// IngestEvents is Ingest of a batch decoded already (DecodeBatch).
func (s *Service) IngestEvents(ctx context.Context, org, site string, events []Event) error {
	now := s.now().UTC()
	var p apierr.Problems
	var urls parsedURLs
	for i := range events {
		events[i].check(&p, i, now, &urls)
		if p.Len() > 0 {
			break // the first bad event is enough to name
		}
	}
	if err := p.Err(); err != nil {
		return err
	}
	ok, err := s.sites.Exists(ctx, org, site)
	if err != nil {
		return err
	}
	if !ok {
		return apierr.NotFound("site not found")
	}
	if len(events) == 0 {
		return nil
	}
	visits := takeVisits(len(events))
	defer batchVisits.Put(visits)
	for i := range events {
		s.enrich(&visits[i], &events[i], now) // in place: a Visit is large
	}
	if err := s.log.Append(ctx, org, site, visits); err != nil {
		if errors.Is(err, ErrUnavailable) || errors.Is(err, context.DeadlineExceeded) {
			return apierr.Unavailable(RetryAfter, "insights cannot accept events right now; nothing was recorded, send the batch again")
		}
		return err
	}
	return nil
}

// enrich turns a valid event into its visit v (zero before), from what
// check parsed.
func (s *Service) enrich(v *Visit, e *Event, now time.Time) {
	v.Time, v.Visitor, v.Session = now, *e.Session.VisitorID, *e.Session.SessionID
	if !e.at.IsZero() {
		v.Time = e.at
	}
	d := &v.Dims
	d.EventType = e.Type
	l := e.Location
	d.URL = *l.URL
	if u := e.url; u != nil {
		d.URLPath = u.path
		d.UTMSource, d.UTMMedium, d.UTMCampaign, d.UTMTerm, d.UTMContent = u.utm[0], u.utm[1], u.utm[2], u.utm[3], u.utm[4]
	}
	d.DisplayContext = "site"
	if l.DisplayContext != nil {
		d.DisplayContext = *l.DisplayContext
	}
	d.SiteSection, d.SiteSpace, d.SiteShareKey = deref(l.SiteSection), deref(l.SiteSpace), deref(l.SiteShareKey)
	d.Space, d.Page = deref(l.Space), deref(l.Page)

	sess := e.Session
	ag := s.agents.Parse(*sess.UserAgent)
	d.Browser, d.OS, d.Device, d.Bot = ag.Browser, ag.OS, ag.Device, ag.Bot
	d.GeoCountry = s.geo.Country(sess.IP) // the address itself is not kept
	d.Language = deref(sess.Language)
	if r := deref(sess.Referrer); r != "" {
		d.Referrer = r
		if e.referrer != nil {
			d.ReferrerDomain = e.referrer.domain
		}
	}
	d.Claims = e.claims
	d.Authenticated = d.Claims != "" || deref(sess.AuthToken) != ""

	switch e.Type {
	case "page_markdown_request":
		d.MarkdownSource = deref(e.Markdown)
	case "search_type_query":
		d.SearchQuery = *e.Query
	case "search_open_result":
		d.SearchQuery = *e.Query
		d.SearchRecord = deref(e.Result.RecordID)
	case "page_post_feedback", "page_post_feedback_comment":
		d.Feedback = *e.Feedback.Rating
		d.FeedbackText = deref(e.Feedback.Comment)
	case "ask_question":
		d.SearchQuery = *e.Query
	case "ask_rate_response":
		d.SearchQuery = *e.Query
		d.AskRating = *e.Rating
	case "link_click":
		d.LinkTarget, d.LinkKind, _ = linkTarget(e.Link.Target)
		d.LinkPosition = *e.Link.Position
		if d.LinkKind == "url" {
			var ref struct {
				URL string `json:"url"`
			}
			_ = json.Unmarshal(e.Link.Target, &ref)
			d.LinkDomain = host(ref.URL)
		}
	case "api_client_open", "api_client_request":
		d.APIPath, d.APIMethod = *e.Operation.Path, *e.Operation.Method
	case "trademark_click":
		d.Trademark = *e.Placement
	case "ad_click", "ad_display":
		d.AdDomain, d.AdPlacement = *e.Ad.Domain, *e.Ad.Placement
	case "llms_request":
		d.LLMSVariant = *e.LLMS
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// batchVisits holds IngestEvents' visits between batches (a Visit is
// about 700 bytes: a batch of 100 took 70 KB, a seventh of a flood's
// allocations): the log encodes them before Append returns and keeps none.
var batchVisits = slicepool.New[Visit](MaxEvents)

// takeVisits returns n zero visits of batchVisits.
func takeVisits(n int) []Visit {
	if v := batchVisits.Get(); cap(v) >= n {
		return v[:n]
	}
	return make([]Visit, n, max(n, 100))
}
