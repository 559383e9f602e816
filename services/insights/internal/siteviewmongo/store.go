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
	unlock := s.db.Lock(Collection, st.ID)
	defer unlock()
	cur, ok, err := s.Get(ctx, st.ID)
	if err != nil {
		return err
	}
	if ok && cur.At.After(st.At) {
		return nil
	}
	_, err = s.db.Collection(Collection).ReplaceOne(ctx, bson.M{"_id": st.ID}, st, options.Replace().SetUpsert(true))
	return mongox.Err(err, "site")
}
