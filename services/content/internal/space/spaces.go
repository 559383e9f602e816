package space

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docspub/platform/libs/envelope"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// CreateSpaceInput is the body of a space creation.
type CreateSpaceInput struct {
	Title    *string
	Emoji    *string
	Parent   string
	EditMode string
}

func validEmoji(p *apierr.Problems, field, e string) {
	if utf8.RuneCountInString(e) > MaxEmoji {
		p.Add(field, "must be at most %d characters", MaxEmoji)
		return
	}
	for _, r := range e {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			p.Add(field, "must be an emoji")
			return
		}
	}
}

// CreateSpace creates an empty space in org, at the top or in a collection.
// It needs the create level in the organization (or on the collection).
func (s *Service) CreateSpace(ctx context.Context, c access.Caller, org string, in CreateSpaceInput) (SpaceView, error) {
	role, err := member(c, org)
	if err != nil {
		return SpaceView{}, err
	}
	var p apierr.Problems
	title := "Untitled"
	if in.Title != nil {
		title = strings.TrimSpace(*in.Title)
		validTitle(&p, "title", title)
	}
	emoji := ""
	if in.Emoji != nil {
		emoji = *in.Emoji
		validEmoji(&p, "emoji", emoji)
	}
	mode := EditLive
	if in.EditMode != "" {
		p.OneOf("editMode", in.EditMode, EditLive, EditLocked)
		mode = in.EditMode
	}
	if err := p.Err(); err != nil {
		return SpaceView{}, err
	}
	var sp Space
	var t tree // read only for a space in a collection: a top-level space's level is the role's
	create := func() error {
		level := role
		if in.Parent != "" {
			var err error
			if t, err = s.tree(ctx, org); err != nil {
				return err
			}
			if _, ok := t[in.Parent]; !ok {
				return apierr.Invalid("parent", "is not a collection of this organization")
			}
			level = t.collectionLevel(role, in.Parent)
		}
		if !access.Allows(level, access.Create) {
			return forbidden("create spaces here")
		}
		sp = s.newSpace(org, in.Parent, title, emoji, mode)
		rev := Revision{ID: sp.Revision, Space: sp.ID, Organization: org, Type: "edits", Parents: []string{}, CreatedAt: sp.CreatedAt}
		return s.insertSpace(ctx, sp, rev, contentapi.NewSpaceCreated)
	}
	if in.Parent != "" {
		// Under the tree lock: the collection cannot be deleted between
		// checking it and adding the space to it.
		err = s.locked(ctx, org, create)
	} else {
		err = create()
	}
	if err != nil {
		return SpaceView{}, err
	}
	// A new space has no comments and no change requests: nothing to count.
	return withPermissions(s.spaceView(sp, Counts{}), sp, t.spaceLevel(role, sp)), nil
}

func (s *Service) newSpace(org, parent, title, emoji, mode string) Space {
	now := s.clock()
	return Space{ID: ids.New(), Organization: org, Title: title, Emoji: emoji, Visibility: VisibilityPrivate,
		EditMode: mode, Parent: parent, Position: s.newPosition(), DefaultLevel: access.Inherit,
		Revision: ids.New(), CreatedAt: now, UpdatedAt: now}
}

func (s *Service) insertSpace(ctx context.Context, sp Space, rev Revision, newEvent func(contentapi.Space) envelope.Event) error {
	v := s.spaceView(sp, Counts{})
	return s.store.InsertSpace(ctx, sp, rev, newEvent(v.Space))
}

// ListSpaces lists the live spaces of org the caller can see, by position.
func (s *Service) ListSpaces(ctx context.Context, c access.Caller, org string, pg Page) (List[SpaceView], error) {
	role, err := member(c, org)
	if err != nil {
		return List[SpaceView]{}, err
	}
	t, err := s.listedTree(ctx, org)
	if err != nil {
		return List[SpaceView]{}, err
	}
	return s.listSpaces(ctx, role, t, SpaceQuery{Organization: org, Sort: ByPosition,
		AfterPosition: pg.AfterPosition, AfterID: pg.AfterID}, pg)
}

