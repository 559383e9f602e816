package rollup

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
)

// Query limits.
const (
	DefaultLimit = 1000
	MaxLimit     = 1000
	MaxColumns   = 20                       // entries of select, of groupBy, of where
	MaxValues    = 1000                     // values of one where entry
	MaxRange     = 2 * 366 * 24 * time.Hour // from..to of a custom range
)

// Presets are the range presets and their spans.
var Presets = map[string]time.Duration{
	"lastYear": 365 * 24 * time.Hour, "last3Months": 90 * 24 * time.Hour, "last30Days": 30 * 24 * time.Hour,
	"last7Days": 7 * 24 * time.Hour, "last24Hours": 24 * time.Hour,
}

// ColumnRef names a column (SiteInsightsQueryEventsColumn).
type ColumnRef struct {
	Column    string  `json:"column"`
	Interval  *string `json:"interval"`
	Claim     *string `json:"claim"`
	Precision *int    `json:"precision"`
}

func (r *ColumnRef) interval() string {
	if r.Interval == nil {
		return DefaultInterval
	}
	return *r.Interval
}

func (r *ColumnRef) claim() string {
	if r.Claim == nil {
		return ""
	}
	return *r.Claim
}

// same reports whether r and o name the same output column.
func (r *ColumnRef) same(o *ColumnRef) bool {
	return r.Column == o.Column && (r.Column != "datetime" || r.interval() == o.interval()) &&
		(r.Column != "visitorClaim" || r.claim() == o.claim())
}

// Filter is one where entry.
type Filter struct {
	ColumnRef
	Values   []any  `json:"values"`
	Operator string `json:"operator"`
}

// Order is the order of the answer.
type Order struct {
	By        *ColumnRef `json:"by"`
	Direction string     `json:"direction"`
}

// Request is SiteInsightsQueryEventsAggregation.
type Request struct {
	Select  []ColumnRef     `json:"select"`
	Where   []Filter        `json:"where"`
	GroupBy []ColumnRef     `json:"groupBy"`
	Order   *Order          `json:"order"`
	Range   json.RawMessage `json:"range"`
	Limit   *int            `json:"limit"`
}

// Result is SiteInsightsQueryEventsAggregationResult.
type Result struct {
	Columns []Values `json:"columns"`
}

// Values is one answered column.
type Values struct {
	Column string  `json:"column"`
	Claim  *string `json:"claim,omitempty"`
	Values []any   `json:"values"`
}

// query is a checked request.
type query struct {
	from, to time.Time
	out      []ColumnRef // answered columns
	group    []ColumnRef // dimension and time columns that form a group
	where    []Filter    // on rows
	having   []Filter    // on groups (counts)
	order    ColumnRef
	desc     bool
	limit    int
	hourly   bool // needs hourly buckets
}

// Operators of where entries.
var Operators = []string{"in", "notIn", "greaterThan", "greaterThanOrEqual", "lessThan", "lessThanOrEqual"}

func checkRef(p *apierr.Problems, field string, r *ColumnRef) (column, bool) {
	c, ok := columns[r.Column]
	if !ok {
		if r.Column == "" {
			p.Add(field+".column", "is required")
		} else {
			p.Add(field+".column", "must be one of %v", ColumnNames)
		}
		return column{}, false
	}
	if r.Interval != nil {
		if r.Column != "datetime" {
			p.Add(field+".interval", "applies only to the datetime column")
		} else if !slices.Contains(Intervals, *r.Interval) {
			p.Add(field+".interval", "must be one of %v", Intervals)
		}
	}
	if r.Column == "visitorClaim" {
		if r.Claim == nil || *r.Claim == "" {
			p.Add(field+".claim", "is required with the visitorClaim column")
		} else {
			p.Text(field+".claim", *r.Claim, 1, 256)
		}
	} else if r.Claim != nil {
		p.Add(field+".claim", "applies only to the visitorClaim column")
	}
	if r.Precision != nil && (r.Column != "visitorGeoPoint" || *r.Precision < 0 || *r.Precision > 15) {
		p.Add(field+".precision", "applies only to visitorGeoPoint, from 0 to 15")
	}
	return c, p.Len() == 0
}

