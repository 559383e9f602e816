// Package customfieldmongo stores custom field definitions and space values
// in MongoDB (libs/docstore): every write pushes its event onto the written
// document in the same update (the outbox of libs/kafkax), a removed
// definition is tombstoned with its name freed, and every read skips
// tombstones. Driver errors never leave this package.
package customfieldmongo

import (
	"context"
	"errors"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/customfield"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections.
const (
	// Fields holds the definitions: customfield.Field, unique by
	// (organization, name) while live.
	Fields = "custom_fields"
	// SpaceValues holds one document per space with values:
	// {_id: space id, organization, values: {name: value}}.
	SpaceValues = "space_custom_fields"
)

// Store implements customfield.Store.
type Store struct {
	ds *docstore.Store
	db mongox.DB
}

var _ customfield.Store = (*Store)(nil)

// NewStore returns a store on db. Updates of one document are serialised
// with db's document locks, which the outbox relay shares (see mongox.DB);
// written (nil: none) is called after every write that recorded an event
// (the relay's Notify, so that events leave at once).
func NewStore(db mongox.DB, written func()) *Store {
	ds := docstore.New(db, map[string]string{Fields: "custom field", SpaceValues: "custom field values"}, docstore.Notify(written))
	return &Store{ds: ds, db: db}
}

// Indexes are the indexes the store relies on. The unique key of a
// definition is freed when it is removed (see RemoveField).
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Unique(Fields, "organization", "name"),
		mongox.Keys(SpaceValues, "organization"),
	}
}

// EnsureIndexes creates the indexes.
func EnsureIndexes(ctx context.Context, db *mongo.Database) error {
	return mongox.EnsureIndexes(ctx, db, Indexes()...)
}

// Collections lists the collections whose documents carry events, for the relay.
func Collections() []string { return []string{Fields, SpaceValues} }

// InsertField stores a new definition.
func (s *Store) InsertField(ctx context.Context, f customfield.Field, ev kafkax.Event) error {
	return s.ds.Insert(ctx, Fields, f, ev)
}

// Field returns the live definition named name in org.
func (s *Store) Field(ctx context.Context, org, name string) (customfield.Field, error) {
	return docstore.FindOne[customfield.Field](ctx, s.ds, Fields, bson.M{"organization": org, "name": name})
}

// Fields returns one page of org's definitions by name and counts them all.
func (s *Store) Fields(ctx context.Context, org string, p customfield.Page) ([]customfield.Field, int, error) {
	return docstore.Page[customfield.Field](ctx, s.ds, Fields, bson.M{"organization": org},
		docstore.Keyset{Field: "name", AfterValue: p.AfterName, AfterID: p.AfterID, Limit: p.Limit})
}

// UpdateField applies change to the live definition id (docstore.Modify).
func (s *Store) UpdateField(ctx context.Context, id string, change customfield.Change[customfield.Field]) (customfield.Field, error) {
	return docstore.Modify(ctx, s.ds, Fields, id, docstore.Change[customfield.Field](change))
}

// RemoveField tombstones the definition and frees its name: the tombstone's
// name becomes one that the name pattern refuses.
func (s *Store) RemoveField(ctx context.Context, f customfield.Field, ev kafkax.Event) error {
	return s.ds.Remove(ctx, Fields, f.ID, bson.M{"name": "removed/" + f.ID}, ev)
}

type valuesDoc struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Values       bson.M `bson:"values"`
}

// SpaceValues returns the space's values, none when it has no document.
func (s *Store) SpaceValues(ctx context.Context, space string) (customfield.SpaceValues, error) {
	d, err := docstore.FindOne[valuesDoc](ctx, s.ds, SpaceValues, bson.M{"_id": space})
	if errors.Is(err, apierr.ErrNotFound) {
		return customfield.SpaceValues{Space: space, Values: customfield.Values{}}, nil
	}
	if err != nil {
		return customfield.SpaceValues{}, err
	}
	return d.domain(), nil
}

func (d valuesDoc) domain() customfield.SpaceValues {
	out := customfield.SpaceValues{Space: d.ID, Organization: d.Organization, Values: customfield.Values{}}
	for k, v := range d.Values {
		if v, ok := fromBSON(v); ok {
			out.Values[k] = v
		}
	}
	return out
}

func valuesOf(sv customfield.SpaceValues) valuesDoc {
	vals := bson.M{}
	for k, v := range sv.Values {
		vals[k] = v
	}
	return valuesDoc{ID: sv.Space, Organization: sv.Organization, Values: vals}
}

// fromBSON turns a stored value into the domain's kinds (see customfield.Values).
func fromBSON(v any) (any, bool) {
	switch v := v.(type) {
	case string, bool, float64:
		return v, true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case bson.A:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// UpdateSpaceValues applies change to the space's values
// (docstore.ModifyOrInsert): the space's document is created on its first
// value.
func (s *Store) UpdateSpaceValues(ctx context.Context, space string, change customfield.Change[customfield.SpaceValues]) error {
	_, err := docstore.ModifyOrInsert(ctx, s.ds, SpaceValues, space, valuesDoc{ID: space}, func(d *valuesDoc) ([]kafkax.Event, error) {
		sv := d.domain()
		events, err := change(&sv)
		*d = valuesOf(sv)
		return events, err
	})
	return err
}

// ClearValues removes the values of the field name from every space of org.
// Each document is updated on its own, under its lock.
func (s *Store) ClearValues(ctx context.Context, org, name string) error {
	path := "values." + name
	docs, err := docstore.Find[valuesDoc](ctx, s.ds, SpaceValues,
		bson.M{"organization": org, path: bson.M{"$exists": true}},
		options.Find().SetProjection(bson.M{"_id": 1}))
	if err != nil {
		return err
	}
	for _, d := range docs {
		// Counted in the version: a change read before is written again.
		err := s.ds.Update(ctx, SpaceValues, d.ID, bson.M{"organization": org},
			bson.M{"$unset": bson.M{path: ""}, "$inc": bson.M{docstore.VersionField: 1}})
		if err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
	}
	return nil
}

// DeleteSpace removes the space's values without an event (the space's
// deletion event says they are gone), when a deleted space is purged.
func (s *Store) DeleteSpace(ctx context.Context, space string) error {
	return s.ds.Delete(ctx, SpaceValues, bson.M{"_id": space})
}
