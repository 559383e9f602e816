package envelope_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/docspub/platform/libs/envelope"
	"github.com/google/go-cmp/cmp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

func TestNew(t *testing.T) {
	t.Parallel()
	a := envelope.New("thing.updated", "o1", "s1", map[string]string{"title": "<a & b>"})
	b := envelope.New("thing.updated", "o1", "s1", nil)
	if a.ID == "" || a.ID == b.ID || len(a.ID) != 32 {
		t.Errorf("ids %q and %q: want two distinct 32-character ids", a.ID, b.ID)
	}
	if a.OccurredAt.IsZero() || a.OccurredAt.Location().String() != "UTC" {
		t.Errorf("occurredAt %v: want now, in UTC", a.OccurredAt)
	}
	got := struct{ Type, Organization, Subject, Data string }{a.Type, a.Organization, a.Subject, string(a.Data)}
	want := struct{ Type, Organization, Subject, Data string }{"thing.updated", "o1", "s1", `{"title":"<a & b>"}`}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("New (-got +want):\n%s", diff)
	}
	if b.Data != nil {
		t.Errorf("data of nil = %s, want none", b.Data)
	}
}

func TestEnvelopeJSON(t *testing.T) {
	t.Parallel()
	ev := envelope.New("thing.updated", "", "m1", nil)
	ev.Trace = map[string]string{"traceparent": "x"}
	b, err := envelope.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"organization", "data", "Trace", "trace"} {
		if _, ok := got[k]; ok {
			t.Errorf("envelope %s has %q", b, k)
		}
	}
}

// Encode writes the bytes Marshal writes, Data copied in as it is.
func TestEncodeIsMarshal(t *testing.T) {
	t.Parallel()
	markup := envelope.New("page.updated", "o1", "p1", map[string]any{"html": "<p>a & b</p>", "é": "\u2028", "n": []int{1, 2}})
	versioned := envelope.NewVersion("thing.renamed", 2, "", "s1", map[string]string{"title": "Ünïcode ✓"})
	versioned.Trace = map[string]string{"traceparent": "x"}
	for _, ev := range []envelope.Event{
		markup, versioned,
		envelope.New("thing.deleted", "o1", "t1", nil),
		envelope.New("visits.accepted", "o1", "site", []map[string]any{{"url": "https://x/?a=1&b=<2>"}}),
		{ID: "i", Type: "t", Subject: "s", Data: json.RawMessage(`[]`)},
	} {
		want, err := envelope.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := envelope.Encode(ev)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("Encode(%s) =\n%s\nwant\n%s", ev.Type, got, want)
		}
	}
}

func TestWithTrace(t *testing.T) { // not parallel: sets the global propagator
	otel.SetTextMapPropagator(propagation.TraceContext{})
	t.Cleanup(func() { otel.SetTextMapPropagator(propagation.NewCompositeTextMapPropagator()) })
	ev := envelope.New("thing.updated", "o1", "s1", nil)
	if got := ev.WithTrace(context.Background()).Trace; got != nil {
		t.Errorf("trace without a span = %v, want none", got)
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled,
	})
	ctx := trace.ContextWithSpanContext(context.Background(), sc)
	got := ev.WithTrace(ctx).Trace
	want := map[string]string{"traceparent": "00-01000000000000000000000000000000-0200000000000000-01"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("WithTrace (-got +want):\n%s", diff)
	}
	if ev.Trace != nil {
		t.Error("WithTrace changed the event it was called on")
	}
}