// compile checks a request and plans it; now is the reference of presets.
// Every problem of the request is reported at once, each naming its field.
func compile(req *Request, now time.Time) (*query, error) {
	var p apierr.Problems
	q := &query{limit: DefaultLimit}
	q.from, q.to = parseRange(&p, req.Range, now)
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > MaxLimit {
			p.Add("limit", "must be from 1 to %d", MaxLimit)
		}
		q.limit = *req.Limit
	}
	for _, l := range []struct {
		name string
		n    int
	}{{"select", len(req.Select)}, {"where", len(req.Where)}, {"groupBy", len(req.GroupBy)}} {
		if l.n > MaxColumns {
			p.Add(l.name, "must have at most %d entries", MaxColumns)
		}
	}
	if p.Len() > 0 {
		return nil, p.Err()
	}
	q.addGroupBy(&p, req.GroupBy)
	q.addSelect(&p, req.Select)
	for i := range req.Where {
		q.addFilter(&p, fmt.Sprintf("where[%d]", i), req.Where[i])
	}
	q.setOrder(&p, req.Order)
	if err := p.Err(); err != nil {
		return nil, err
	}
	for _, r := range append(slices.Clone(q.group), q.order) {
		if r.Column == "hourOfDay" || (r.Column == "datetime" && r.interval() == "hour") {
			q.hourly = true
		}
	}
	return q, nil
}

// addGroup groups by r unless it already is.
func (q *query) addGroup(r ColumnRef) {
	for i := range q.group {
		if q.group[i].same(&r) {
			return
		}
	}
	q.group = append(q.group, r)
}

// addGroupBy checks and adds the groupBy entries: dimensions only.
func (q *query) addGroupBy(p *apierr.Problems, refs []ColumnRef) {
	for i := range refs {
		r := refs[i]
		field := fmt.Sprintf("groupBy[%d]", i)
		c, ok := checkRef(p, field, &r)
		if !ok {
			continue
		}
		if c.kind == metricKind {
			p.Add(field+".column", "%s is a count: select it, order by it or filter on it, but it cannot be grouped by", r.Column)
			continue
		}
		q.addGroup(r)
	}
}

// addSelect checks and adds the answered columns; a selected dimension is
// grouped by. Without any, the answer is the groupBy columns, then
// eventsCount (documented).
func (q *query) addSelect(p *apierr.Problems, refs []ColumnRef) {
	for i := range refs {
		r := refs[i]
		c, ok := checkRef(p, fmt.Sprintf("select[%d]", i), &r)
		if !ok {
			continue
		}
		if c.kind != metricKind {
			q.addGroup(r)
		}
		q.out = append(q.out, r)
	}
	if len(refs) == 0 {
		q.out = append(slices.Clone(q.group), ColumnRef{Column: "eventsCount"})
	}
}

// addFilter checks one where entry and adds it: on rows for a dimension,
// on groups for a count.
func (q *query) addFilter(p *apierr.Problems, field string, f Filter) {
	c, ok := checkRef(p, field, &f.ColumnRef)
	if !ok {
		return
	}
	if f.Operator == "" {
		f.Operator = "in"
	}
	compare, bad := f.Operator != "in" && f.Operator != "notIn", true
	switch {
	case !slices.Contains(Operators, f.Operator):
		p.Add(field+".operator", "must be one of %v", Operators)
	case f.Values == nil:
		p.Add(field+".values", "is required")
	case len(f.Values) > MaxValues:
		p.Add(field+".values", "must have at most %d values", MaxValues)
	case compare && !c.ordered:
		p.Add(field+".operator", "%s applies to ordered columns (datetime, dayOfWeek, hourOfDay, counts, eventAskResponseRating), not %s", f.Operator, f.Column)
	case compare && len(f.Values) != 1:
		p.Add(field+".values", "must hold exactly one value with %s", f.Operator)
	default:
		bad = false
	}
	if bad {
		return
	}
	for j, v := range f.Values {
		if !c.valid(v) {
			p.Add(fmt.Sprintf("%s.values[%d]", field, j), "must be one of the %s of column %s", c.want, f.Column)
			break
		}
	}
	if f.Column == "datetime" && f.Interval == nil {
		hour := "hour" // a filter compares times to the hour, the rollups' precision
		f.Interval = &hour
	}
	if c.kind == metricKind {
		q.having = append(q.having, f)
		return
	}
	q.where = append(q.where, f)
	q.hourly = q.hourly || f.Column == "datetime" || f.Column == "hourOfDay"
}

