// Package spacemongo stores content's tree of collections and spaces in
// MongoDB through libs/docstore: every write carries its event (outbox), and
// every change of a space or collection that depends on what it read is
// docstore's read-modify-write (Modify, RemoveIf).
package spacemongo

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/space"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collections of the tree.
const (
	Spaces      = "spaces"
	Collections = "collections"
	Revisions   = "revisions"
	// Comments and ChangeRequests are counted for the spaces' counters; the
	// comment and change-request stores own them.
	Comments       = "comments"
	ChangeRequests = "change_requests"
	// TreeLocks holds one lease document per organization whose tree is
	// being changed (see space.Service's tree lock).
	TreeLocks = "tree_locks"
)

// Store implements space.Store.
type Store struct {
	d  *docstore.Store
	db mongox.DB
}

var _ space.Store = (*Store)(nil)

// Bounds of the cache of spaces read by id (docstore.CacheByID): every
// request about a space reads it first.
const (
	// spaceTTL is how long a space read is reused: the most a change of
	// it written through another instance of content takes to show here
	// (a change through this store shows at once).
	spaceTTL     = time.Second
	spaceEntries = 10_000
	spaceBytes   = 16 << 20
	// Bounds of the caches of an organization's lists of spaces and of
	// collections (docstore.CacheLists), each.
	listEntries = 4_000
	listBytes   = 32 << 20
)

// NewStore returns a store on db (its document locks are shared with the
// outbox relay); written (nil: none) is called after each write with an
// event (the relay's Notify). CachedSpace reads through a cache (see
// spaceTTL): a process writes spaces through one Store only.
func NewStore(db mongox.DB, written func()) *Store {
	d := docstore.New(db, map[string]string{
		Spaces: "space", Collections: "collection", Revisions: "revision",
	}, docstore.Notify(written))
	d.CacheByID(Spaces, spaceEntries, spaceBytes, spaceTTL)
	d.CacheLists(Spaces, listEntries, listBytes, spaceTTL)
	d.CacheLists(Collections, listEntries, listBytes, spaceTTL)
	return &Store{d: d, db: db}
}

// Changed drops what CachedSpace keeps of space id (of every space when
// id is ""): another instance changed it (its event arrived).
func (s *Store) Changed(id string) { s.d.Changed(Spaces, id) }

// TreeChanged drops what CachedSpaces, CachedOrgCollections and
// Collections keep of org (of every organization when org is ""):
// another instance changed one of its spaces or collections.
func (s *Store) TreeChanged(org string) {
	s.d.TenantChanged(Spaces, org)
	s.d.TenantChanged(Collections, org)
}

// EventCollections are the collections whose documents carry events.
func EventCollections() []string { return []string{Spaces, Collections} }

// Indexes are the tree's indexes.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Keys(Spaces, "organization", "deleted", "position", "_id"),
		mongox.Keys(Spaces, "organization", "parent", "deleted", "position", "_id"),
		mongox.Keys(Spaces, "deleted", "deletedAt"),
		mongox.Keys(Spaces, "organization", "pendingIndex"),
		mongox.Keys(Collections, "organization", "position", "_id"),
		mongox.Keys(Collections, "organization", "parent"),
		mongox.Keys(Revisions, "space"),
		mongox.Keys(Comments, "space", "changeRequest", "status"),
		mongox.Keys(ChangeRequests, "space", "status"),
	}
}

// InsertSpace stores a new space and its first revision.
func (s *Store) InsertSpace(ctx context.Context, sp space.Space, rev space.Revision, ev kafkax.Event) error {
	if err := s.d.Insert(ctx, Revisions, rev); err != nil && !errors.Is(err, apierr.ErrConflict) {
		return err
	}
	return s.d.Insert(ctx, Spaces, sp, ev)
}

// CopyRevision stores a copy of revision from as to.
func (s *Store) CopyRevision(ctx context.Context, from string, to space.Revision) error {
	var doc bson.M
	err := s.d.C(Revisions).FindOne(ctx, docstore.Live(bson.M{"_id": from})).Decode(&doc)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil // nothing to copy: the new space starts empty
	}
	if err != nil {
		return mongox.Err(err, "revision")
	}
	doc["_id"], doc["space"], doc["organization"], doc["createdAt"] = to.ID, to.Space, to.Organization, to.CreatedAt
	doc["parents"] = bson.A{}
	_, err = s.d.C(Revisions).InsertOne(ctx, doc)
	if mongo.IsDuplicateKeyError(err) {
		return nil // copied before (a resumed duplication)
	}
	return mongox.Err(err, "revision")
}

