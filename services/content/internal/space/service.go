package space

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/order"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/people"
)

// Errors the tree returns besides field problems.
var (
	ErrOrganizationNotFound = apierr.NotFound("organization not found")
	ErrSpaceNotFound        = apierr.NotFound("space not found")
	ErrCollectionNotFound   = apierr.NotFound("collection not found")
	ErrSpaceDeleted         = apierr.Conflict("space is deleted; restore it first")
	ErrRestoreExpired       = apierr.New(410, "space was deleted more than 7 days ago and can no longer be restored")
	ErrCollectionNotEmpty   = apierr.Conflict("collection is not empty; move or delete its spaces and collections first")
)

func forbidden(what string) error {
	return apierr.Forbidden("your permission does not allow you to %s", what)
}

// Hooks let the other parts of content follow the tree.
type Hooks struct {
	// Purged runs for a space removed for good, before its document goes.
	Purged []func(ctx context.Context, spaceID string) error
	// Duplicated runs after a space was duplicated (copy settings along).
	Duplicated []func(ctx context.Context, from, to access.Grant) error
	// ContentChanged runs after a space's content changed, or the
	// organization it belongs to: a Git import pointed it at a new
	// revision, a duplicate was made with a copy of another's content, or it
	// moved to another organization (with its collection or alone). The
	// search index follows through it; the change request merge reaches the
	// same operation through changerequest's Merged hook.
	ContentChanged []func(ctx context.Context, spaceID string) error
}

// Service carries out the tree's operations for a calling user.
type Service struct {
	store  Store
	people people.Directory
	urls   links.URLs
	hooks  Hooks
	now    func() time.Time
	ops    Operations
	counts *Counters
}

// Deps are the service's collaborators.
type Deps struct {
	Store  Store
	People people.Directory
	URLs   links.URLs
	Hooks  Hooks
	// Operations runs the tree's operations; nil runs them within the
	// request (tests of the tree alone).
	Operations Operations
	// Now is the clock (nil: the real one); tests inject one to step past
	// the restore window.
	Now func() time.Time
	// Counts caches the spaces' counters (nil: a cache of its own, which
	// only its TTL refreshes).
	Counts *Counters
}

// New returns a service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Counts == nil {
		d.Counts = NewCounters()
	}
	return &Service{store: d.Store, people: d.People, urls: d.URLs, hooks: d.Hooks, ops: d.Operations, now: d.Now, counts: d.Counts}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// newPosition is the position of an item appended now: later than every
// item placed before.
func (s *Service) newPosition() int64 { return order.At(s.now()) }

// member returns the caller's role in org; a non-member learns nothing: the
// organization is not found.
func member(c access.Caller, org string) (roles.Role, error) {
	r, ok := c.Role(org)
	if !ok {
		return roles.Guest, ErrOrganizationNotFound
	}
	return r, nil
}

// tree is one organization's collections, for default-level chains.
type tree map[string]Collection

func (s *Service) tree(ctx context.Context, org string) (tree, error) {
	return treeOf(s.store.OrgCollections(ctx, org))
}

// listedTree is tree for a list that answers a request (CachedOrgCollections).
func (s *Service) listedTree(ctx context.Context, org string) (tree, error) {
	return treeOf(s.store.CachedOrgCollections(ctx, org))
}

func treeOf(cs []Collection, err error) (tree, error) {
	if err != nil {
		return nil, err
	}
	t := tree{}
	for _, c := range cs {
		t[c.ID] = c
	}
	return t, nil
}

// chain is the default levels from a collection up to the top.
func (t tree) chain(collection string) []access.DefaultLevel {
	var out []access.DefaultLevel
	for id, hops := collection, 0; id != "" && hops < 1000; hops++ {
		c, ok := t[id]
		if !ok {
			break
		}
		out = append(out, c.DefaultLevel)
		id = c.Parent
	}
	return out
}

// spaceLevel is the level of a member with role on a space.
func (t tree) spaceLevel(role roles.Role, sp Space) roles.Role {
	return access.Level(role, true, append([]access.DefaultLevel{sp.DefaultLevel}, t.chain(sp.Parent)...))
}

// collectionLevel is the level of a member with role on a collection.
func (t tree) collectionLevel(role roles.Role, id string) roles.Role {
	return access.Level(role, true, t.chain(id))
}

// hidden lists the collections whose content a member with role cannot see
// through inheritance (their effective level is no access).
func (t tree) hidden(role roles.Role) []string {
	out := []string{}
	for id := range t {
		if !t.collectionLevel(role, id).AtLeast(roles.Read) {
			out = append(out, id)
		}
	}
	return out
}