// setOrder checks the order; without one, groups come by datetime when
// grouped by it, else by eventsCount, descending.
func (q *query) setOrder(p *apierr.Problems, o *Order) {
	if o == nil {
		q.order, q.desc = ColumnRef{Column: "eventsCount"}, true
		for _, g := range q.group {
			if g.Column == "datetime" {
				q.order, q.desc = g, false
				break
			}
		}
		return
	}
	switch {
	case o.By == nil:
		p.Add("order.by", "is required")
	case o.Direction != "asc" && o.Direction != "desc":
		p.Add("order.direction", "must be one of [asc desc]")
	default:
		c, ok := checkRef(p, "order.by", o.By)
		if !ok {
			return
		}
		known := c.kind == metricKind
		for i := range q.group {
			known = known || q.group[i].same(o.By)
		}
		if !known {
			p.Add("order.by.column", "%s must be selected or grouped by to order by it", o.By.Column)
		}
		q.order, q.desc = *o.By, o.Direction == "desc"
	}
}

// parseRange reads a preset or {from, to}.
func parseRange(p *apierr.Problems, raw json.RawMessage, now time.Time) (time.Time, time.Time) {
	if len(raw) == 0 || string(raw) == "null" {
		p.Add("range", "is required")
		return time.Time{}, time.Time{}
	}
	var preset string
	if json.Unmarshal(raw, &preset) == nil {
		d, ok := Presets[preset]
		if !ok {
			p.Add("range", "must be one of [lastYear last3Months last30Days last7Days last24Hours] or {from, to}")
			return time.Time{}, time.Time{}
		}
		return now.Add(-d), now
	}
	var custom struct {
		From *string `json:"from"`
		To   *string `json:"to"`
	}
	if json.Unmarshal(raw, &custom) != nil {
		p.Add("range", "must be a preset or {from, to}")
		return time.Time{}, time.Time{}
	}
	parse := func(field string, s *string) time.Time {
		if s == nil {
			p.Add(field, "is required")
			return time.Time{}
		}
		t, err := time.Parse(time.RFC3339Nano, *s)
		if err != nil {
			p.Add(field, "must be an RFC 3339 date-time")
		}
		return t.UTC()
	}
	from, to := parse("range.from", custom.From), parse("range.to", custom.To)
	if p.Len() == 0 {
		switch {
		case !from.Before(to):
			p.Add("range.to", "must be after range.from")
		case to.Sub(from) > MaxRange:
			p.Add("range", "must span at most %d days", int(MaxRange.Hours()/24))
		}
	}
	return from, to
}

// Reader reads bucket shards by id.
type Reader interface {
	// Buckets returns the shards of the buckets of site named by keys (none
	// for a bucket that does not exist); without sets, the rows' distinct
	// counts are left out.
	Buckets(ctx context.Context, site string, keys []Key, sets bool) ([]Bucket, error)
}

// Aggregate answers a query over the buckets of site.
func Aggregate(ctx context.Context, r Reader, site string, req *Request, now time.Time) (Result, error) {
	q, err := compile(req, now.UTC())
	if err != nil {
		return Result{}, err
	}
	p := readPlan{hourly: q.hourly, byDay: q.byDay(), sets: q.needs("visitorsCount") || q.needs("sessionsCount")}
	p.column, p.marginal = q.marginalFor()
	buckets, err := read(ctx, r, site, q.from, q.to, p)
	if err != nil {
		return Result{}, err
	}
	return q.run(ctx, buckets)
}

