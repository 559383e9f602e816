package rollup

import (
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/docspub/platform/services/insights/internal/visit"
)

// Kinds of query columns.
const (
	dimKind    = iota // a dimension value of a row
	timeKind          // derived from the bucket's time
	metricKind        // an aggregate over the rows of a group
)

// cell is what a column's getter reads from.
type cell struct {
	dims   *visit.Dims
	start  time.Time
	claims map[string]any // the row's claims, parsed
}

// column describes one SiteInsightsQueryEventsColumn.
type column struct {
	kind int
	// get returns the row's value; false when the row has none (it then
	// stays out of groups by this column).
	get func(c *cell, ref *ColumnRef) (any, bool)
	// valid checks a where value; want says what is expected.
	valid func(v any) bool
	want  string
	// ordered columns take greaterThan & co.
	ordered bool
}

// nullable reads a string dimension that is null when empty.
func nullable(f func(d *visit.Dims) string) func(*cell, *ColumnRef) (any, bool) {
	return func(c *cell, _ *ColumnRef) (any, bool) {
		if s := f(c.dims); s != "" {
			return s, true
		}
		return nil, true
	}
}

// plain reads a string dimension that is "" when empty.
func plain(f func(d *visit.Dims) string) func(*cell, *ColumnRef) (any, bool) {
	return func(c *cell, _ *ColumnRef) (any, bool) { return f(c.dims), true }
}

// present reads a dimension only events of some types carry.
func present(f func(d *visit.Dims) string) func(*cell, *ColumnRef) (any, bool) {
	return func(c *cell, _ *ColumnRef) (any, bool) {
		s := f(c.dims)
		return s, s != ""
	}
}

func isString(v any) bool         { _, ok := v.(string); return ok }
func isNullableString(v any) bool { return v == nil || isString(v) }
func oneOf(values []string, null bool) func(any) bool {
	return func(v any) bool {
		if v == nil {
			return null
		}
		s, ok := v.(string)
		return ok && slices.Contains(values, s)
	}
}
func intIn(lo, hi int) func(any) bool {
	return func(v any) bool {
		f, ok := v.(float64)
		return ok && f == float64(int(f)) && int(f) >= lo && int(f) <= hi
	}
}
func isNumber(v any) bool { _, ok := v.(float64); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }
func isDateTime(v any) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	_, err := time.Parse(time.RFC3339Nano, s)
	return err == nil
}

