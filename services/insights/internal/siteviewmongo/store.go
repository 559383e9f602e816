// Package siteviewmongo stores insights' projection of sites
// (siteview.Store) in MongoDB.
package siteviewmongo

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/insights/internal/siteview"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection holds the projection.
const Collection = "site_views"

// Store is the projection's MongoDB store.
type Store struct{ db mongox.DB }

// NewStore returns the store on db.
func NewStore(db mongox.DB) *Store { return &Store{db: db} }

// Get implements siteview.Store.
func (s *Store) Get(ctx context.Context, id string) (siteview.Site, bool, error) {
	var st siteview.Site
	err := s.db.Collection(Collection).FindOne(ctx, bson.M{"_id": id}).Decode(&st)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return st, false, nil
	}
	if err != nil {
		return st, false, mongox.Err(err, "site")
	}
	return st, true, nil
}

// Put implements siteview.Store.
func (s *Store) Put(ctx context.Context, st siteview.Site) error {
	// One replace of a record no newer than st, or an insert, which a
	// newer record's _id refuses: a compare-and-set of the record's time.
	_, err := s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": st.ID, "at": bson.M{"$lte": st.At}}, st,
		options.Replace().SetUpsert(true))
	if mongo.IsDuplicateKeyError(err) {
		return nil // a newer record is already here
	}
	return mongox.Err(err, "site")
}