// readPlan says which buckets a query can read.
type readPlan struct {
	hourly   bool   // hourly buckets only
	marginal bool   // the marginal of column for whole days, else daily buckets of full rows
	column   string // of the marginal
	byDay    bool   // whole months too need their days
	sets     bool   // distinct counts are needed
}

// keys returns the buckets that cover [from, to), coarsest first: for the
// whole days [dayFrom, dayTo), months of a marginal (by day when p.byDay or
// for partial months) or days of full rows; for the partial days at the
// ends, the marginal's days by hour or hours of full rows (when p.hourly,
// the marginal's days by hour or hours of full rows everywhere). An hour belongs to the range when it starts in it
// (start is the first); read drops the rows of days and hours outside.
func keys(from, to time.Time, p readPlan) (ks []Key, start, dayFrom, dayTo time.Time) {
	start = Truncate(from, Hourly)
	if start.Before(from) {
		start = start.Add(time.Hour)
	}
	hours := func(from, to time.Time) {
		for t := from; t.Before(to); t = t.Add(time.Hour) {
			ks = append(ks, Key{Hourly, t})
		}
	}
	dayFrom, dayTo = Truncate(start, Daily), Truncate(to, Daily)
	if !dayFrom.Equal(start) {
		dayFrom = dayFrom.AddDate(0, 0, 1)
	}
	if p.hourly && p.marginal { // every day of the range by hour
		for d := Truncate(start, Daily); d.Before(to); d = d.AddDate(0, 0, 1) {
			ks = append(ks, Key{DayByHour(p.column), d})
		}
		return ks, start, dayTo, dayTo
	}
	if p.hourly || !dayFrom.Before(dayTo) {
		hours(start, to)
		return ks, start, dayTo, dayTo
	}
	if !p.marginal {
		for d := dayFrom; d.Before(dayTo); d = d.AddDate(0, 0, 1) {
			ks = append(ks, Key{Daily, d})
		}
	} else {
		for m := Truncate(dayFrom, Monthly("")); m.Before(dayTo); m = m.AddDate(0, 1, 0) {
			whole := !m.Before(dayFrom) && !m.AddDate(0, 1, 0).After(dayTo)
			if whole && !p.byDay {
				ks = append(ks, Key{Monthly(p.column), m})
			} else {
				ks = append(ks, Key{MonthByDay(p.column), m})
			}
		}
	}
	if p.marginal { // the partial days: one day by hour each
		if start.Before(dayFrom) {
			ks = append(ks, Key{DayByHour(p.column), Truncate(start, Daily)})
		}
		if dayTo.Before(to) {
			ks = append(ks, Key{DayByHour(p.column), dayTo})
		}
		return ks, start, dayFrom, dayTo
	}
	hours(start, dayFrom)
	hours(dayTo, to)
	return ks, start, dayFrom, dayTo
}

// read loads the buckets of [from, to) that p can use.
func read(ctx context.Context, r Reader, site string, from, to time.Time, p readPlan) ([]Bucket, error) {
	ks, start, dayFrom, dayTo := keys(from, to, p)
	buckets, err := r.Buckets(ctx, site, ks, p.sets)
	if err != nil {
		return nil, err
	}
	for i := range buckets {
		b := &buckets[i]
		// Rows of days (hours) outside the whole days (the range) go.
		lo, hi := dayFrom, dayTo
		switch {
		case b.Gran.perHour():
			lo, hi = start, to
		case !b.Gran.perDay():
			continue
		}
		b.Rows = slices.DeleteFunc(b.Rows, func(row Row) bool {
			t := rowStart(b, &row)
			return t.Before(lo) || !t.Before(hi)
		})
	}
	return buckets, nil
}

// group is one group of the answer.
type group struct {
	values   []any // of q.group
	events   int64
	visitors Counter
	sessions Counter
	feedback map[string]int64
	ask      map[string]int64
}