// GetSpace returns a space the caller can see, deleted ones too (with
// deletedAt), read through the store's cache (CachedSpace).
func (s *Service) GetSpace(ctx context.Context, c access.Caller, id string) (SpaceView, error) {
	sp, err := s.store.CachedSpace(ctx, id)
	sp, level, _, err := s.visible(ctx, c, sp, err, false)
	if err != nil {
		return SpaceView{}, err
	}
	return s.renderSpace(ctx, sp, level)
}

// UpdateSpaceInput is a space PATCH.
type UpdateSpaceInput struct {
	Title        *string
	Emoji        *string
	EditMode     *string
	Visibility   *string
	DefaultLevel nullable.Field[access.DefaultLevel]
	// Settings is the request's JSON object: the settings it names
	// replace the space's (see Settings; nil names none).
	Settings []byte
}

// UpdateSpace changes a space's title and emoji (edit level) and its edit
// mode, visibility, default level and Settings (admin). Renaming a locked
// space is refused like any content change.
func (s *Service) UpdateSpace(ctx context.Context, c access.Caller, id string, in UpdateSpaceInput) (SpaceView, error) {
	var p apierr.Problems
	title := newTitle(&p, in.Title)
	if in.Emoji != nil {
		validEmoji(&p, "emoji", *in.Emoji)
	}
	if in.EditMode != nil {
		p.OneOf("editMode", *in.EditMode, EditLive, EditLocked)
	}
	if in.Visibility != nil {
		p.OneOf("visibility", *in.Visibility, Visibilities...)
	}
	patch, err := settingsPatch(in.Settings)
	if err != nil {
		return SpaceView{}, err
	}
	given, err := Settings{}.patched(patch)
	if err != nil {
		return SpaceView{}, err
	}
	given.check(&p)
	admin := in.EditMode != nil || in.Visibility != nil || in.DefaultLevel.Set || patch != nil
	if err := p.Err(); err != nil {
		return SpaceView{}, err
	}
	need, what := access.Edit, "edit this space"
	if admin {
		need, what = access.Admin, "change this space's settings"
	}
	sp, level, t, err := s.spaceFor(ctx, c, id, need, what)
	if err != nil {
		return SpaceView{}, err
	}
	renames := title != nil || in.Emoji != nil
	if !renames && !admin {
		return s.renderSpace(ctx, sp, level)
	}
	sp, err = s.changeSpace(ctx, sp, func(sp *Space) error {
		if in.Visibility != nil && *in.Visibility == VisibilityInCollection && sp.Parent == "" {
			return apierr.Invalid("visibility", "in-collection is only for spaces in a collection")
		}
		if sp.EditMode == EditLocked && renames && (in.EditMode == nil || *in.EditMode == EditLocked) {
			return apierr.Forbidden("space is locked; unlock it (editMode live) to change it")
		}
		if title != nil {
			sp.Title = *title
		}
		if in.Emoji != nil {
			sp.Emoji = *in.Emoji
		}
		if in.EditMode != nil {
			sp.EditMode = *in.EditMode
		}
		if in.Visibility != nil {
			sp.Visibility = *in.Visibility
		}
		if in.DefaultLevel.Set {
			sp.DefaultLevel = in.DefaultLevel.Value
		}
		var err error
		if sp.Settings, err = sp.Settings.patched(patch); err != nil {
			return err
		}
		sp.UpdatedAt = s.clock()
		return nil
	}, contentapi.NewSpaceUpdated)
	if err != nil {
		return SpaceView{}, err
	}
	role, _ := c.Role(sp.Organization)
	return s.renderSpace(ctx, sp, t.spaceLevel(role, sp))
}

// changeSpace applies change to the space read, as stored now (the store
// reads it afresh, and once more when another write came first), and
// stores the result with the event newEvent makes of it. What the
// caller's access was checked on must not have moved since read (see
// sameAccess): apierr.Changed otherwise, nothing written.
func (s *Service) changeSpace(ctx context.Context, read Space, change func(sp *Space) error, newEvent func(contentapi.Space) envelope.Event) (Space, error) {
	return s.store.UpdateSpace(ctx, read.ID, func(sp *Space) (envelope.Event, error) {
		if !sameAccess(read, *sp) {
			return envelope.Event{}, apierr.Changed("space")
		}
		if err := change(sp); err != nil {
			return envelope.Event{}, err
		}
		v, err := s.eventView(ctx, *sp)
		if err != nil {
			return envelope.Event{}, err
		}
		return newEvent(v.Space), nil
	})
}

