// Package mongox connects to MongoDB (mongo-driver v2), sets up indexes and
// translates driver errors into apierr sentinels.
package mongox

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Connect connects to uri and pings it, retrying until ctx ends or 30s pass.
// Commands sent within a trace are recorded as spans (CommandTracer).
func Connect(ctx context.Context, uri string) (*mongo.Client, error) {
	client, err := mongo.Connect(options.Client().ApplyURI(uri).SetTimeout(30 * time.Second).SetMonitor(CommandTracer()))
	if err != nil {
		return nil, fmt.Errorf("connect mongodb: %w", err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = client.Ping(pctx, nil)
		cancel()
		if err == nil {
			return client, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			_ = client.Disconnect(context.Background())
			return nil, fmt.Errorf("ping mongodb: %w", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Index is one index of a collection.
type Index struct {
	Collection string
	Model      mongo.IndexModel
}

// Keys returns an ascending index of collection on the keys, in order.
func Keys(collection string, keys ...string) Index {
	d := bson.D{}
	for _, k := range keys {
		d = append(d, bson.E{Key: k, Value: 1})
	}
	return Index{Collection: collection, Model: mongo.IndexModel{Keys: d}}
}

// Unique returns a unique ascending index of collection on the keys, in order.
func Unique(collection string, keys ...string) Index {
	ix := Keys(collection, keys...)
	ix.Model.Options = options.Index().SetUnique(true)
	return ix
}

// EnsureIndexes creates the indexes (creating an existing one is a no-op).
func EnsureIndexes(ctx context.Context, db *mongo.Database, indexes ...Index) error {
	for _, ix := range indexes {
		if _, err := db.Collection(ix.Collection).Indexes().CreateOne(ctx, ix.Model); err != nil {
			return fmt.Errorf("create index on %s: %w", ix.Collection, err)
		}
	}
	return nil
}

// Err translates a driver error: no documents → apierr.ErrNotFound (with what
// as its message), duplicate key → apierr.ErrConflict; others are wrapped.
func Err(err error, what string) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return apierr.NotFound("%s not found", what)
	case mongo.IsDuplicateKeyError(err):
		return apierr.Conflict("%s already exists", what)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// Ping returns a readiness check for the client.
func Ping(client *mongo.Client) func(context.Context) error {
	return func(ctx context.Context) error { return client.Ping(ctx, nil) }
}
