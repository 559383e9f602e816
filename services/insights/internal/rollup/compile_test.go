package rollup

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/google/go-cmp/cmp"
)

// compiled is what a test reads of a compiled query.
type compiled struct {
	From, To      string
	Out, Group    []string // columns, datetime with its interval, visitorClaim with its claim
	Where, Having []string // column operator
	Order         string
	Desc, Hourly  bool
	Limit         int
}

func refName(r ColumnRef) string {
	switch r.Column {
	case "datetime":
		return "datetime/" + r.interval()
	case "visitorClaim":
		return "visitorClaim/" + r.claim()
	}
	return r.Column
}

func summarize(q *query) compiled {
	c := compiled{From: q.from.Format(time.RFC3339), To: q.to.Format(time.RFC3339), Order: refName(q.order),
		Desc: q.desc, Hourly: q.hourly, Limit: q.limit}
	for _, r := range q.out {
		c.Out = append(c.Out, refName(r))
	}
	for _, r := range q.group {
		c.Group = append(c.Group, refName(r))
	}
	for _, f := range q.where {
		c.Where = append(c.Where, refName(f.ColumnRef)+" "+f.Operator)
	}
	for _, f := range q.having {
		c.Having = append(c.Having, refName(f.ColumnRef)+" "+f.Operator)
	}
	return c
}