// loadSpace loads a space the caller can see, with the caller's level. A
// space the caller cannot see is not found.
func (s *Service) loadSpace(ctx context.Context, c access.Caller, id string) (Space, roles.Role, tree, error) {
	return s.readSpace(ctx, c, id, true)
}

// readSpace is loadSpace, reading the organization's collections only when
// withTree asks for them or the space is in a collection: a space at the
// top has no default levels above its own, and its reader then makes one
// query (the tree it returns is nil).
func (s *Service) readSpace(ctx context.Context, c access.Caller, id string, withTree bool) (Space, roles.Role, tree, error) {
	sp, err := s.store.Space(ctx, id)
	return s.visible(ctx, c, sp, err, withTree)
}

// visible checks that the caller may see sp, as read with err, and
// returns it with their level (and its organization's tree, when asked).
func (s *Service) visible(ctx context.Context, c access.Caller, sp Space, err error, withTree bool) (Space, roles.Role, tree, error) {
	if errors.Is(err, apierr.ErrNotFound) {
		return Space{}, "", nil, ErrSpaceNotFound
	}
	if err != nil {
		return Space{}, "", nil, err
	}
	role, ok := c.Role(sp.Organization)
	if !ok {
		return Space{}, "", nil, ErrSpaceNotFound
	}
	var t tree
	if withTree || sp.Parent != "" {
		if t, err = s.tree(ctx, sp.Organization); err != nil {
			return Space{}, "", nil, err
		}
	}
	level := t.spaceLevel(role, sp)
	if !access.Allows(level, access.View) {
		return Space{}, "", nil, ErrSpaceNotFound
	}
	return sp, level, t, nil
}

// spaceFor loads a live space and checks that the caller may do a.
func (s *Service) spaceFor(ctx context.Context, c access.Caller, id string, a access.Action, what string) (Space, roles.Role, tree, error) {
	return s.liveSpace(ctx, c, id, a, what, true)
}

// liveSpace is spaceFor, reading the tree as readSpace does.
func (s *Service) liveSpace(ctx context.Context, c access.Caller, id string, a access.Action, what string, withTree bool) (Space, roles.Role, tree, error) {
	sp, level, t, err := s.readSpace(ctx, c, id, withTree)
	if err != nil {
		return sp, level, t, err
	}
	if sp.DeletedAt != nil {
		return sp, level, t, ErrSpaceDeleted
	}
	if !access.Allows(level, a) {
		return sp, level, t, forbidden(what)
	}
	return sp, level, t, nil
}

// Enter checks that the caller may do a on a live space and returns their
// grant: what comments, custom field values and change requests work within.
// An invisible space is not found, a deleted one a conflict, a lower level
// forbidden.
func (s *Service) Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error) {
	sp, level, _, err := s.liveSpace(ctx, c, spaceID, a, string(a)+" in this space", false)
	if err != nil {
		return access.Grant{}, err
	}
	return grant(c, sp, level), nil
}

func grant(c access.Caller, sp Space, level roles.Role) access.Grant {
	return access.Grant{Organization: sp.Organization, Space: sp.ID, Revision: sp.Revision,
		Level: level, Locked: sp.EditMode == EditLocked, User: c.UserID}
}

// loadCollection loads a collection the caller can see, with their level.
func (s *Service) loadCollection(ctx context.Context, c access.Caller, id string) (Collection, roles.Role, tree, error) {
	col, err := s.store.Collection(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return Collection{}, "", nil, ErrCollectionNotFound
	}
	if err != nil {
		return Collection{}, "", nil, err
	}
	role, ok := c.Role(col.Organization)
	if !ok {
		return Collection{}, "", nil, ErrCollectionNotFound
	}
	t, err := s.tree(ctx, col.Organization)
	if err != nil {
		return Collection{}, "", nil, err
	}
	level := t.collectionLevel(role, col.ID)
	if !access.Allows(level, access.View) {
		return Collection{}, "", nil, ErrCollectionNotFound
	}
	return col, level, t, nil
}

func (s *Service) collectionFor(ctx context.Context, c access.Caller, id string, a access.Action, what string) (Collection, roles.Role, tree, error) {
	col, level, t, err := s.loadCollection(ctx, c, id)
	if err == nil && !access.Allows(level, a) {
		err = forbidden(what)
	}
	return col, level, t, err
}

// contentChanged runs the ContentChanged hooks for a space.
func (s *Service) contentChanged(ctx context.Context, spaceID string) error {
	for _, h := range s.hooks.ContentChanged {
		if err := h(ctx, spaceID); err != nil {
			return fmt.Errorf("after changing the content of space %s: %w", spaceID, err)
		}
	}
	return nil
}