// sameAccess reports whether a space as read again (now) is where it was
// (was) for the access checked on it: its organization, collection,
// default level and deletion.
func sameAccess(was, now Space) bool {
	return was.Organization == now.Organization && was.Parent == now.Parent &&
		was.DefaultLevel == now.DefaultLevel && (was.DeletedAt == nil) == (now.DeletedAt == nil)
}

// DeleteSpace soft-deletes a space: it leaves every list, GET still shows it
// with deletedAt, and it can be restored for RestoreWindow. Admins only;
// deleting a deleted space changes nothing.
func (s *Service) DeleteSpace(ctx context.Context, c access.Caller, id string) error {
	sp, level, _, err := s.loadSpace(ctx, c, id)
	if err != nil {
		return err
	}
	if !access.Allows(level, access.Admin) {
		return forbidden("delete this space")
	}
	if sp.DeletedAt != nil {
		return nil
	}
	_, err = s.changeSpace(ctx, sp, func(sp *Space) error {
		now := s.clock()
		sp.DeletedAt, sp.Deleted, sp.UpdatedAt = &now, true, now
		return nil
	}, contentapi.NewSpaceDeleted)
	return err
}

// RestoreSpace restores a space deleted less than RestoreWindow ago; admins
// only. A space whose collection is gone comes back at the top. Restoring a
// live space changes nothing.
func (s *Service) RestoreSpace(ctx context.Context, c access.Caller, id string) (SpaceView, error) {
	sp, _, _, err := s.loadSpace(ctx, c, id)
	if err != nil {
		return SpaceView{}, err
	}
	var level roles.Role
	var t tree
	// Under the tree lock: the space's collection is either there or gone
	// for good while the space returns into it.
	err = s.locked(ctx, sp.Organization, func() error {
		if sp, level, t, err = s.loadSpace(ctx, c, id); err != nil {
			return err
		}
		if !access.Allows(level, access.Admin) {
			return forbidden("restore this space")
		}
		if sp.DeletedAt == nil {
			return nil
		}
		sp, err = s.changeSpace(ctx, sp, func(sp *Space) error {
			now := s.clock()
			if now.Sub(*sp.DeletedAt) > RestoreWindow {
				return ErrRestoreExpired
			}
			sp.DeletedAt, sp.Deleted, sp.UpdatedAt = nil, false, now
			if _, ok := t[sp.Parent]; sp.Parent != "" && !ok {
				sp.Parent, sp.Position = "", s.newPosition()
				if sp.Visibility == VisibilityInCollection {
					sp.Visibility = VisibilityPrivate
				}
			}
			return nil
		}, contentapi.NewSpaceRestored)
		if err != nil {
			return err
		}
		role, _ := c.Role(sp.Organization)
		level = t.spaceLevel(role, sp)
		return nil
	})
	if err != nil {
		return SpaceView{}, err
	}
	return s.renderSpace(ctx, sp, level)
}

// errRestored: a space found deleted before the restore window's start no
// longer is when the purge reads it again (nothing purged).
var errRestored = errors.New("space no longer to purge")

// Purge removes for good the spaces deleted more than RestoreWindow before
// now, with what hangs off them (the Purged hooks), and returns how many.
func (s *Service) Purge(ctx context.Context) (int, error) {
	cutoff := s.clock().Add(-RestoreWindow)
	n := 0
	for {
		sps, err := s.store.DeletedBefore(ctx, cutoff, 100)
		if err != nil {
			return n, err
		}
		for _, sp := range sps {
			for _, h := range s.hooks.Purged {
				if err := h(ctx, sp.ID); err != nil {
					return n, err
				}
			}
			err := s.store.PurgeSpace(ctx, sp.ID, func(sp Space) (envelope.Event, error) {
				if sp.DeletedAt == nil || !sp.DeletedAt.Before(cutoff) {
					return envelope.Event{}, errRestored
				}
				return contentapi.NewSpacePurged(s.spaceView(sp, Counts{}).Space), nil
			})
			if err != nil && !errors.Is(err, apierr.ErrNotFound) && !errors.Is(err, apierr.ErrChanged) && !errors.Is(err, errRestored) {
				return n, err
			}
			n++
		}
		if len(sps) < 100 {
			return n, nil
		}
	}
}