func (q *query) needs(col string) bool {
	for _, r := range q.out {
		if r.Column == col {
			return true
		}
	}
	for _, f := range q.having {
		if f.Column == col {
			return true
		}
	}
	return q.order.Column == col
}

func (q *query) run(ctx context.Context, buckets []Bucket) (Result, error) {
	a := q.newAggregation()
	for bi := range buckets {
		if bi%64 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		b := &buckets[bi]
		for ri := range b.Rows {
			a.add(b, &b.Rows[ri])
		}
	}
	kept := a.order[:0]
	for _, g := range a.order {
		if q.keep(g) {
			kept = append(kept, g)
		}
	}
	q.sort(kept)
	if len(kept) > q.limit {
		kept = kept[:q.limit]
	}
	res := Result{Columns: make([]Values, len(q.out))}
	for i := range q.out {
		r := &q.out[i]
		res.Columns[i] = Values{Column: r.Column, Claim: r.Claim, Values: make([]any, 0, len(kept))}
		for _, g := range kept {
			res.Columns[i].Values = append(res.Columns[i].Values, q.value(g, r))
		}
	}
	return res, nil
}

// aggregation gathers the rows of a query's buckets into its groups.
type aggregation struct {
	q                                 *query
	groups                            map[string]*group
	order                             []*group // in the order first met
	visitors, sessions, feedback, ask bool     // what the groups count
	claims                            bool     // rows' claims are decoded
	propIdx                           int      // of visitorClaimProperty in q.group, or -1
	key                               strings.Builder
	vals                              []any
}

func (q *query) newAggregation() *aggregation {
	a := &aggregation{q: q, groups: map[string]*group{}, propIdx: -1, vals: make([]any, len(q.group)),
		visitors: q.needs("visitorsCount"), sessions: q.needs("sessionsCount"),
		feedback: q.needs("pageFeedbackRating"), ask: q.needs("askResponseRating")}
	for _, r := range append(slices.Clone(q.group), q.where2refs()...) {
		a.claims = a.claims || r.Column == "visitorClaim" || r.Column == "visitorClaimProperty"
	}
	for i, g := range q.group {
		if g.Column == "visitorClaimProperty" {
			a.propIdx = i
		}
	}
	return a
}

// add counts row of b in its groups (one per claim property when grouped
// by visitorClaimProperty), unless the row filters drop it.
func (a *aggregation) add(b *Bucket, row *Row) {
	c := cell{dims: &row.Dims, start: rowStart(b, row)}
	if a.claims && row.Dims.Claims != "" {
		_ = json.Unmarshal([]byte(row.Dims.Claims), &c.claims)
	}
	if !a.q.match(&c) {
		return
	}
	if a.propIdx < 0 {
		if g := a.groupOf(&c, ""); g != nil {
			a.count(g, row)
		}
		return
	}
	for prop := range c.claims {
		if g := a.groupOf(&c, prop); g != nil {
			a.count(g, row)
		}
	}
}

// groupOf returns the group of cell c (with claim property prop), made
// when new; nil when c has no value in a grouped column.
func (a *aggregation) groupOf(c *cell, prop string) *group {
	q := a.q
	a.key.Reset()
	for i := range q.group {
		v, ok := any(prop), true
		if i != a.propIdx {
			v, ok = columns[q.group[i].Column].get(c, &q.group[i])
		}
		if !ok {
			return nil
		}
		a.vals[i] = v
		a.key.WriteString(keyOf(v))
		a.key.WriteByte(0x1f)
	}
	g := a.groups[a.key.String()]
	if g == nil {
		g = &group{values: slices.Clone(a.vals)}
		a.groups[a.key.String()] = g
		a.order = append(a.order, g)
	}
	return g
}