var columns = map[string]column{
	"datetime": {kind: timeKind, ordered: true, valid: isDateTime, want: "date-time strings",
		get: func(c *cell, ref *ColumnRef) (any, bool) { return truncInterval(c.start, ref.interval()), true }},
	"dayOfWeek": {kind: timeKind, ordered: true, valid: intIn(1, 7), want: "integers 1..7 (Monday is 1)",
		get: func(c *cell, _ *ColumnRef) (any, bool) { return isoWeekday(c.start), true }},
	"hourOfDay": {kind: timeKind, ordered: true, valid: intIn(0, 23), want: "integers 0..23",
		get: func(c *cell, _ *ColumnRef) (any, bool) { return c.start.Hour(), true }},
	"url":                {get: plain(func(d *visit.Dims) string { return d.URL }), valid: isString, want: "URL strings"},
	"urlPath":            {get: plain(func(d *visit.Dims) string { return d.URLPath }), valid: isString, want: "strings"},
	"eventType":          {get: plain(func(d *visit.Dims) string { return d.EventType }), valid: oneOf(visit.Types, false), want: "event types"},
	"eventsCount":        {kind: metricKind, ordered: true, valid: isNumber, want: "numbers"},
	"sessionsCount":      {kind: metricKind, ordered: true, valid: isNumber, want: "numbers"},
	"visitorsCount":      {kind: metricKind, ordered: true, valid: isNumber, want: "numbers"},
	"pageFeedbackRating": {kind: metricKind, valid: isObject, want: "objects {ok, good, bad}"},
	"askResponseRating":  {kind: metricKind, valid: isObject, want: "objects {positive, negative}"},
	"siteSection":        {get: nullable(func(d *visit.Dims) string { return d.SiteSection }), valid: isNullableString, want: "strings or null"},
	"siteSpace":          {get: nullable(func(d *visit.Dims) string { return d.SiteSpace }), valid: isNullableString, want: "strings or null"},
	"siteShareKey":       {get: nullable(func(d *visit.Dims) string { return d.SiteShareKey }), valid: isNullableString, want: "strings or null"},
	"displayContext":     {get: plain(func(d *visit.Dims) string { return d.DisplayContext }), valid: oneOf(visit.DisplayContexts, false), want: "display contexts"},
	"page": {get: func(c *cell, _ *ColumnRef) (any, bool) {
		if c.dims.Space == "" {
			return nil, true
		}
		var page any
		if c.dims.Page != "" {
			page = c.dims.Page
		}
		return map[string]any{"page": page, "space": c.dims.Space}, true
	}, valid: func(v any) bool { return v == nil || isObject(v) }, want: "objects {page, space} or null"},
	"visitorGeoCountry": {get: nullable(func(d *visit.Dims) string { return d.GeoCountry }), valid: isNullableString, want: "strings or null"},
	"visitorGeoPoint": {get: func(*cell, *ColumnRef) (any, bool) { return nil, true },
		valid: func(v any) bool { return v == nil || isObject(v) }, want: "objects or null"},
	"visitorDevice":   {get: plain(func(d *visit.Dims) string { return d.Device }), valid: oneOf(visit.Devices, false), want: "devices"},
	"visitorBrowser":  {get: plain(func(d *visit.Dims) string { return d.Browser }), valid: oneOf(visit.Browsers, false), want: "browsers"},
	"visitorOS":       {get: plain(func(d *visit.Dims) string { return d.OS }), valid: oneOf(visit.OSes, false), want: "operating systems"},
	"visitorBot":      {get: nullable(func(d *visit.Dims) string { return d.Bot }), valid: func(v any) bool { return v == "" || oneOf(visit.Bots, true)(v) }, want: "bots, \"\" or null"},
	"visitorLanguage": {get: nullable(func(d *visit.Dims) string { return d.Language }), valid: isNullableString, want: "strings or null"},
	"eventLinkTargetValue": {get: func(c *cell, _ *ColumnRef) (any, bool) {
		if c.dims.LinkTarget == "" {
			return nil, false
		}
		var v map[string]any
		_ = json.Unmarshal([]byte(c.dims.LinkTarget), &v)
		return v, true
	}, valid: isObject, want: "content references"},
	"eventLinkTargetKind":       {get: present(func(d *visit.Dims) string { return d.LinkKind }), valid: oneOf(visit.LinkTargetKinds, false), want: "link target kinds"},
	"eventLinkTargetDomain":     {get: nullable(func(d *visit.Dims) string { return d.LinkDomain }), valid: isNullableString, want: "strings or null"},
	"eventLinkPosition":         {get: present(func(d *visit.Dims) string { return d.LinkPosition }), valid: oneOf(visit.LinkPositions, false), want: "link positions"},
	"eventAPIOperationPath":     {get: nullable(func(d *visit.Dims) string { return d.APIPath }), valid: isNullableString, want: "strings or null"},
	"eventAPIOperationMethod":   {get: nullable(func(d *visit.Dims) string { return d.APIMethod }), valid: isNullableString, want: "strings or null"},
	"eventLLMSVariant":          {get: nullable(func(d *visit.Dims) string { return d.LLMSVariant }), valid: oneOf(visit.LLMSVariants, true), want: "LLMs variants or null"},
	"eventPageNotFoundType":     {get: nullable(func(d *visit.Dims) string { return d.PageNotFound }), valid: oneOf(visit.PageNotFoundTypes, true), want: "page-not-found types or null"},
	"eventMarkdownSource":       {get: nullable(func(d *visit.Dims) string { return d.MarkdownSource }), valid: oneOf(visit.MarkdownSources, true), want: "markdown sources or null"},
	"eventSearchQuery":          {get: present(func(d *visit.Dims) string { return d.SearchQuery }), valid: isString, want: "strings"},
	"eventSearchResultRecordId": {get: nullable(func(d *visit.Dims) string { return d.SearchRecord }), valid: isNullableString, want: "strings or null"},
	"eventPageFeedbackRating":   {get: present(func(d *visit.Dims) string { return d.Feedback }), valid: oneOf(visit.FeedbackRatings, false), want: "ratings bad, ok, good"},
	"eventPageFeedbackComment":  {get: present(func(d *visit.Dims) string { return d.FeedbackText }), valid: isString, want: "strings"},
	"eventAskResponseRating": {ordered: true, get: func(c *cell, _ *ColumnRef) (any, bool) {
		return c.dims.AskRating, c.dims.AskRating != 0
	}, valid: intIn(-1, 1), want: "integers"},
	"referrer":       {get: plain(func(d *visit.Dims) string { return d.Referrer }), valid: isString, want: "strings"},
	"referrerDomain": {get: plain(func(d *visit.Dims) string { return d.ReferrerDomain }), valid: isString, want: "strings"},
	"utmSource":      {get: plain(func(d *visit.Dims) string { return d.UTMSource }), valid: isString, want: "strings"},
	"utmMedium":      {get: plain(func(d *visit.Dims) string { return d.UTMMedium }), valid: isString, want: "strings"},
	"utmCampaign":    {get: plain(func(d *visit.Dims) string { return d.UTMCampaign }), valid: isString, want: "strings"},
	"utmTerm":        {get: plain(func(d *visit.Dims) string { return d.UTMTerm }), valid: isString, want: "strings"},
	"utmContent":     {get: plain(func(d *visit.Dims) string { return d.UTMContent }), valid: isString, want: "strings"},
	"visitorAuthenticated": {get: func(c *cell, _ *ColumnRef) (any, bool) { return c.dims.Authenticated, true },
		valid: func(v any) bool { _, ok := v.(bool); return ok || v == nil }, want: "booleans or null"},
	// visitorClaimProperty is many-valued: a row counts under each of its claims' names.
	"visitorClaimProperty": {valid: isString, want: "strings"},
	"visitorClaim": {get: func(c *cell, ref *ColumnRef) (any, bool) {
		v, ok := c.claims[ref.claim()]
		if !ok {
			return nil, false
		}
		if s, isStr := v.(string); isStr {
			return s, true
		}
		b, _ := json.Marshal(v)
		return string(b), true
	}, valid: isString, want: "strings"},
	"eventAdDomain":           {get: present(func(d *visit.Dims) string { return d.AdDomain }), valid: isString, want: "strings"},
	"eventAdPlacement":        {get: present(func(d *visit.Dims) string { return d.AdPlacement }), valid: oneOf(visit.AdPlacements, false), want: "ad placements"},
	"eventTrademarkPlacement": {get: present(func(d *visit.Dims) string { return d.Trademark }), valid: oneOf(visit.TrademarkPlacements, false), want: "trademark placements"},
}

