package space

import (
	"context"
	"strings"

	"github.com/docspub/platform/libs/envelope"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
)

// Page asks for a page of a list (keyset over position and id, or id).
type Page = paging.Request

// List is one page of a list.
type List[T any] = paging.List[T]

func collectionKey(c Collection) string { return paging.PositionCursor(c.Position, c.ID) }

// CreateCollectionInput is the body of a collection creation.
type CreateCollectionInput struct {
	Title  *string
	Parent string
}

func validTitle(p *apierr.Problems, field, title string) {
	p.Text(field, title, 0, MaxTitle)
}

// newTitle checks a title change and returns it trimmed; nil changes nothing.
func newTitle(p *apierr.Problems, title *string) *string {
	if title == nil {
		return nil
	}
	t := strings.TrimSpace(*title)
	validTitle(p, "title", t)
	return &t
}

// CreateCollection creates a collection in org, at the top or under parent.
// It needs the create level in the organization (or on the parent).
func (s *Service) CreateCollection(ctx context.Context, c access.Caller, org string, in CreateCollectionInput) (CollectionView, error) {
	role, err := member(c, org)
	if err != nil {
		return CollectionView{}, err
	}
	var p apierr.Problems
	title := "Untitled"
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
		validTitle(&p, "title", title)
	}
	if err := p.Err(); err != nil {
		return CollectionView{}, err
	}
	level := role
	now := s.clock()
	col := Collection{ID: ids.New(), Organization: org, Title: title, Parent: in.Parent, Position: s.newPosition(),
		DefaultLevel: access.Inherit, CreatedAt: now, UpdatedAt: now}
	create := func() error {
		if in.Parent != "" {
			parent, plevel, _, err := s.loadCollection(ctx, c, in.Parent)
			if err != nil || parent.Organization != org {
				return apierr.Invalid("parent", "is not a collection of this organization")
			}
			level = plevel
		}
		if !access.Allows(level, access.Create) {
			return forbidden("create collections here")
		}
		return s.store.InsertCollection(ctx, col, contentapi.NewCollectionCreated(s.collectionView(col, nil).Collection))
	}
	if in.Parent != "" {
		// Under the tree lock: the parent is not deleted (nor moved out of
		// the organization) between checking it and adding to it.
		err = s.locked(ctx, org, create)
	} else {
		err = create()
	}
	if err != nil {
		return CollectionView{}, err
	}
	return s.collectionView(col, &level), nil
}

// GetCollection returns a collection the caller can see.
func (s *Service) GetCollection(ctx context.Context, c access.Caller, id string) (CollectionView, error) {
	col, level, _, err := s.loadCollection(ctx, c, id)
	if err != nil {
		return CollectionView{}, err
	}
	return s.collectionView(col, &level), nil
}

// UpdateCollectionInput is a collection PATCH.
type UpdateCollectionInput struct {
	Title        *string
	Description  *string
	DefaultLevel nullable.Field[access.DefaultLevel]
}

// UpdateCollection changes a collection's title and description (create
// level) and default level (admin).
func (s *Service) UpdateCollection(ctx context.Context, c access.Caller, id string, in UpdateCollectionInput) (CollectionView, error) {
	var p apierr.Problems
	title := newTitle(&p, in.Title)
	if in.Description != nil {
		p.Length("description", *in.Description, 0, MaxDescription)
	}
	if err := p.Err(); err != nil {
		return CollectionView{}, err
	}
	need, what := access.Create, "change this collection"
	if in.DefaultLevel.Set {
		need, what = access.Admin, "change this collection's default level"
	}
	col, level, _, err := s.collectionFor(ctx, c, id, need, what)
	if err != nil {
		return CollectionView{}, err
	}
	if title == nil && in.Description == nil && !in.DefaultLevel.Set {
		return s.collectionView(col, &level), nil
	}
	col, err = s.changeCollection(ctx, col, func(col *Collection) error {
		if title != nil {
			col.Title = *title
		}
		if in.Description != nil {
			col.Description = *in.Description
		}
		if in.DefaultLevel.Set {
			col.DefaultLevel = in.DefaultLevel.Value // null decodes as NoAccess
		}
		col.UpdatedAt = s.clock()
		return nil
	}, contentapi.NewCollectionUpdated)
	if err != nil {
		return CollectionView{}, err
	}
	t, err := s.tree(ctx, col.Organization)
	if err != nil {
		return CollectionView{}, err
	}
	role, _ := c.Role(col.Organization)
	level = t.collectionLevel(role, col.ID)
	return s.collectionView(col, &level), nil
}

// changeCollection is changeSpace for a collection: what the caller's
// access was checked on (its organization, parent and default level) must
// not have moved since read.
func (s *Service) changeCollection(ctx context.Context, read Collection, change func(col *Collection) error, newEvent func(contentapi.Collection) envelope.Event) (Collection, error) {
	return s.store.UpdateCollection(ctx, read.ID, func(col *Collection) (envelope.Event, error) {
		if col.Organization != read.Organization || col.Parent != read.Parent || col.DefaultLevel != read.DefaultLevel {
			return envelope.Event{}, apierr.Changed("collection")
		}
		if err := change(col); err != nil {
			return envelope.Event{}, err
		}
		return newEvent(s.collectionView(*col, nil).Collection), nil
	})
}

