package rollup

import (
	"strings"

	"github.com/docspub/platform/services/insights/internal/visit"
)

// A marginal is a daily rollup that keeps one dimension only (or none: the
// totals), so that a long range grouped or filtered by that one column
// reads a few rows per day instead of every combination of dimensions.
type marginal struct {
	column string
	keep   func(dst, src *visit.Dims)
}

// marginalPrefix starts the granularity of a marginal: "d:urlPath", "d:".
const marginalPrefix = "d:"

var marginals = map[string]marginal{}

// grans are the granularities every visit is rolled up at.
var grans = []string{Hourly, Daily}

func init() {
	for _, m := range []marginal{
		{"", func(dst, src *visit.Dims) {}},
		{"urlPath", func(dst, src *visit.Dims) { dst.URLPath = src.URLPath }},
		{"eventType", func(dst, src *visit.Dims) { dst.EventType = src.EventType }},
		{"visitorBrowser", func(dst, src *visit.Dims) { dst.Browser = src.Browser }},
		{"visitorOS", func(dst, src *visit.Dims) { dst.OS = src.OS }},
		{"visitorDevice", func(dst, src *visit.Dims) { dst.Device = src.Device }},
		{"visitorGeoCountry", func(dst, src *visit.Dims) { dst.GeoCountry = src.GeoCountry }},
		{"visitorLanguage", func(dst, src *visit.Dims) { dst.Language = src.Language }},
		{"referrerDomain", func(dst, src *visit.Dims) { dst.ReferrerDomain = src.ReferrerDomain }},
		{"siteSection", func(dst, src *visit.Dims) { dst.SiteSection = src.SiteSection }},
		{"siteSpace", func(dst, src *visit.Dims) { dst.SiteSpace = src.SiteSpace }},
	} {
		gran := marginalPrefix + m.column
		marginals[gran] = m
		grans = append(grans, gran)
	}
}

// isDaily reports whether gran is a daily granularity (full rows or a marginal).
func isDaily(gran string) bool { return gran == Daily || strings.HasPrefix(gran, marginalPrefix) }

// marginalFor returns the daily granularity q can read for whole days: a
// marginal when every dimension q groups or filters by is its one column
// (and q needs no count that other dimensions carry), else Daily.
func (q *query) marginalFor() string {
	column := ""
	for _, r := range append(append([]ColumnRef{}, q.group...), q.where2refs()...) {
		if columns[r.Column].kind == timeKind {
			continue
		}
		if column != "" && column != r.Column {
			return Daily
		}
		column = r.Column
	}
	if q.needs("pageFeedbackRating") || q.needs("askResponseRating") {
		return Daily
	}
	if _, ok := marginals[marginalPrefix+column]; !ok {
		return Daily
	}
	return marginalPrefix + column
}
