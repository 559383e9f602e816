package space

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/access"
)

// collectionTransfer is the payload of a collection transfer.
type collectionTransfer struct {
	Collection string `bson:"collection"`
	From       string `bson:"from"`
	To         string `bson:"to"`
}

// transferProgress is how far a collection transfer got: the collections it
// moves (fixed when it starts, so that a resumed run finishes the same
// tree) and how many spaces moved so far.
type transferProgress struct {
	Collections []string `bson:"collections"`
	Spaces      int      `bson:"spaces"`
}

// spaceTransfer is the payload of a space transfer.
type spaceTransfer struct {
	Space  string `bson:"space"`
	From   string `bson:"from"`
	To     string `bson:"to"`
	Parent string `bson:"parent"`
}

// duplicate is the payload of a space duplication: the grants on the
// original and on the copy, and the copy as it is created.
type duplicate struct {
	From access.Grant `bson:"from"`
	To   access.Grant `bson:"to"`
	Copy Space        `bson:"copy"`
}

// runCollectionTransfer moves a collection tree to another organization
// under the tree locks of both, held as the operation's own (a resumed run
// takes them back at once). Every step is a compare-and-set that a resumed
// run skips when it is done: the sub-collections first, then the spaces
// under each of them (each write with its space.transferred event and a
// pending re-index), then the search index, and the collection itself last,
// at the target's top, which marks the transfer done.
func (s *Service) runCollectionTransfer(ctx context.Context, op Op) error {
	var p collectionTransfer
	if err := op.Payload(&p); err != nil {
		return err
	}
	release, err := s.lockTrees(ctx, op.ID(), p.From, p.To)
	if err != nil {
		return err
	}
	defer release()
	root, err := s.store.Collection(ctx, p.Collection)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrCollectionNotFound
	}
	if err != nil {
		return err
	}
	switch root.Organization {
	case p.To:
		return nil // done
	case p.From:
	default:
		return apierr.Conflict("the collection moved to another organization meanwhile")
	}
	var prog transferProgress
	if err := op.Progress(&prog); err != nil {
		return err
	}
	if len(prog.Collections) == 0 {
		t, err := s.tree(ctx, p.From)
		if err != nil {
			return err
		}
		prog.Collections = t.descendantIDs(root.ID)
		if err := op.SaveProgress(ctx, prog); err != nil {
			return err
		}
	}
	now := s.clock()
	parents, err := s.transferSubCollections(ctx, p, root.ID, prog.Collections, now)
	if err != nil {
		return err
	}
	for _, parent := range parents {
		err := s.transferSpacesUnder(ctx, p.From, p.To, parent, now, func(n int) error {
			prog.Spaces += n
			return op.SaveProgress(ctx, prog)
		})
		if err != nil {
			return fmt.Errorf("transfer the spaces of collection %s: %w", parent, err)
		}
	}
	if err := s.reindexPending(ctx, p.To); err != nil {
		return err
	}
	return s.transferCollectionDoc(ctx, root, p.To, "", s.newPosition(), now)
}

// transferSubCollections moves the sub-collections of root (ids, parents
// first) still in the tree and still in the source organization, and
// returns the collections whose spaces move: root and every
// sub-collection now in the target.
func (s *Service) transferSubCollections(ctx context.Context, p collectionTransfer, root string, ids []string, now time.Time) ([]string, error) {
	moved := map[string]bool{root: true}
	for _, id := range ids {
		sub, err := s.store.Collection(ctx, id)
		if errors.Is(err, apierr.ErrNotFound) {
			continue // deleted before the transfer took the locks
		}
		if err != nil {
			return nil, err
		}
		if !moved[sub.Parent] {
			continue // moved out of the tree before the transfer took the locks
		}
		if sub.Organization == p.From {
			if err := s.transferCollectionDoc(ctx, sub, p.To, sub.Parent, sub.Position, now); err != nil {
				return nil, err
			}
		}
		if sub.Organization == p.From || sub.Organization == p.To {
			moved[sub.ID] = true
		}
	}
	parents := []string{root}
	for _, id := range ids {
		if moved[id] {
			parents = append(parents, id)
		}
	}
	return parents, nil
}