// count adds row's counts to g.
func (a *aggregation) count(g *group, row *Row) {
	g.events += row.Events
	if a.visitors {
		g.visitors.Merge(&row.Visitors)
	}
	if a.sessions {
		g.sessions.Merge(&row.Sessions)
	}
	if a.feedback && row.Dims.Feedback != "" {
		if g.feedback == nil {
			g.feedback = map[string]int64{}
		}
		g.feedback[row.Dims.Feedback] += row.Events
	}
	if a.ask && row.Dims.AskRating != 0 {
		if g.ask == nil {
			g.ask = map[string]int64{}
		}
		if row.Dims.AskRating > 0 {
			g.ask["positive"] += row.Events
		} else {
			g.ask["negative"] += row.Events
		}
	}
}

func (q *query) where2refs() []ColumnRef {
	out := make([]ColumnRef, len(q.where))
	for i := range q.where {
		out[i] = q.where[i].ColumnRef
	}
	return out
}

// value is the value of column r in group g.
func (q *query) value(g *group, r *ColumnRef) any {
	switch r.Column {
	case "eventsCount":
		return g.events
	case "visitorsCount":
		return g.visitors.Count()
	case "sessionsCount":
		return g.sessions.Count()
	case "pageFeedbackRating":
		return map[string]int64{"ok": g.feedback["ok"], "good": g.feedback["good"], "bad": g.feedback["bad"]}
	case "askResponseRating":
		return map[string]int64{"positive": g.ask["positive"], "negative": g.ask["negative"]}
	}
	for i := range q.group {
		if q.group[i].same(r) {
			return g.values[i]
		}
	}
	return nil
}

// match applies the row filters.
func (q *query) match(c *cell) bool {
	for i := range q.where {
		f := &q.where[i]
		if f.Column == "visitorClaimProperty" {
			hit := false
			for _, v := range f.Values {
				_, has := c.claims[v.(string)]
				hit = hit || has
			}
			if hit != (f.Operator == "in") {
				return false
			}
			continue
		}
		v, ok := columns[f.Column].get(c, &f.ColumnRef)
		if !test(f, v, ok) {
			return false
		}
	}
	return true
}

// keep applies the count filters.
func (q *query) keep(g *group) bool {
	for i := range q.having {
		f := &q.having[i]
		if !test(f, normalize(q.value(g, &f.ColumnRef)), true) {
			return false
		}
	}
	return true
}

// normalize turns a computed value into its JSON-decoded form.
func normalize(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// test applies one filter to a value (ok false: the row has none).
func test(f *Filter, v any, ok bool) bool {
	switch f.Operator {
	case "in", "notIn":
		hit := false
		if ok {
			k := keyOf(v)
			for _, w := range f.Values {
				if keyOf(w) == k || (f.Column == "datetime" && sameTime(v, w)) {
					hit = true
					break
				}
			}
		}
		return hit == (f.Operator == "in")
	}
	if !ok {
		return false
	}
	c := compare(v, f.Values[0])
	switch f.Operator {
	case "greaterThan":
		return c > 0
	case "greaterThanOrEqual":
		return c >= 0
	case "lessThan":
		return c < 0
	default:
		return c <= 0
	}
}

func sameTime(a, b any) bool { return compare(a, b) == 0 }

// compare orders two values: numbers, date-times, then strings; null first.
func compare(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	if x, ok := number(a); ok {
		if y, ok := number(b); ok {
			switch {
			case x < y:
				return -1
			case x > y:
				return 1
			}
			return 0
		}
	}
	as, aok := a.(string)
	bs, bok := b.(string)
	if aok && bok {
		if ta, err := time.Parse(time.RFC3339Nano, as); err == nil {
			if tb, err := time.Parse(time.RFC3339Nano, bs); err == nil {
				return ta.Compare(tb)
			}
		}
		return strings.Compare(as, bs)
	}
	return strings.Compare(keyOf(a), keyOf(b))
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func (q *query) sort(gs []*group) {
	sort.SliceStable(gs, func(i, j int) bool {
		c := compare(q.value(gs[i], &q.order), q.value(gs[j], &q.order))
		if c == 0 {
			return false
		}
		return (c < 0) != q.desc
	})
}
