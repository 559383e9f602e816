package mongox_test

import (
	"context"
	"testing"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/otelx"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Not parallel: it installs the global tracer provider.
func TestCommandsWithinATraceAreSpans(t *testing.T) {
	exp, shutdown := otelx.SetupInMemory("svc")
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	db := mongotest.Database(t)
	things := db.Collection("things")

	// Outside a trace: no span.
	if _, err := things.InsertOne(context.Background(), bson.M{"_id": "untraced"}); err != nil {
		t.Fatal(err)
	}
	ctx, request := otel.Tracer("test").Start(context.Background(), "PATCH /things/a")
	if _, err := things.InsertOne(ctx, bson.M{"_id": "a", "secret": "s3cr3t"}); err != nil {
		t.Fatal(err)
	}
	if err := things.FindOne(ctx, bson.M{"_id": "a"}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "noSuchCommand", Value: 1}}).Err(); err == nil {
		t.Fatal("an unknown command succeeded")
	}
	request.End()

	type got struct {
		Name, Parent, Collection, Namespace, System string
		Kind                                        trace.SpanKind
		Failed, Values                              bool
	}
	var spans []got
	for _, s := range exp.GetSpans() {
		if s.InstrumentationScope.Name != "github.com/docspub/platform/libs/mongox" {
			continue // the request, and the embedded server's own spans
		}
		attrs := map[attribute.Key]string{}
		for _, a := range s.Attributes {
			attrs[a.Key] = a.Value.Emit()
			if a.Value.Emit() == "s3cr3t" || a.Value.Emit() == "untraced" {
				spans = append(spans, got{Name: s.Name, Values: true})
			}
		}
		parent := "other"
		if s.Parent.SpanID() == request.SpanContext().SpanID() && s.SpanContext.TraceID() == request.SpanContext().TraceID() {
			parent = "request"
		}
		spans = append(spans, got{Name: s.Name, Parent: parent, Kind: s.SpanKind, Collection: attrs["db.collection.name"],
			Namespace: attrs["db.namespace"], System: attrs["db.system.name"], Failed: s.Status.Code == codes.Error})
	}
	want := []got{
		{Name: "insert things", Parent: "request", Kind: trace.SpanKindClient, Collection: "things", Namespace: db.Name(), System: "mongodb"},
		{Name: "find things", Parent: "request", Kind: trace.SpanKindClient, Collection: "things", Namespace: db.Name(), System: "mongodb"},
		{Name: "noSuchCommand", Parent: "request", Kind: trace.SpanKindClient, Namespace: db.Name(), System: "mongodb", Failed: true},
	}
	if diff := cmp.Diff(spans, want); diff != "" {
		t.Errorf("driver spans (-got +want):\n%s", diff)
	}
}

// The driver hands the monitor an empty document for redacted commands
// (authentication, hello); the tracer names the span by the command alone.
func TestRedactedCommandIsASpanWithoutCollection(t *testing.T) {
	exp, shutdown := otelx.SetupInMemory("svc")
	t.Cleanup(func() { _ = shutdown(context.Background()) })
	ctx, request := otel.Tracer("test").Start(context.Background(), "request")
	defer request.End()
	m := mongox.CommandTracer()
	m.Started(ctx, &event.CommandStartedEvent{CommandName: "saslStart", DatabaseName: "admin", RequestID: 7, ConnectionID: "db:27017[-1]"})
	m.Succeeded(ctx, &event.CommandSucceededEvent{CommandFinishedEvent: event.CommandFinishedEvent{CommandName: "saslStart", RequestID: 7, ConnectionID: "db:27017[-1]"}})
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].Name != "saslStart" {
		t.Fatalf("spans %+v, want one named saslStart", spans)
	}
	for _, a := range spans[0].Attributes {
		if a.Key == "db.collection.name" {
			t.Errorf("a redacted command has collection %q", a.Value.Emit())
		}
	}
}