// MoveSpace moves a space to another collection (or the top) and/or
// position; admins of it only. It reads the tree and writes under the
// organization's tree lock.
func (s *Service) MoveSpace(ctx context.Context, c access.Caller, id string, in MoveInput) (SpaceView, error) {
	sp, _, _, err := s.spaceFor(ctx, c, id, access.Admin, "move this space")
	if err != nil {
		return SpaceView{}, err
	}
	var t tree
	err = s.locked(ctx, sp.Organization, func() error {
		if sp, _, t, err = s.spaceFor(ctx, c, id, access.Admin, "move this space"); err != nil {
			return err
		}
		parent, pos, err := s.target(ctx, c, sp.Organization, t, Node{Kind: KindSpace, ID: sp.ID, Parent: sp.Parent, Position: sp.Position}, in)
		if err != nil {
			return err
		}
		sp, err = s.changeSpace(ctx, sp, func(sp *Space) error {
			sp.Parent, sp.Position, sp.UpdatedAt = parent, pos, s.clock()
			if parent == "" && sp.Visibility == VisibilityInCollection {
				sp.Visibility = VisibilityPrivate
			}
			return nil
		}, contentapi.NewSpaceMoved)
		return err
	})
	if err != nil {
		return SpaceView{}, err
	}
	role, _ := c.Role(sp.Organization)
	return s.renderSpace(ctx, sp, t.spaceLevel(role, sp))
}

// TransferInput says where a space goes: an organization (required) and
// optionally a collection there (Collection.Set; null or "" for the top).
type TransferInput struct {
	Organization string
	Collection   nullable.Field[string]
}

// TransferSpace moves a space to another organization and/or collection.
// Changing organization needs admin in both; the space lands at the top of
// the target unless a collection there is given. Into another organization
// it is an operation (the space, then its search index).
func (s *Service) TransferSpace(ctx context.Context, c access.Caller, id string, in TransferInput) (SpaceView, error) {
	if in.Organization == "" {
		return SpaceView{}, apierr.Invalid("organization", "is required")
	}
	sp, level, _, err := s.spaceFor(ctx, c, id, access.Admin, "transfer this space")
	if err != nil {
		return SpaceView{}, err
	}
	to, ok := c.Role(in.Organization)
	if !ok {
		return SpaceView{}, apierr.Invalid("organization", "is not an organization you belong to")
	}
	if in.Organization != sp.Organization {
		if from, _ := c.Role(sp.Organization); from != roles.Admin || to != roles.Admin {
			return SpaceView{}, forbidden("transfer this space: you must be an admin of both organizations")
		}
	}
	if in.Organization == sp.Organization && !in.Collection.Set {
		return s.renderSpace(ctx, sp, level)
	}
	parent := ""
	if in.Collection.Set {
		parent = in.Collection.Value
	}
	if err := s.checkTarget(ctx, in.Organization, to, parent); err != nil {
		return SpaceView{}, err
	}
	if in.Organization == sp.Organization {
		return s.transferWithin(ctx, c, id, parent)
	}
	p := spaceTransfer{Space: sp.ID, From: sp.Organization, To: in.Organization, Parent: parent}
	if err := s.do(ctx, sp.Organization, OpTransferSpace, "space:"+sp.ID, p); err != nil {
		return SpaceView{}, err
	}
	return s.reload(ctx, c, id)
}

// transferWithin puts a space under parent of its own organization: a move
// under the tree lock.
func (s *Service) transferWithin(ctx context.Context, c access.Caller, id, parent string) (SpaceView, error) {
	sp, _, _, err := s.spaceFor(ctx, c, id, access.Admin, "transfer this space")
	if err != nil {
		return SpaceView{}, err
	}
	err = s.locked(ctx, sp.Organization, func() error {
		if sp, _, _, err = s.spaceFor(ctx, c, id, access.Admin, "transfer this space"); err != nil {
			return err
		}
		if parent != "" {
			if col, err := s.store.Collection(ctx, parent); err != nil || col.Organization != sp.Organization {
				return apierr.Invalid("collection", "is not a collection of the target organization")
			}
		}
		return s.transferSpaceDoc(ctx, sp.ID, sp.Organization, sp.Organization, parent, s.newPosition(), s.clock(), nil, envelope.Event{})
	})
	if err != nil {
		return SpaceView{}, err
	}
	return s.reload(ctx, c, id)
}