// transferCollectionDoc writes a collection of col's organization into org
// under parent, with its event; one that left that organization meanwhile
// is left.
func (s *Service) transferCollectionDoc(ctx context.Context, col Collection, org, parent string, pos int64, now time.Time) error {
	return retried(func() error {
		_, err := s.store.UpdateCollection(ctx, col.ID, func(c *Collection) (envelope.Event, error) {
			if c.Organization != col.Organization {
				return envelope.Event{}, nil
			}
			c.Organization, c.Parent, c.Position, c.UpdatedAt = org, parent, pos, now
			return contentapi.NewCollectionTransferred(s.collectionView(*c, nil).Collection), nil
		})
		return err
	})
}

// retried runs write again while it loses to requests changing the same
// document (apierr.ErrChanged after the store's own retry), at most retries
// times in all: an operation's step outlasts them.
func retried(write func() error) error {
	for attempt := 1; ; attempt++ {
		err := write()
		if !errors.Is(err, apierr.ErrChanged) || attempt == retries {
			return err
		}
	}
}

// retries is how often an operation's step reads a document again when a
// request changed it between the read and the write.
const retries = 5

// transferSpacesUnder moves every space (deleted ones too) under parent in
// from to org to, keeping their parent, a batch at a time (their events
// rendered together); batch is told how many moved after each batch.
func (s *Service) transferSpacesUnder(ctx context.Context, from, to, parent string, now time.Time, batch func(int) error) error {
	const size = 100
	for {
		sps, _, err := s.store.Spaces(ctx, SpaceQuery{Organization: from, Parent: &parent, Sort: ByID, Limit: size, IncludeDeleted: true})
		if err != nil {
			return err
		}
		next := make([]Space, len(sps))
		for i, sp := range sps {
			next[i] = transferredTo(sp, to, parent, sp.Position, now)
		}
		views, err := s.renderSpaces(ctx, next, nil)
		if err != nil {
			return err
		}
		for i, sp := range sps {
			// The event rendered with the batch, unless a request changed the
			// space meanwhile.
			ev := contentapi.NewSpaceTransferred(views[i].Space)
			if err := s.transferSpaceDoc(ctx, sp.ID, from, to, parent, sp.Position, now, func(read Space) bool {
				return reflect.DeepEqual(read, sp)
			}, ev); err != nil {
				return err
			}
		}
		if len(sps) > 0 {
			if err := batch(len(sps)); err != nil {
				return err
			}
		}
		if len(sps) < size {
			return nil
		}
	}
}

// transferredTo is sp moved to org under parent at pos.
func transferredTo(sp Space, org, parent string, pos int64, now time.Time) Space {
	if sp.Organization != org {
		sp.PendingIndex = true
	}
	sp.Organization, sp.Parent, sp.Position, sp.UpdatedAt = org, parent, pos, now
	if parent == "" && sp.Visibility == VisibilityInCollection {
		sp.Visibility = VisibilityPrivate
	}
	return sp
}

// transferSpaceDoc writes space id of from into org to under parent at
// pos, with its space.transferred event and a pending re-index, reading
// it again when a request changed it meanwhile; the event is ev when the
// space as read is the one it was rendered for (same, nil: none), else
// rendered anew. A space no longer in from is left.
func (s *Service) transferSpaceDoc(ctx context.Context, id, from, to, parent string, pos int64, now time.Time, same func(Space) bool, ev envelope.Event) error {
	return retried(func() error {
		_, err := s.store.UpdateSpace(ctx, id, func(sp *Space) (envelope.Event, error) {
			if sp.Organization != from {
				return envelope.Event{}, nil
			}
			rendered := same != nil && same(*sp)
			*sp = transferredTo(*sp, to, parent, pos, now)
			if rendered {
				return ev, nil
			}
			v, err := s.eventView(ctx, *sp)
			if err != nil {
				return envelope.Event{}, err
			}
			return contentapi.NewSpaceTransferred(v.Space), nil
		})
		return err
	})
}