// UpdateSpace applies change to space id and stores what changed
// (docstore.Modify).
func (s *Store) UpdateSpace(ctx context.Context, id string, change space.Change[space.Space]) (space.Space, error) {
	return docstore.Modify(ctx, s.d, Spaces, id, func(sp *space.Space) ([]kafkax.Event, error) {
		ev, err := change(sp)
		return docstore.One(ev), err
	})
}

// MoveHead points a live space at revision from with no unfinished merge
// at head; not found otherwise.
func (s *Store) MoveHead(ctx context.Context, id, from string, head space.Head, ev kafkax.Event) error {
	set := bson.M{"revision": head.Revision, "updatedAt": head.UpdatedAt}
	if head.Merging != "" {
		set["merging"] = head.Merging
	}
	return s.d.Update(ctx, Spaces, id, bson.M{"revision": from, "deleted": false, "merging": bson.M{"$exists": false}},
		bson.M{"$set": set, "$inc": bson.M{docstore.VersionField: int64(1)}}, ev)
}

// ClearMerging unsets the unfinished merge of changeRequest on a space of
// org; not found when it is not marked with it. Naming the organization
// keeps the other organizations' lists kept (docstore.CacheLists).
func (s *Store) ClearMerging(ctx context.Context, org, id, changeRequest string) error {
	return s.d.Update(ctx, Spaces, id, bson.M{"organization": org, "merging": changeRequest},
		bson.M{"$unset": bson.M{"merging": ""}, "$inc": bson.M{docstore.VersionField: int64(1)}})
}

// ClearPendingIndex unsets the pending re-index of a space of org; not
// found when it is not pending there.
func (s *Store) ClearPendingIndex(ctx context.Context, id, org string) error {
	return s.d.Update(ctx, Spaces, id, bson.M{"organization": org, "pendingIndex": true},
		bson.M{"$unset": bson.M{"pendingIndex": ""}, "$inc": bson.M{docstore.VersionField: int64(1)}})
}

// PurgeSpace deletes the revisions of space id, then tombstones it with
// its event when purge says so (docstore.RemoveIf).
func (s *Store) PurgeSpace(ctx context.Context, id string, purge space.Removal[space.Space]) error {
	if err := s.d.Delete(ctx, Revisions, bson.M{"space": id}); err != nil {
		return err
	}
	return docstore.RemoveIf(ctx, s.d, Spaces, id, removal(purge))
}

// removal is a domain removal as docstore's.
func removal[T any](remove space.Removal[T]) docstore.Removal[T] {
	return func(doc T) ([]kafkax.Event, error) {
		ev, err := remove(doc)
		return docstore.One(ev), err
	}
}

// Space returns a space, deleted or not.
func (s *Store) Space(ctx context.Context, id string) (space.Space, error) {
	return docstore.FindOne[space.Space](ctx, s.d, Spaces, bson.M{"_id": id})
}

// CachedSpace returns a space, read again after every write through this
// store and at least every spaceTTL.
func (s *Store) CachedSpace(ctx context.Context, id string) (space.Space, error) {
	return docstore.FindCached[space.Space](ctx, s.d, Spaces, id)
}

// Spaces returns a page of spaces and the count of all matching.
func (s *Store) Spaces(ctx context.Context, q space.SpaceQuery) ([]space.Space, int, error) {
	return docstore.Page[space.Space](ctx, s.d, Spaces, spaceFilter(q), spaceKeyset(q))
}

// CachedSpaces is Spaces through the cache of lists.
func (s *Store) CachedSpaces(ctx context.Context, q space.SpaceQuery) ([]space.Space, int, error) {
	return docstore.PageCached[space.Space](ctx, s.d, Spaces, spaceFilter(q), spaceKeyset(q))
}

// spaceKeyset is the page of q.
func spaceKeyset(q space.SpaceQuery) docstore.Keyset {
	k := docstore.Keyset{Field: q.Sort, Desc: q.Desc, AfterID: q.AfterID, Limit: q.Limit}
	if q.Sort == space.ByPosition {
		k.AfterValue = q.AfterPosition
	}
	return k
}

// SpaceNames returns up to q.Limit spaces of q by id, uncounted, each
// with only its id, organization, title, parent and default level,
// through the cache of lists.
func (s *Store) SpaceNames(ctx context.Context, q space.SpaceQuery) ([]space.Space, error) {
	return docstore.FindTenant[space.Space](ctx, s.d, Spaces, spaceFilter(q), docstore.Keyset{
		Field: "_id", Limit: q.Limit, Fields: []string{"organization", "title", "parent", "defaultLevel"}})
}