// reload renders a space as it is stored now, for the caller.
func (s *Service) reload(ctx context.Context, c access.Caller, id string) (SpaceView, error) {
	sp, err := s.store.Space(ctx, id)
	if err != nil {
		return SpaceView{}, err
	}
	t, err := s.tree(ctx, sp.Organization)
	if err != nil {
		return SpaceView{}, err
	}
	role, _ := c.Role(sp.Organization)
	return s.renderSpace(ctx, sp, t.spaceLevel(role, sp))
}

// checkTarget checks that a member with role may add a space to parent
// (a collection; "" for the top) of org.
func (s *Service) checkTarget(ctx context.Context, org string, role roles.Role, parent string) error {
	if parent == "" {
		return nil
	}
	t, err := s.tree(ctx, org)
	if err != nil {
		return err
	}
	if _, ok := t[parent]; !ok {
		return apierr.Invalid("collection", "is not a collection of the target organization")
	}
	if !access.Allows(t.collectionLevel(role, parent), access.Create) {
		return forbidden("add content to that collection")
	}
	return nil
}

// DuplicateSpace makes a new space beside the original with a copy of its
// content and settings ("<title> (copy)"). It needs view on the space and
// the create level where the copy lands. It is an operation: the copy's
// revision, the space, then its custom field values.
func (s *Service) DuplicateSpace(ctx context.Context, c access.Caller, id string) (SpaceView, error) {
	sp, level, t, err := s.spaceFor(ctx, c, id, access.View, "view this space")
	if err != nil {
		return SpaceView{}, err
	}
	role, _ := c.Role(sp.Organization)
	where := role
	if sp.Parent != "" {
		where = t.collectionLevel(role, sp.Parent)
	}
	if !access.Allows(where, access.Create) {
		return SpaceView{}, forbidden("create spaces here")
	}
	title := sp.Title + " (copy)"
	if utf8.RuneCountInString(title) > MaxTitle {
		title = string([]rune(title)[:MaxTitle])
	}
	cp := s.newSpace(sp.Organization, sp.Parent, title, sp.Emoji, sp.EditMode)
	cp.Visibility, cp.DefaultLevel = sp.Visibility, sp.DefaultLevel
	p := duplicate{From: grant(c, sp, level), To: grant(c, cp, t.spaceLevel(role, cp)), Copy: cp}
	if err := s.do(ctx, sp.Organization, OpDuplicateSpace, "duplicate:"+cp.ID, p); err != nil {
		return SpaceView{}, err
	}
	return s.renderSpace(ctx, cp, t.spaceLevel(role, cp))
}

// MemberSpaces lists the live spaces a member of org can access, with their
// level, by id (creation) in order desc or asc. Admins list anyone's; others
// only their own.
func (s *Service) MemberSpaces(ctx context.Context, c access.Caller, org, user string, desc bool, pg Page) (List[MemberSpace], error) {
	role, err := member(c, org)
	if err != nil {
		return List[MemberSpace]{}, err
	}
	if user != c.UserID && role != roles.Admin {
		return List[MemberSpace]{}, forbidden("list another member's spaces")
	}
	theirs, ok, err := s.people.Role(ctx, org, user)
	if err != nil {
		return List[MemberSpace]{}, err
	}
	if user == c.UserID {
		theirs, ok = role, true
	}
	if !ok {
		return List[MemberSpace]{}, apierr.NotFound("member not found")
	}
	out := List[MemberSpace]{Items: []MemberSpace{}}
	if !roles.Valid(theirs) {
		return out, nil // guests reach no space through their role
	}
	t, err := s.tree(ctx, org)
	if err != nil {
		return out, err
	}
	l, err := s.listSpaces(ctx, theirs, t, SpaceQuery{Organization: org, Sort: ByID, Desc: desc, AfterID: pg.AfterID}, pg)
	if err != nil {
		return out, err
	}
	items := make([]MemberSpace, len(l.Items))
	for i, v := range l.Items {
		// Permissions in the items are the listed member's, not the caller's.
		sp := Space{DefaultLevel: access.DefaultLevel(v.DefaultLevel), Parent: v.Parent}
		items[i] = MemberSpace{Permission: t.spaceLevel(theirs, sp), Space: v}
	}
	return paging.With(l, items), nil
}