// DeleteCollection deletes an empty collection; admins only. Emptiness is
// checked and the collection removed under the organization's tree lock,
// which every addition to a collection holds too.
func (s *Service) DeleteCollection(ctx context.Context, c access.Caller, id string) error {
	col, _, _, err := s.collectionFor(ctx, c, id, access.Admin, "delete this collection")
	if err != nil {
		return err
	}
	return s.locked(ctx, col.Organization, func() error {
		col, _, _, err := s.collectionFor(ctx, c, id, access.Admin, "delete this collection")
		if err != nil {
			return err
		}
		busy, err := s.store.HasChildren(ctx, id)
		if err != nil {
			return err
		}
		if busy {
			return ErrCollectionNotEmpty
		}
		return s.store.RemoveCollection(ctx, id, func(now Collection) (envelope.Event, error) {
			if now.Organization != col.Organization {
				return envelope.Event{}, apierr.Changed("collection")
			}
			return contentapi.NewCollectionDeleted(s.collectionView(now, nil).Collection), nil
		})
	})
}

// ListCollections lists the collections of org the caller can see, by
// position: every one when nested, else only the top ones.
func (s *Service) ListCollections(ctx context.Context, c access.Caller, org string, nested bool, pg Page) (List[CollectionView], error) {
	role, err := member(c, org)
	if err != nil {
		return List[CollectionView]{}, err
	}
	t, err := s.listedTree(ctx, org)
	if err != nil {
		return List[CollectionView]{}, err
	}
	page, err := paging.Fetch(pg, func(limit int) ([]Collection, int, error) {
		return s.store.Collections(ctx, CollectionQuery{Organization: org, TopOnly: !nested,
			Exclude: t.hidden(role), AfterPosition: pg.AfterPosition, AfterID: pg.AfterID, Limit: limit})
	}, collectionKey)
	if err != nil {
		return List[CollectionView]{}, err
	}
	views := make([]CollectionView, len(page.Items))
	for i, col := range page.Items {
		level := t.collectionLevel(role, col.ID)
		views[i] = s.collectionView(col, &level)
	}
	return paging.With(page, views), nil
}

// CollectionSpaces lists the live spaces of a collection the caller can see, by position.
func (s *Service) CollectionSpaces(ctx context.Context, c access.Caller, id string, pg Page) (List[SpaceView], error) {
	col, _, t, err := s.loadCollection(ctx, c, id)
	if err != nil {
		return List[SpaceView]{}, err
	}
	role, _ := c.Role(col.Organization)
	return s.listSpaces(ctx, role, t, SpaceQuery{Organization: col.Organization, Parent: &col.ID, Sort: ByPosition,
		AfterPosition: pg.AfterPosition, AfterID: pg.AfterID}, pg)
}

// listSpaces runs q for a member with role, hiding what they cannot see, and renders the page.
func (s *Service) listSpaces(ctx context.Context, role roles.Role, t tree, q SpaceQuery, pg Page) (List[SpaceView], error) {
	if role != roles.Admin {
		q.HideNoAccess, q.HiddenCollections = true, t.hidden(role)
	}
	cursor := func(sp Space) string { return paging.PositionCursor(sp.Position, sp.ID) }
	if q.Sort == ByID {
		cursor = func(sp Space) string { return paging.IDCursor(sp.ID) }
	}
	page, err := paging.Fetch(pg, func(limit int) ([]Space, int, error) {
		q.Limit = limit
		return s.store.CachedSpaces(ctx, q)
	}, cursor)
	if err != nil {
		return List[SpaceView]{}, err
	}
	views, err := s.renderSpaces(ctx, page.Items, func(sp Space) roles.Role { return t.spaceLevel(role, sp) })
	return paging.With(page, views), err
}

// MoveInput is a move body: a new parent (Parent.Set; null or "" for the
// top) and/or a position among the new siblings.
type MoveInput struct {
	Parent   nullable.Field[string]
	Position *Position
}

// target is where a move lands: the parent and the position.
func (s *Service) target(ctx context.Context, c access.Caller, org string, t tree, self Node, in MoveInput) (string, int64, error) {
	parent := self.Parent
	if in.Parent.Set {
		parent = in.Parent.Value
	} else if in.Position != nil {
		// Without a parent, the position's sibling says where to go.
		ref := in.Position.Before
		if ref == nil {
			ref = in.Position.After
		}
		if ref != nil {
			if p, ok := s.parentOf(ctx, org, *ref); ok {
				parent = p
			}
		}
	}
	if parent != "" {
		col, ok := t[parent]
		if !ok {
			return "", 0, apierr.Invalid("parent", "is not a collection of this organization")
		}
		role, _ := c.Role(org)
		if !access.Allows(t.collectionLevel(role, col.ID), access.Create) {
			return "", 0, forbidden("add content to that collection")
		}
		if self.Kind == KindCollection {
			for id, hops := parent, 0; id != "" && hops < 1000; hops++ {
				if id == self.ID {
					return "", 0, apierr.Invalid("parent", "cannot move a collection into itself or its descendants")
				}
				id = t[id].Parent
			}
		}
	}
	if in.Position == nil {
		if parent == self.Parent {
			return parent, self.Position, nil
		}
		return parent, s.newPosition(), nil
	}
	pos, err := s.place(ctx, org, parent, self, *in.Position)
	return parent, pos, err
}

