package rollup

import (
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/docspub/platform/services/insights/internal/visit"
)

// A marginal is a monthly rollup that keeps one dimension only (or none:
// the totals), so that a long range grouped or filtered by that one column
// reads a few rows per month instead of every combination of dimensions.
// Each marginal is kept three times: per month ("m:urlPath": one row per
// value) for whole months of queries that need no finer time, per month by
// day ("md:urlPath": one row per value and day) for days, weeks, days of
// the week and the partial months at a range's ends, and per day by hour
// ("hd:urlPath") for the partial days at a range's ends.
type marginal struct {
	column string
	field  func(d *visit.Dims) *string // nil for the totals
}

// keep copies the marginal's one dimension of src into dst.
func (m marginal) keep(dst, src *visit.Dims) {
	if m.field != nil {
		*m.field(dst) = *m.field(src)
	}
}

// key is the row key of d's value of the marginal's dimension.
func (m marginal) key(d *visit.Dims) string {
	if m.field == nil {
		return "t"
	}
	return "v" + itoaU(xxhash.Sum64String(*m.field(d)))
}

// Prefixes of the granularities of marginals: monthPrefix+column,
// dayPrefix+column, hourPrefix+column ("m:", "md:", "hd:" are the totals).
const (
	monthPrefix = "m:"
	dayPrefix   = "md:"
	hourPrefix  = "hd:"
)

// marginals by granularity.
var marginals = map[string]marginal{}

// grans are the granularities every visit is rolled up at.
var grans = []string{Hourly, Daily}

func init() {
	for _, m := range []marginal{
		{"", nil},
		{"urlPath", func(d *visit.Dims) *string { return &d.URLPath }},
		{"eventType", func(d *visit.Dims) *string { return &d.EventType }},
		{"visitorBrowser", func(d *visit.Dims) *string { return &d.Browser }},
		{"visitorOS", func(d *visit.Dims) *string { return &d.OS }},
		{"visitorDevice", func(d *visit.Dims) *string { return &d.Device }},
		{"visitorGeoCountry", func(d *visit.Dims) *string { return &d.GeoCountry }},
		{"visitorLanguage", func(d *visit.Dims) *string { return &d.Language }},
		{"referrerDomain", func(d *visit.Dims) *string { return &d.ReferrerDomain }},
		{"siteSection", func(d *visit.Dims) *string { return &d.SiteSection }},
		{"siteSpace", func(d *visit.Dims) *string { return &d.SiteSpace }},
	} {
		for _, prefix := range []string{monthPrefix, dayPrefix, hourPrefix} {
			marginals[prefix+m.column] = m
			grans = append(grans, prefix+m.column)
		}
	}
}

// isMonthly reports whether gran's buckets are months (marginals).
func isMonthly(gran string) bool { return strings.HasPrefix(gran, monthPrefix) || perDay(gran) }

// perDay reports whether gran's buckets are months with a row per day.
func perDay(gran string) bool { return strings.HasPrefix(gran, dayPrefix) }

// perHour reports whether gran's buckets are days with a row per hour.
func perHour(gran string) bool { return strings.HasPrefix(gran, hourPrefix) }

// marginalFor returns the column of the marginal q can read for whole days
// (false: q needs the daily buckets of full rows): the one dimension q
// groups and filters by, if it has a marginal, and q needs no count that
// other dimensions carry.
func (q *query) marginalFor() (string, bool) {
	column := ""
	for _, r := range append(append([]ColumnRef{}, q.group...), q.where2refs()...) {
		if columns[r.Column].kind == timeKind {
			continue
		}
		if column != "" && column != r.Column {
			return "", false
		}
		column = r.Column
	}
	if q.needs("pageFeedbackRating") || q.needs("askResponseRating") {
		return "", false
	}
	if _, ok := marginals[monthPrefix+column]; !ok {
		return "", false
	}
	return column, true
}

// byDay reports whether q needs the day of a row for whole days: it groups,
// orders or filters by a time column finer than a month.
func (q *query) byDay() bool {
	refs := append(append(append([]ColumnRef{}, q.group...), q.where2refs()...), q.order)
	for i := range refs {
		r := &refs[i]
		if columns[r.Column].kind == timeKind && !(r.Column == "datetime" && r.interval() == "month") {
			return true
		}
	}
	return false
}