// ColumnNames lists every column, in the public spec's order.
var ColumnNames = []string{"datetime", "dayOfWeek", "hourOfDay", "url", "urlPath", "eventType", "eventsCount",
	"sessionsCount", "visitorsCount", "siteSection", "siteSpace", "siteShareKey", "displayContext", "page",
	"visitorGeoCountry", "visitorGeoPoint", "visitorDevice", "visitorBrowser", "visitorOS", "visitorBot",
	"visitorLanguage", "eventLinkTargetValue", "eventLinkTargetKind", "eventLinkTargetDomain", "eventLinkPosition",
	"eventAPIOperationPath", "eventAPIOperationMethod", "eventLLMSVariant", "eventPageNotFoundType",
	"eventMarkdownSource", "eventSearchQuery", "eventSearchResultRecordId", "eventPageFeedbackRating",
	"eventPageFeedbackComment", "eventAskResponseRating", "pageFeedbackRating", "askResponseRating", "referrer",
	"referrerDomain", "utmSource", "utmMedium", "utmCampaign", "utmTerm", "utmContent", "visitorAuthenticated",
	"visitorClaimProperty", "visitorClaim", "eventAdDomain", "eventAdPlacement", "eventTrademarkPlacement"}

// Intervals of the datetime column; DefaultInterval when none is given.
var Intervals = []string{"hour", "day", "week", "month"}

// DefaultInterval is the datetime column's interval when the query names none.
const DefaultInterval = "day"

func truncInterval(t time.Time, interval string) string {
	t = t.UTC()
	switch interval {
	case "hour":
		t = t.Truncate(time.Hour)
	case "week":
		d := Truncate(t, Daily)
		t = d.AddDate(0, 0, 1-isoWeekday(d))
	case "month":
		t = time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	default:
		t = Truncate(t, Daily)
	}
	return t.Format(time.RFC3339)
}

func isoWeekday(t time.Time) int {
	if w := int(t.Weekday()); w != 0 {
		return w
	}
	return 7
}

// keyOf encodes a JSON-ready value as a comparable key.
func keyOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "n"
	case string:
		return "s" + x
	case bool:
		return "b" + strconv.FormatBool(x)
	case int:
		return "i" + strconv.Itoa(x)
	case float64:
		if x == float64(int64(x)) {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	default:
		b, _ := json.Marshal(x) // maps: keys sorted
		return "j" + string(b)
	}
}
