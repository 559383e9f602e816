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

// UpdateField stores the changeable fields of f at its version.
func (s *Store) UpdateField(ctx context.Context, f customfield.Field, ev kafkax.Event) error {
	err := s.ds.Update(ctx, Fields, f.ID, at(f.Version), bson.M{"$set": bson.M{
		"title": f.Title, "description": f.Description, "placeholder": f.Placeholder,
		"options": f.Options, "updatedAt": f.UpdatedAt,
	}, "$inc": bson.M{"version": 1}}, ev)
	return s.changed(ctx, Fields, f.ID, err)
}

// at is the condition of a document at version (0: also one stored before
// versions existed). No $or: FerretDB would scan the collection.
func at(version int64) bson.M {
	if version == 0 {
		return bson.M{"version": bson.M{"$in": bson.A{int64(0), nil}}}
	}
	return bson.M{"version": version}
}

// changed turns the not-found of a compare-and-set on a live document into
// customfield.ErrChanged.
func (s *Store) changed(ctx context.Context, coll, id string, err error) error {
	if errors.Is(err, apierr.ErrNotFound) {
		if n, cerr := s.ds.Count(ctx, coll, bson.M{"_id": id}); cerr == nil && n > 0 {
			return customfield.ErrChanged
		}
	}
	return err
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
	Version      int64  `bson:"version"`
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
	out := customfield.SpaceValues{Space: space, Organization: d.Organization, Values: customfield.Values{}, Version: d.Version}
	for k, v := range d.Values {
		if v, ok := fromBSON(v); ok {
			out.Values[k] = v
		}
	}
	return out, nil
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

// SetSpaceValues sets and clears values of the space in one update with the
// event, a compare-and-set on what was read: the document's organization
// and version. The space's document is created on its first value; when it
// holds values written in another organization, they are replaced. A lost
// race is customfield.ErrChanged.
func (s *Store) SetSpaceValues(ctx context.Context, org string, was customfield.SpaceValues, set customfield.Values, clear []string, ev kafkax.Event) error {
	cond := at(was.Version)
	cond["organization"] = was.Organization
	var err error
	switch {
	case was.Organization == "":
		vals := bson.M{}
		for k, v := range set {
			vals[k] = v
		}
		err = s.ds.Insert(ctx, SpaceValues, valuesDoc{ID: was.Space, Organization: org, Values: vals, Version: 1}, ev)
		if errors.Is(err, apierr.ErrConflict) {
			return customfield.ErrChanged
		}
		return err
	case was.Organization != org:
		vals := bson.M{}
		for k, v := range set {
			vals[k] = v
		}
		err = s.ds.Update(ctx, SpaceValues, was.Space, cond,
			bson.M{"$set": bson.M{"organization": org, "values": vals}, "$inc": bson.M{"version": 1}}, ev)
	default:
		upd := bson.M{"$inc": bson.M{"version": 1}}
		if len(set) > 0 {
			fields := bson.M{}
			for k, v := range set {
				fields["values."+k] = v
			}
			upd["$set"] = fields
		}
		if len(clear) > 0 {
			fields := bson.M{}
			for _, k := range clear {
				fields["values."+k] = ""
			}
			upd["$unset"] = fields
		}
		err = s.ds.Update(ctx, SpaceValues, was.Space, cond, upd, ev)
	}
	if errors.Is(err, apierr.ErrNotFound) {
		return customfield.ErrChanged // changed, or removed by a purge
	}
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
		err := s.ds.Update(ctx, SpaceValues, d.ID, bson.M{"organization": org}, bson.M{"$unset": bson.M{path: ""}})
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