// spaceFilter selects the spaces of q (its sort and page aside).
func spaceFilter(q space.SpaceQuery) bson.M {
	f := bson.M{"organization": q.Organization}
	if !q.IncludeDeleted {
		f["deleted"] = false
	}
	if q.Parent != nil {
		f["parent"] = *q.Parent
	}
	if q.HideNoAccess {
		nor := bson.A{bson.M{"defaultLevel": ""}}
		if len(q.HiddenCollections) > 0 {
			nor = append(nor, bson.M{"defaultLevel": "inherit", "parent": bson.M{"$in": q.HiddenCollections}})
		}
		f["$nor"] = nor
	}
	return f
}

// CountSpaces counts the spaces of org (deleted ones too) under the parents.
func (s *Store) CountSpaces(ctx context.Context, org string, parents []string) (int, error) {
	return s.d.Count(ctx, Spaces, bson.M{"organization": org, "parent": bson.M{"$in": parents}})
}

// PendingIndex returns up to limit spaces of org whose index must follow a transfer.
func (s *Store) PendingIndex(ctx context.Context, org string, limit int) ([]space.Space, error) {
	return docstore.Find[space.Space](ctx, s.d, Spaces, bson.M{"organization": org, "pendingIndex": true},
		options.Find().SetLimit(int64(limit)))
}

// DeletedBefore returns up to limit spaces deleted before t.
func (s *Store) DeletedBefore(ctx context.Context, t time.Time, limit int) ([]space.Space, error) {
	return docstore.Find[space.Space](ctx, s.d, Spaces, bson.M{"deleted": true, "deletedAt": bson.M{"$lt": t}},
		options.Find().SetSort(bson.D{{Key: "deletedAt", Value: 1}}).SetLimit(int64(limit)))
}

type tally struct {
	ID struct {
		Space  string `bson:"space"`
		Status string `bson:"status"`
	} `bson:"_id"`
	N int `bson:"n"`
}

// Counts counts, per space, the open space comments and the change requests by status.
func (s *Store) Counts(ctx context.Context, spaces []string) (map[string]space.Counts, error) {
	out := map[string]space.Counts{}
	if len(spaces) == 0 {
		return out, nil
	}
	group := func(coll string, match bson.M) ([]tally, error) {
		match["space"] = bson.M{"$in": spaces}
		cur, err := s.d.C(coll).Aggregate(ctx, mongo.Pipeline{
			{{Key: "$match", Value: docstore.Live(match)}},
			{{Key: "$group", Value: bson.M{"_id": bson.M{"space": "$space", "status": "$status"}, "n": bson.M{"$sum": 1}}}},
		})
		if err != nil {
			return nil, mongox.Err(err, coll)
		}
		var ts []tally
		if err := cur.All(ctx, &ts); err != nil {
			return nil, mongox.Err(err, coll)
		}
		return ts, nil
	}
	comments, err := group(Comments, bson.M{"changeRequest": "", "status": "open"})
	if err != nil {
		return nil, err
	}
	for _, t := range comments {
		c := out[t.ID.Space]
		c.Comments += t.N
		out[t.ID.Space] = c
	}
	crs, err := group(ChangeRequests, bson.M{})
	if err != nil {
		return nil, err
	}
	for _, t := range crs {
		c := out[t.ID.Space]
		c.ChangeRequests += t.N
		switch t.ID.Status {
		case "open":
			c.ChangeRequestsOpen += t.N
		case "draft":
			c.ChangeRequestsDraft += t.N
		}
		out[t.ID.Space] = c
	}
	return out, nil
}

// InsertCollection stores a new collection.
func (s *Store) InsertCollection(ctx context.Context, c space.Collection, ev kafkax.Event) error {
	return s.d.Insert(ctx, Collections, c, ev)
}

// UpdateCollection applies change to collection id and stores what
// changed (docstore.Modify).
func (s *Store) UpdateCollection(ctx context.Context, id string, change space.Change[space.Collection]) (space.Collection, error) {
	return docstore.Modify(ctx, s.d, Collections, id, func(c *space.Collection) ([]kafkax.Event, error) {
		ev, err := change(c)
		return docstore.One(ev), err
	})
}

// RemoveCollection tombstones collection id with its event when remove
// says so (docstore.RemoveIf).
func (s *Store) RemoveCollection(ctx context.Context, id string, remove space.Removal[space.Collection]) error {
	return docstore.RemoveIf(ctx, s.d, Collections, id, removal(remove))
}

// Collection returns a collection.
func (s *Store) Collection(ctx context.Context, id string) (space.Collection, error) {
	return docstore.FindOne[space.Collection](ctx, s.d, Collections, bson.M{"_id": id})
}

// OrgCollections returns every collection of an organization.
func (s *Store) OrgCollections(ctx context.Context, org string) ([]space.Collection, error) {
	return docstore.Find[space.Collection](ctx, s.d, Collections, bson.M{"organization": org})
}

