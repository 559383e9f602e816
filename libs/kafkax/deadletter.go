package kafkax

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// DeadLetterCollection holds, in the database of the relay or consumer that
// gave up on them, the events that can never be published or handled.
const DeadLetterCollection = "dead_letters"

// Sources of dead letters.
const (
	SourceRelay    = "relay"
	SourceConsumer = "consumer"
)

// DeadLetter is one event given up on. _id is "relay:<collection>:<event id>"
// or "consumer:<group>:<event id>", so an event buried again by the same
// source (a second relay replica, a redelivery) counts up Count instead of
// adding a record.
type DeadLetter struct {
	ID     string `bson:"_id"`
	Source string `bson:"source"` // SourceRelay or SourceConsumer
	Topic  string `bson:"topic"`
	// Collection and Document name the document the relay took the event
	// from (relay).
	Collection string        `bson:"collection,omitempty"`
	Document   bson.RawValue `bson:"document,omitempty"`
	// Group, Partition and Offset say where the consumer read it (consumer).
	Group     string `bson:"group,omitempty"`
	Partition int    `bson:"partition,omitempty"`
	Offset    int64  `bson:"offset,omitempty"`
	// Event is the event as it was stored (relay) or received (consumer).
	Event         bson.Raw  `bson:"event"`
	Error         string    `bson:"error"`
	Attempts      int       `bson:"attempts"`
	FirstFailedAt time.Time `bson:"firstFailedAt"`
	LastFailedAt  time.Time `bson:"lastFailedAt"`
	Count         int       `bson:"count"` // times this source buried the event
}

// Permanent wraps err, returned by a Handler, to say the event can never be
// handled (its data is wrong, say): the consumer records it in
// DeadLetterCollection and goes on with the next event instead of retrying.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return &permanentError{err: err}
}

// IsPermanent reports whether err was wrapped by Permanent.
func IsPermanent(err error) bool {
	var p *permanentError
	return errors.As(err, &p)
}

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// maxErrorText bounds the error text kept with a failure or a dead letter.
const maxErrorText = 1024

func errorText(err error) string {
	s := err.Error()
	if len(s) > maxErrorText {
		s = s[:maxErrorText]
	}
	return s
}

// bury writes (or counts again) the dead letter id of db: fields are set,
// first is kept from the first burial, count goes up by one.
func bury(ctx context.Context, db *mongo.Database, id string, fields bson.M, first time.Time) error {
	_, err := db.Collection(DeadLetterCollection).UpdateOne(ctx, bson.M{"_id": id}, bson.M{
		"$set":         fields,
		"$setOnInsert": bson.M{"firstFailedAt": first},
		"$inc":         bson.M{"count": 1},
	}, options.UpdateOne().SetUpsert(true))
	if err != nil {
		return fmt.Errorf("record dead letter %s: %w", id, err)
	}
	return nil
}

// deadLetters counts buried events on the global meter provider (a no-op
// until one is set).
var deadLetters = sync.OnceValue(func() metric.Int64Counter {
	c, err := otel.Meter(tracerName).Int64Counter("kafkax.dead_letters",
		metric.WithUnit("{event}"),
		metric.WithDescription("Events moved to the dead_letters collection: unpublishable (relay) or refused by their handler (consumer)."))
	if err != nil {
		return noop.Int64Counter{}
	}
	return c
})

func countDeadLetter(ctx context.Context, attrs ...attribute.KeyValue) {
	deadLetters().Add(ctx, 1, metric.WithAttributes(attrs...))
}

// ignored counts the events consumers ignored as unknown (IsUnknown).
var ignored = sync.OnceValue(func() metric.Int64Counter {
	c, err := otel.Meter(tracerName).Int64Counter("kafkax.ignored_events",
		metric.WithUnit("{event}"),
		metric.WithDescription("Events a consumer skipped as unknown to it: an undeclared type or a newer schema version."))
	if err != nil {
		return noop.Int64Counter{}
	}
	return c
})

func countIgnored(ctx context.Context, attrs ...attribute.KeyValue) {
	ignored().Add(ctx, 1, metric.WithAttributes(attrs...))
}