func TestCompile(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 10, 12, 30, 0, 0, time.UTC)
	day := compiled{From: "2026-03-09T12:30:00Z", To: "2026-03-10T12:30:00Z", Limit: DefaultLimit}
	with := func(f func(c *compiled)) compiled {
		c := day
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name  string
		query string
		want  compiled
		field string // of the error; "" when the query compiles
		msg   string // part of the error's message
	}{
		{name: "count of a preset", query: `{"range":"last24Hours","select":[{"column":"eventsCount"}]}`,
			want: with(func(c *compiled) { c.Out, c.Order, c.Desc = []string{"eventsCount"}, "eventsCount", true })},
		{name: "no select: groupBy then eventsCount", query: `{"range":"last24Hours","groupBy":[{"column":"urlPath"}]}`,
			want: with(func(c *compiled) {
				c.Out, c.Group, c.Order, c.Desc = []string{"urlPath", "eventsCount"}, []string{"urlPath"}, "eventsCount", true
			})},
		{name: "selected dimension is grouped once", query: `{"range":"last24Hours","groupBy":[{"column":"urlPath"}],
			"select":[{"column":"urlPath"},{"column":"visitorsCount"}]}`,
			want: with(func(c *compiled) {
				c.Out, c.Group, c.Order, c.Desc = []string{"urlPath", "visitorsCount"}, []string{"urlPath"}, "eventsCount", true
			})},
		{name: "by hour orders by time and reads hours", query: `{"range":"last24Hours","select":[{"column":"datetime","interval":"hour"},{"column":"eventsCount"}]}`,
			want: with(func(c *compiled) {
				c.Out, c.Group, c.Order, c.Hourly = []string{"datetime/hour", "eventsCount"}, []string{"datetime/hour"}, "datetime/hour", true
			})},
		{name: "filters on rows and on counts", query: `{"range":"last24Hours","select":[{"column":"eventsCount"}],
			"where":[{"column":"urlPath","values":["/a"]},{"column":"eventsCount","operator":"greaterThan","values":[3]}]}`,
			want: with(func(c *compiled) {
				c.Out, c.Order, c.Desc = []string{"eventsCount"}, "eventsCount", true
				c.Where, c.Having = []string{"urlPath in"}, []string{"eventsCount greaterThan"}
			})},
		{name: "a datetime filter reads hours", query: `{"range":"last24Hours","select":[{"column":"eventsCount"}],
			"where":[{"column":"datetime","operator":"greaterThanOrEqual","values":["2026-03-10T00:00:00Z"]}]}`,
			want: with(func(c *compiled) {
				c.Out, c.Order, c.Desc, c.Hourly = []string{"eventsCount"}, "eventsCount", true, true
				c.Where = []string{"datetime/hour greaterThanOrEqual"} // compared to the hour
			})},
		{name: "order and limit", query: `{"range":{"from":"2026-01-01T00:00:00Z","to":"2026-02-01T00:00:00Z"},"limit":5,
			"groupBy":[{"column":"visitorClaim","claim":"plan"}],"order":{"by":{"column":"visitorClaim","claim":"plan"},"direction":"asc"}}`,
			want: compiled{From: "2026-01-01T00:00:00Z", To: "2026-02-01T00:00:00Z", Limit: 5,
				Out: []string{"visitorClaim/plan", "eventsCount"}, Group: []string{"visitorClaim/plan"}, Order: "visitorClaim/plan"}},

		{name: "no range", query: `{"select":[{"column":"eventsCount"}]}`, field: "range", msg: "is required"},
		{name: "unknown preset", query: `{"range":"lastWeek"}`, field: "range", msg: "must be one of"},
		{name: "range backwards", query: `{"range":{"from":"2026-02-01T00:00:00Z","to":"2026-01-01T00:00:00Z"}}`,
			field: "range.to", msg: "after range.from"},
		{name: "range not a time", query: `{"range":{"from":"yesterday","to":"2026-01-01T00:00:00Z"}}`, field: "range.from", msg: "RFC 3339"},
		{name: "limit too big", query: `{"range":"last24Hours","limit":1001}`, field: "limit", msg: "from 1 to 1000"},
		{name: "too many select entries", query: `{"range":"last24Hours","select":[` + strings.Repeat(`{"column":"eventsCount"},`, MaxColumns) +
			`{"column":"eventsCount"}]}`, field: "select", msg: "at most 20"},
		{name: "unknown column", query: `{"range":"last24Hours","select":[{"column":"colour"}]}`, field: "select[0].column", msg: "must be one of"},
		{name: "missing column", query: `{"range":"last24Hours","groupBy":[{}]}`, field: "groupBy[0].column", msg: "is required"},
		{name: "group by a count", query: `{"range":"last24Hours","groupBy":[{"column":"visitorsCount"}]}`,
			field: "groupBy[0].column", msg: "cannot be grouped by"},
		{name: "interval off datetime", query: `{"range":"last24Hours","select":[{"column":"urlPath","interval":"day"}]}`,
			field: "select[0].interval", msg: "only to the datetime column"},
		{name: "unknown interval", query: `{"range":"last24Hours","select":[{"column":"datetime","interval":"fortnight"}]}`,
			field: "select[0].interval", msg: "must be one of"},
		{name: "claim missing", query: `{"range":"last24Hours","select":[{"column":"visitorClaim"}]}`,
			field: "select[0].claim", msg: "is required"},
		{name: "unknown operator", query: `{"range":"last24Hours","where":[{"column":"urlPath","operator":"like","values":["/a"]}]}`,
			field: "where[0].operator", msg: "must be one of"},
		{name: "filter without values", query: `{"range":"last24Hours","where":[{"column":"urlPath"}]}`,
			field: "where[0].values", msg: "is required"},
		{name: "comparison of an unordered column", query: `{"range":"last24Hours","where":[{"column":"urlPath","operator":"lessThan","values":["/a"]}]}`,
			field: "where[0].operator", msg: "ordered columns"},
		{name: "comparison with two values", query: `{"range":"last24Hours","where":[{"column":"eventsCount","operator":"lessThan","values":[1,2]}]}`,
			field: "where[0].values", msg: "exactly one value"},
		{name: "value of the wrong type", query: `{"range":"last24Hours","where":[{"column":"eventsCount","operator":"lessThan","values":["many"]}]}`,
			field: "where[0].values[0]", msg: "column eventsCount"},
		{name: "order without by", query: `{"range":"last24Hours","order":{"direction":"asc"}}`, field: "order.by", msg: "is required"},
		{name: "order direction", query: `{"range":"last24Hours","order":{"by":{"column":"eventsCount"},"direction":"up"}}`,
			field: "order.direction", msg: "asc desc"},
		{name: "order by an ungrouped dimension", query: `{"range":"last24Hours","order":{"by":{"column":"urlPath"},"direction":"asc"}}`,
			field: "order.by.column", msg: "selected or grouped by"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var req Request
			if err := json.Unmarshal([]byte(tc.query), &req); err != nil {
				t.Fatal(err)
			}
			q, err := compile(&req, now)
			if tc.field == "" {
				if err != nil {
					t.Fatalf("compile: %v", err)
				}
				if diff := cmp.Diff(summarize(q), tc.want); diff != "" {
					t.Errorf("compiled query (-got +want):\n%s", diff)
				}
				return
			}
			var ae *apierr.Error
			if !errors.As(err, &ae) {
				t.Fatalf("compile: %v, want an error on %s", err, tc.field)
			}
			if ae.Status != 400 || ae.Field != tc.field || !strings.Contains(ae.Message, tc.msg) {
				t.Errorf("error %d on %q: %q; want 400 on %q containing %q", ae.Status, ae.Field, ae.Message, tc.field, tc.msg)
			}
		})
	}
}
