package rollupmongo_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/rollup"
	"github.com/docspub/platform/services/insights/internal/rollupmongo"
	"github.com/docspub/platform/services/insights/internal/visit"
	"github.com/google/go-cmp/cmp"
)

// Queries over known visits at known times: intervals, derived time
// columns, comparisons, filters on counts, claims, aggregate objects.
func TestAggregateColumns(t *testing.T) {
	ctx := context.Background()
	store := rollupmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	now := time.Date(2026, 3, 20, 12, 30, 0, 0, time.UTC) // a Friday
	mon := time.Date(2026, 3, 16, 9, 0, 0, 0, time.UTC)   // Monday 09:00
	at := func(day, hour int) time.Time { return mon.AddDate(0, 0, day).Add(time.Duration(hour) * time.Hour) }
	v := func(t time.Time, visitor string, d visit.Dims) visit.Visit {
		if d.EventType == "" {
			d.EventType = "page_view"
		}
		return visit.Visit{Time: t, Visitor: visitor, Session: visitor + "-s", Dims: d}
	}
	vs := []visit.Visit{
		v(at(0, 0), "a", visit.Dims{URLPath: "/x", Claims: `{"plan":"pro","team":"core"}`}),
		v(at(0, 1), "a", visit.Dims{URLPath: "/x", Claims: `{"plan":"pro","team":"core"}`}),
		v(at(1, 0), "b", visit.Dims{URLPath: "/y", Claims: `{"plan":"free"}`}),
		v(at(2, 5), "c", visit.Dims{URLPath: "/y", EventType: "page_post_feedback", Feedback: "good"}),
		v(at(2, 5), "d", visit.Dims{URLPath: "/y", EventType: "page_post_feedback", Feedback: "bad"}),
		v(at(-7, 0), "e", visit.Dims{URLPath: "/z"}), // the Monday before
	}
	if err := rollup.NewApplier(store, nil).Apply(ctx, []rollup.Batch{{ID: "q", Org: "o", Site: "s", Visits: vs}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		req  string
		want string
	}{
		{"empty select: groupBy then eventsCount", `{"range":"last30Days","groupBy":[{"column":"urlPath"}],"order":{"by":{"column":"urlPath"},"direction":"asc"}}`,
			`[{"column":"urlPath","values":["/x","/y","/z"]},{"column":"eventsCount","values":[2,3,1]}]`},
		{"weeks start on Monday", `{"range":"last30Days","select":[{"column":"datetime","interval":"week"},{"column":"visitorsCount"}]}`,
			`[{"column":"datetime","values":["2026-03-09T00:00:00Z","2026-03-16T00:00:00Z"]},{"column":"visitorsCount","values":[1,4]}]`},
		{"months", `{"range":"last30Days","select":[{"column":"datetime","interval":"month"},{"column":"eventsCount"}]}`,
			`[{"column":"datetime","values":["2026-03-01T00:00:00Z"]},{"column":"eventsCount","values":[6]}]`},
		{"day of week and hour of day", `{"range":"last30Days","select":[{"column":"dayOfWeek"},{"column":"hourOfDay"},{"column":"eventsCount"}],"order":{"by":{"column":"eventsCount"},"direction":"desc"},"limit":1}`,
			`[{"column":"dayOfWeek","values":[1]},{"column":"hourOfDay","values":[9]},{"column":"eventsCount","values":[2]}]`},
		{"greaterThan on datetime", `{"range":"last30Days","select":[{"column":"eventsCount"}],"where":[{"column":"datetime","operator":"greaterThanOrEqual","values":["2026-03-17T09:00:00Z"]}]}`,
			`[{"column":"eventsCount","values":[3]}]`},
		{"filter on a count", `{"range":"last30Days","select":[{"column":"urlPath"}],"where":[{"column":"eventsCount","operator":"greaterThan","values":[1]}],"order":{"by":{"column":"urlPath"},"direction":"desc"}}`,
			`[{"column":"urlPath","values":["/y","/x"]}]`},
		{"a claim", `{"range":"last30Days","select":[{"column":"visitorClaim","claim":"plan"},{"column":"eventsCount"}],"order":{"by":{"column":"visitorClaim","claim":"plan"},"direction":"asc"}}`,
			`[{"column":"visitorClaim","claim":"plan","values":["free","pro"]},{"column":"eventsCount","values":[1,2]}]`},
		{"claim names", `{"range":"last30Days","select":[{"column":"visitorClaimProperty"},{"column":"visitorsCount"}],"order":{"by":{"column":"visitorClaimProperty"},"direction":"asc"}}`,
			`[{"column":"visitorClaimProperty","values":["plan","team"]},{"column":"visitorsCount","values":[2,1]}]`},
		{"feedback ratings", `{"range":"last30Days","select":[{"column":"pageFeedbackRating"}],"where":[{"column":"urlPath","values":["/y"]}]}`,
			`[{"column":"pageFeedbackRating","values":[{"bad":1,"good":1,"ok":0}]}]`},
		{"authenticated visitors", `{"range":"last30Days","select":[{"column":"visitorAuthenticated"},{"column":"eventsCount"}],"order":{"by":{"column":"visitorAuthenticated"},"direction":"asc"}}`,
			`[{"column":"visitorAuthenticated","values":[false]},{"column":"eventsCount","values":[6]}]`},
		{"range from..to", `{"range":{"from":"2026-03-16T09:00:00Z","to":"2026-03-16T10:00:00Z"},"select":[{"column":"eventsCount"}]}`,
			`[{"column":"eventsCount","values":[1]}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var req rollup.Request
			if err := json.Unmarshal([]byte(tc.req), &req); err != nil {
				t.Fatal(err)
			}
			res, err := rollup.Aggregate(ctx, store, "s", &req, now)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(res.Columns)
			var g, w any
			_ = json.Unmarshal(got, &g)
			_ = json.Unmarshal([]byte(tc.want), &w)
			if diff := cmp.Diff(w, g); diff != "" {
				t.Errorf("columns (-want +got):\n%s", diff)
			}
		})
	}
}
