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

// Prefixes of the granularities of marginals ("m:", "md:", "hd:" are the
// totals).
const (
	monthPrefix = "m:"
	dayPrefix   = "md:"
	hourPrefix  = "hd:"
)

// Monthly is the granularity of column's marginal by month (one row per
// value): whole months of queries that need no finer time.
func Monthly(column string) Gran { return Gran(monthPrefix + column) }

// MonthByDay is the granularity of column's marginal by month with a row
// per value and day.
func MonthByDay(column string) Gran { return Gran(dayPrefix + column) }

// DayByHour is the granularity of column's marginal by day with a row per
// value and hour.
func DayByHour(column string) Gran { return Gran(hourPrefix + column) }

// monthly reports whether g's buckets are months (marginals).
func (g Gran) monthly() bool { return strings.HasPrefix(string(g), monthPrefix) || g.perDay() }

// perDay reports whether g's buckets are months with a row per day.
func (g Gran) perDay() bool { return strings.HasPrefix(string(g), dayPrefix) }

// perHour reports whether g's buckets are days with a row per hour.
func (g Gran) perHour() bool { return strings.HasPrefix(string(g), hourPrefix) }

// marginals by granularity, and grans, the granularities every visit is
// rolled up at (full rows by hour and day, then each marginal's three).
var marginals, grans = rollUps()

func rollUps() (map[Gran]marginal, []Gran) {
	byGran, all := map[Gran]marginal{}, []Gran{Hourly, Daily}
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
		for _, g := range []Gran{Monthly(m.column), MonthByDay(m.column), DayByHour(m.column)} {
			byGran[g] = m
			all = append(all, g)
		}
	}
	return byGran, all
}

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
	if _, ok := marginals[Monthly(column)]; !ok {
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