// CachedOrgCollections is OrgCollections through the cache of lists.
func (s *Store) CachedOrgCollections(ctx context.Context, org string) ([]space.Collection, error) {
	return docstore.FindTenant[space.Collection](ctx, s.d, Collections, bson.M{"organization": org}, docstore.Keyset{})
}

// Collections returns a page of collections by position and the count of
// all matching, through the cache of lists.
func (s *Store) Collections(ctx context.Context, q space.CollectionQuery) ([]space.Collection, int, error) {
	f := bson.M{"organization": q.Organization}
	if q.TopOnly {
		f["parent"] = ""
	} else if q.Parent != "" {
		f["parent"] = q.Parent
	}
	if len(q.Exclude) > 0 {
		f["_id"] = bson.M{"$nin": q.Exclude}
	}
	return docstore.PageCached[space.Collection](ctx, s.d, Collections, f, docstore.Keyset{
		Field: "position", AfterValue: q.AfterPosition, AfterID: q.AfterID, Limit: q.Limit})
}

type node struct {
	ID       string `bson:"_id"`
	Parent   string `bson:"parent"`
	Position int64  `bson:"position"`
}

// Siblings returns the live spaces and collections under parent in org by position then id.
func (s *Store) Siblings(ctx context.Context, org, parent string) ([]space.Node, error) {
	opts := options.Find().SetProjection(bson.M{"parent": 1, "position": 1})
	sps, err := docstore.Find[node](ctx, s.d, Spaces, bson.M{"organization": org, "parent": parent, "deleted": false}, opts)
	if err != nil {
		return nil, err
	}
	cols, err := docstore.Find[node](ctx, s.d, Collections, bson.M{"organization": org, "parent": parent}, opts)
	if err != nil {
		return nil, err
	}
	out := make([]space.Node, 0, len(sps)+len(cols))
	for _, n := range sps {
		out = append(out, space.Node{Kind: space.KindSpace, ID: n.ID, Parent: n.Parent, Position: n.Position})
	}
	for _, n := range cols {
		out = append(out, space.Node{Kind: space.KindCollection, ID: n.ID, Parent: n.Parent, Position: n.Position})
	}
	slices.SortFunc(out, func(a, b space.Node) int {
		if a.Position != b.Position {
			if a.Position < b.Position {
				return -1
			}
			return 1
		}
		if a.ID < b.ID {
			return -1
		}
		if a.ID > b.ID {
			return 1
		}
		return 0
	})
	return out, nil
}

// SetPosition stores the new position of a node of org without an event;
// naming the organization keeps the other organizations' lists kept.
func (s *Store) SetPosition(ctx context.Context, org string, n space.Node, position int64) error {
	coll := Spaces
	if n.Kind == space.KindCollection {
		coll = Collections
	}
	return s.d.Update(ctx, coll, n.ID, bson.M{"organization": org}, bson.M{"$set": bson.M{"position": position}})
}

// HasChildren reports whether a collection holds a live space or collection.
func (s *Store) HasChildren(ctx context.Context, collection string) (bool, error) {
	n, err := s.d.Count(ctx, Spaces, bson.M{"parent": collection, "deleted": false})
	if err != nil || n > 0 {
		return n > 0, err
	}
	n, err = s.d.Count(ctx, Collections, bson.M{"parent": collection})
	return n > 0, err
}

type treeLock struct {
	ID    string    `bson:"_id"`
	Owner string    `bson:"owner"`
	Until time.Time `bson:"until"`
}

// LockTree takes the tree lock of org for owner: a new lease document, or
// the existing one when owner holds it already or its lease ran out
// (compare-and-set on both). Leases are measured on the wall clock.
func (s *Store) LockTree(ctx context.Context, org, owner string, lease time.Duration) (bool, error) {
	now := time.Now().UTC()
	lock := treeLock{ID: org, Owner: owner, Until: now.Add(lease)}
	_, err := s.d.C(TreeLocks).InsertOne(ctx, lock)
	if err == nil {
		return true, nil
	}
	if !mongo.IsDuplicateKeyError(err) {
		return false, mongox.Err(err, "tree lock")
	}
	res, err := s.d.C(TreeLocks).UpdateOne(ctx,
		bson.M{"_id": org, "$or": bson.A{bson.M{"owner": owner}, bson.M{"until": bson.M{"$lt": now}}}},
		bson.M{"$set": bson.M{"owner": owner, "until": lock.Until}})
	if err != nil {
		return false, mongox.Err(err, "tree lock")
	}
	return res.MatchedCount == 1, nil
}

// UnlockTree frees the tree lock of org if owner holds it.
func (s *Store) UnlockTree(ctx context.Context, org, owner string) error {
	_, err := s.d.C(TreeLocks).DeleteOne(ctx, bson.M{"_id": org, "owner": owner})
	return mongox.Err(err, "tree lock")
}