// reindexPending brings the search index of org's transferred spaces up to
// date (the ContentChanged hooks) and clears their flag.
func (s *Service) reindexPending(ctx context.Context, org string) error {
	for {
		sps, err := s.store.PendingIndex(ctx, org, 100)
		if err != nil {
			return err
		}
		for _, sp := range sps {
			if err := s.contentChanged(ctx, sp.ID); err != nil {
				return err
			}
			err := s.store.ClearPendingIndex(ctx, sp.ID, org)
			if err != nil && !errors.Is(err, apierr.ErrNotFound) {
				return err
			}
		}
		if len(sps) < 100 {
			return nil
		}
	}
}

// runSpaceTransfer moves a space to another organization (at its top or
// into a collection) under the target's tree lock, then re-indexes it. A
// resumed run finds the space moved and only finishes the index.
func (s *Service) runSpaceTransfer(ctx context.Context, op Op) error {
	var p spaceTransfer
	if err := op.Payload(&p); err != nil {
		return err
	}
	release, err := s.lockTrees(ctx, op.ID(), p.To)
	if err != nil {
		return err
	}
	defer release()
	sp, err := s.store.Space(ctx, p.Space)
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceNotFound
	}
	if err != nil {
		return err
	}
	switch sp.Organization {
	case p.To:
	case p.From:
		if sp.DeletedAt != nil {
			return ErrSpaceDeleted
		}
		if p.Parent != "" {
			if col, err := s.store.Collection(ctx, p.Parent); err != nil || col.Organization != p.To {
				return apierr.Invalid("collection", "is not a collection of the target organization")
			}
		}
		if err := s.transferSpaceDoc(ctx, sp.ID, p.From, p.To, p.Parent, s.newPosition(), s.clock(), nil, envelope.Event{}); err != nil {
			return err
		}
	default:
		return apierr.Conflict("the space moved to another organization meanwhile")
	}
	return s.reindexPending(ctx, p.To)
}

// runDuplicate creates a copy of a space: its first revision (a copy of the
// original's), the space, then the Duplicated hooks (custom field values)
// and the ContentChanged ones (the copy's search index). A resumed run skips
// what exists.
func (s *Service) runDuplicate(ctx context.Context, op Op) error {
	var p duplicate
	if err := op.Payload(&p); err != nil {
		return err
	}
	cp := p.Copy
	rev := Revision{ID: cp.Revision, Space: cp.ID, Organization: cp.Organization, Type: "edits", Parents: []string{}, CreatedAt: cp.CreatedAt}
	if err := s.store.CopyRevision(ctx, p.From.Revision, rev); err != nil {
		return err
	}
	insert := func() error {
		if cp.Parent != "" {
			if _, err := s.store.Collection(ctx, cp.Parent); err != nil {
				return apierr.Conflict("the space's collection was deleted meanwhile")
			}
		}
		err := s.insertSpace(ctx, cp, rev, contentapi.NewSpaceCreated)
		if errors.Is(err, apierr.ErrConflict) {
			return nil // a resumed run: the copy exists
		}
		return err
	}
	var err error
	if cp.Parent != "" {
		err = s.lockedAs(ctx, op.ID(), cp.Organization, insert)
	} else {
		err = insert()
	}
	if err != nil {
		return err
	}
	for _, h := range s.hooks.Duplicated {
		if err := h(ctx, p.From, p.To); err != nil {
			return err
		}
	}
	return s.contentChanged(ctx, cp.ID)
}

// lockedAs runs f under the tree lock of org held as owner.
func (s *Service) lockedAs(ctx context.Context, owner, org string, f func() error) error {
	release, err := s.lockTrees(ctx, owner, org)
	if err != nil {
		return err
	}
	defer release()
	return f()
}

// copyInto sets *dst to src (an operation's payload run within the request).
func copyInto(src, dst any) error {
	d := reflect.ValueOf(dst)
	if d.Kind() != reflect.Pointer || reflect.TypeOf(src) != d.Elem().Type() {
		return fmt.Errorf("payload %T does not fit %T", src, dst)
	}
	d.Elem().Set(reflect.ValueOf(src))
	return nil
}