// parentOf is the parent of a live sibling in org.
func (s *Service) parentOf(ctx context.Context, org string, r Ref) (string, bool) {
	switch r.Kind {
	case KindSpace:
		if sp, err := s.store.Space(ctx, r.ID); err == nil && sp.Organization == org && sp.DeletedAt == nil {
			return sp.Parent, true
		}
	case KindCollection:
		if col, err := s.store.Collection(ctx, r.ID); err == nil && col.Organization == org {
			return col.Parent, true
		}
	}
	return "", false
}

// MoveCollection moves a collection to another parent and/or position;
// admins of it only. The ancestry check and the write happen under the
// organization's tree lock, so two moves can never make a cycle.
func (s *Service) MoveCollection(ctx context.Context, c access.Caller, id string, in MoveInput) (CollectionView, error) {
	col, level, _, err := s.collectionFor(ctx, c, id, access.Admin, "move this collection")
	if err != nil {
		return CollectionView{}, err
	}
	err = s.locked(ctx, col.Organization, func() error {
		var t tree
		if col, level, t, err = s.collectionFor(ctx, c, id, access.Admin, "move this collection"); err != nil {
			return err
		}
		parent, pos, err := s.target(ctx, c, col.Organization, t, Node{Kind: KindCollection, ID: col.ID, Parent: col.Parent, Position: col.Position}, in)
		if err != nil {
			return err
		}
		col, err = s.changeCollection(ctx, col, func(col *Collection) error {
			col.Parent, col.Position, col.UpdatedAt = parent, pos, s.clock()
			return nil
		}, contentapi.NewCollectionMoved)
		return err
	})
	if err != nil {
		return CollectionView{}, err
	}
	return s.collectionView(col, &level), nil
}

// TransferCollection moves a collection, its sub-collections and their
// spaces to another organization, at its top. The caller must be an admin
// of both organizations. It is an operation (see runCollectionTransfer):
// recorded first, run detached from the request, resumed after a crash; a
// repeated request joins it, and once it is done answers at once.
func (s *Service) TransferCollection(ctx context.Context, c access.Caller, id, org string) (CollectionView, error) {
	if org == "" {
		return CollectionView{}, apierr.Invalid("organization", "is required")
	}
	col, _, t, err := s.loadCollection(ctx, c, id)
	if err != nil {
		return CollectionView{}, err
	}
	if r, _ := c.Role(col.Organization); r != roles.Admin {
		return CollectionView{}, forbidden("transfer this collection: you must be an admin of its organization")
	}
	if r, ok := c.Role(org); !ok {
		return CollectionView{}, apierr.Invalid("organization", "is not an organization you belong to")
	} else if r != roles.Admin {
		return CollectionView{}, forbidden("transfer into that organization: you must be an admin of it")
	}
	level := roles.Admin
	if org == col.Organization {
		return s.collectionView(col, &level), nil
	}
	subs := append(t.descendantIDs(col.ID), col.ID)
	if len(subs) > limits.TransferCollections {
		return CollectionView{}, apierr.Invalid("collection", "holds %d collections; at most %d move in one transfer", len(subs), limits.TransferCollections)
	}
	n, err := s.store.CountSpaces(ctx, col.Organization, subs)
	if err != nil {
		return CollectionView{}, err
	}
	if n > limits.TransferSpaces {
		return CollectionView{}, apierr.Invalid("collection", "holds %d spaces; at most %d move in one transfer", n, limits.TransferSpaces)
	}
	p := collectionTransfer{Collection: col.ID, From: col.Organization, To: org}
	if err := s.do(ctx, col.Organization, OpTransferCollection, "collection:"+col.ID, p); err != nil {
		return CollectionView{}, err
	}
	col, err = s.store.Collection(ctx, id)
	if err != nil {
		return CollectionView{}, err
	}
	return s.collectionView(col, &level), nil
}

// descendants are the collections under id, parents before children.
func (t tree) descendants(id string) []Collection {
	var out []Collection
	queue := []string{id}
	for len(queue) > 0 && len(out) < len(t) {
		p := queue[0]
		queue = queue[1:]
		for _, c := range t {
			if c.Parent == p {
				out = append(out, c)
				queue = append(queue, c.ID)
			}
		}
	}
	return out
}

func (t tree) descendantIDs(id string) []string {
	var out []string
	for _, c := range t.descendants(id) {
		out = append(out, c.ID)
	}
	return out
}
