package comment

import (
	"context"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/people"
)

// Errors the domain returns besides field problems and not-found errors.
var (
	ErrNotAuthor = apierr.Forbidden("only the author may edit the body")
	ErrNoUser    = apierr.Unauthorized("commenting needs a user")
)

// Pages tells whether a page exists in a revision (the revision store).
type Pages interface {
	HasPage(ctx context.Context, revisionID, pageID string) (bool, error)
}

// Service carries out comment operations within a grant.
type Service struct {
	store  Store
	people people.Directory
	pages  Pages
	urls   links.URLs
	now    func() time.Time
}

// New returns a service over store, rendering users from dir; a comment's
// page must be a page of pages' revision of the thread.
func New(store Store, dir people.Directory, pages Pages, urls links.URLs) *Service {
	return &Service{store: store, people: dir, pages: pages, urls: urls, now: now}
}

// now is the current time at the precision MongoDB stores, so that keyset
// cursors hold exactly the stored values.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// enter checks that the thread lies in the granted space and that the grant
// allows the action.
func enter(g access.Grant, t Thread, a access.Action) error {
	if t.Space == "" || t.Space != g.Space {
		return fmt.Errorf("comment thread of space %q under a grant for space %q", t.Space, g.Space)
	}
	if a != access.View && g.User == "" {
		return ErrNoUser
	}
	if !g.Can(a) {
		return apierr.Forbidden("your access to this space does not allow you to %s", a)
	}
	return nil
}

// List lists a thread's comments (access.View).
func (s *Service) List(ctx context.Context, g access.Grant, t Thread, f Filter, p Page) (List[View], error) {
	if err := enter(g, t, access.View); err != nil {
		return List[View]{}, err
	}
	if err := f.validate(); err != nil {
		return List[View]{}, err
	}
	cs, count, err := s.store.Comments(ctx, t, f, p)
	if err != nil {
		return List[View]{}, err
	}
	vs, err := s.views(ctx, g, cs)
	return List[View]{Items: vs, Count: count}, err
}

// Get returns a comment (access.View).
func (s *Service) Get(ctx context.Context, g access.Grant, t Thread, id string) (View, error) {
	if err := enter(g, t, access.View); err != nil {
		return View{}, err
	}
	c, err := s.store.Comment(ctx, t, id)
	if err != nil {
		return View{}, err
	}
	return s.viewOne(ctx, g, c)
}

// Post posts a comment on the grant's revision (access.Comment).
func (s *Service) Post(ctx context.Context, g access.Grant, t Thread, in PostInput) (View, error) {
	if err := enter(g, t, access.Comment); err != nil {
		return View{}, err
	}
	md, err := in.validate()
	if err != nil {
		return View{}, err
	}
	if in.Page != nil {
		ok, err := s.pages.HasPage(ctx, g.Revision, *in.Page)
		if err != nil {
			return View{}, err
		}
		if !ok {
			where := "this space"
			if t.ChangeRequest != "" {
				where = "this change request"
			}
			return View{}, apierr.Invalid("page", "is not a page of %s", where)
		}
	}
	c := Comment{
		ID: ids.New(), Thread: t, Revision: g.Revision, Node: deref(in.Node), Page: deref(in.Page),
		PostedBy: g.User, PostedAt: s.now(), Markdown: md, Status: StatusOpen,
	}
	v, err := s.viewOne(ctx, g, c)
	if err != nil {
		return View{}, err
	}
	if err := s.store.InsertComment(ctx, c, contentapi.NewCommentCreated(g.Organization, eventData(c, v))); err != nil {
		return View{}, err
	}
	return v, nil
}

// Update changes a comment (access.Comment): its body (author only), its
// resolution and the caller's reactions. A request that changes nothing
// writes nothing.
func (s *Service) Update(ctx context.Context, g access.Grant, t Thread, id string, in Update) (View, error) {
	if err := enter(g, t, access.Comment); err != nil {
		return View{}, err
	}
	if err := in.validate(); err != nil {
		return View{}, err
	}
	var v View
	_, err := s.store.UpdateComment(ctx, t, id, func(c *Comment) ([]envelope.Event, error) {
		next, changed, err := in.apply(*c, g.User, s.now())
		if err != nil {
			return nil, err
		}
		v, err = s.viewOne(ctx, g, next)
		if err != nil || !changed {
			return nil, err
		}
		*c = next
		return []envelope.Event{contentapi.NewCommentUpdated(g.Organization, eventData(next, v))}, nil
	})
	if err != nil {
		return View{}, err
	}
	return v, nil
}

// apply computes the comment after the update by user at a time.
func (in Update) apply(c Comment, user string, at time.Time) (Comment, bool, error) {
	next, changed, err := edit(c.PostedBy, c.Markdown, c.Reactions, in.ReplyUpdate, user, at)
	if err != nil {
		return c, false, err
	}
	if next.markdown != c.Markdown {
		c.Markdown, c.EditedAt = next.markdown, at
	}
	c.Reactions = next.reactions
	if in.Resolved != nil {
		switch {
		case *in.Resolved && c.Status != StatusResolved:
			c.Status, c.ResolvedAt, c.ResolvedBy = StatusResolved, at, user
			changed = true
		case !*in.Resolved && c.Status == StatusResolved:
			c.Status, c.ResolvedAt, c.ResolvedBy = StatusOpen, time.Time{}, ""
			changed = true
		}
	}
	return c, changed, nil
}

// edited is the part of a comment or reply that ReplyUpdate changes.
type edited struct {
	markdown  string
	reactions []Reaction
}

// edit applies the body and reactions of an update by user to a comment or
// reply posted by author.
func edit(author, markdown string, rs []Reaction, in ReplyUpdate, user string, at time.Time) (edited, bool, error) {
	out := edited{markdown: markdown}
	changed := false
	if in.Body != nil {
		if author != user {
			return out, false, ErrNotAuthor
		}
		if md := *in.Body.Markdown; md != markdown {
			out.markdown, changed = md, true
		}
	}
	var reacted bool
	var err error
	if out.reactions, reacted, err = react(rs, user, in.AddedReactions, in.RemovedReactions, at); err != nil {
		return out, false, err
	}
	return out, changed || reacted, nil
}

// Delete deletes a comment and its replies: its author (with
// access.Comment) or an admin of the space.
func (s *Service) Delete(ctx context.Context, g access.Grant, t Thread, id string) error {
	if err := enter(g, t, access.Comment); err != nil {
		return err
	}
	c, err := s.store.Comment(ctx, t, id)
	if err != nil {
		return err
	}
	if !access.ForComment(g.Level, g.User, c.PostedBy).Delete {
		return apierr.Forbidden("only the author or an admin may delete a comment")
	}
	v, err := s.viewOne(ctx, g, c)
	if err != nil {
		return err
	}
	return s.store.RemoveComment(ctx, c, contentapi.NewCommentDeleted(g.Organization, eventData(c, v)))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
