package comment

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/people"
)

// View is a comment as the API returns it.
type View struct {
	Object      string                    `json:"object"`
	ID          string                    `json:"id"`
	PostedBy    people.User               `json:"postedBy"`
	PostedAt    time.Time                 `json:"postedAt"`
	EditedAt    *time.Time                `json:"editedAt,omitempty"`
	Reactions   []ReactionView            `json:"reactions"`
	Replies     int                       `json:"replies"`
	Repliers    []Contributor             `json:"repliers"`
	Body        Body                      `json:"body"`
	Target      Target                    `json:"target"`
	URLs        URLs                      `json:"urls"`
	Permissions access.CommentPermissions `json:"permissions"`
	Status      Status                    `json:"status"`
	ResolvedAt  *time.Time                `json:"resolvedAt,omitempty"`
	ResolvedBy  *people.User              `json:"resolvedBy,omitempty"`
}

// ReplyView is a reply as the API returns it.
type ReplyView struct {
	Object      string                    `json:"object"`
	ID          string                    `json:"id"`
	PostedBy    people.User               `json:"postedBy"`
	PostedAt    time.Time                 `json:"postedAt"`
	EditedAt    *time.Time                `json:"editedAt,omitempty"`
	Reactions   []ReactionView            `json:"reactions"`
	Body        Body                      `json:"body"`
	URLs        URLs                      `json:"urls"`
	Permissions access.CommentPermissions `json:"permissions"`
}

// Body is the markdown form of a body.
type Body struct {
	Markdown string `json:"markdown"`
}

// Target is where a comment was posted.
type Target struct {
	Node          *Ref   `json:"node,omitempty"`
	ChangeRequest string `json:"changeRequest,omitempty"`
	Page          *Ref   `json:"page,omitempty"`
	Space         string `json:"space"`
	Revision      string `json:"revision"`
}

// Ref names a node or page.
type Ref struct {
	ID string `json:"id"`
}

// URLs is a comment's or reply's urls object.
type URLs = contentapi.LocationURLs

// ReactionView is the users who reacted with one emoji.
type ReactionView struct {
	Emoji string    `json:"emoji"`
	Count int       `json:"count"`
	Users []Reactor `json:"users"`
}

// Reactor is one user's reaction.
type Reactor struct {
	User      people.User `json:"user"`
	ReactedAt time.Time   `json:"reactedAt"`
}

// Contributor is one replier of a comment.
type Contributor struct {
	UpdatedAt time.Time   `json:"updatedAt"`
	Count     int         `json:"count"`
	User      people.User `json:"user"`
}

// users collects user ids without repeats and renders them all with one
// directory call.
type users struct {
	ids  []string
	seen map[string]bool
	got  map[string]people.User
}

func (u *users) add(ids ...string) {
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	for _, id := range ids {
		if id != "" && !u.seen[id] {
			u.seen[id] = true
			u.ids = append(u.ids, id)
		}
	}
}

func (u *users) addReactions(rs []Reaction) {
	for _, r := range rs {
		u.add(r.User)
	}
}

func (s *Service) load(ctx context.Context, u *users) error {
	got, err := s.people.Users(ctx, u.ids)
	u.got = got
	return err
}

// user renders a user; one the directory did not render shows as unknown.
func (s *Service) user(u *users, id string) people.User {
	if v, ok := u.got[id]; ok {
		return v
	}
	return people.Render(s.urls, id, people.Profile{}, false)
}

// views renders comments for the grant's user: one directory call and one
// reply summary for all of them.
func (s *Service) views(ctx context.Context, g access.Grant, cs []Comment) ([]View, error) {
	ids := make([]string, len(cs))
	for i, c := range cs {
		ids[i] = c.ID
	}
	stats, err := s.store.ReplyStats(ctx, ids)
	if err != nil {
		return nil, err
	}
	var u users
	for _, c := range cs {
		u.add(c.PostedBy, c.ResolvedBy)
		u.addReactions(c.Reactions)
		for _, r := range stats[c.ID].Repliers {
			u.add(r.User)
		}
	}
	if err := s.load(ctx, &u); err != nil {
		return nil, err
	}
	out := make([]View, len(cs))
	for i, c := range cs {
		out[i] = s.view(&u, g.Level, g.User, c, stats[c.ID])
	}
	return out, nil
}

func (s *Service) viewOne(ctx context.Context, g access.Grant, c Comment) (View, error) {
	vs, err := s.views(ctx, g, []Comment{c})
	if err != nil {
		return View{}, err
	}
	return vs[0], nil
}

func (s *Service) view(u *users, level roles.Role, caller string, c Comment, st ReplyStats) View {
	v := View{
		Object:      "comment",
		ID:          c.ID,
		PostedBy:    s.user(u, c.PostedBy),
		PostedAt:    c.PostedAt,
		EditedAt:    optionalTime(c.EditedAt),
		Reactions:   s.reactionViews(u, c.Reactions),
		Replies:     st.Count,
		Repliers:    make([]Contributor, len(st.Repliers)),
		Body:        Body{Markdown: c.Markdown},
		Target:      Target{ChangeRequest: c.Thread.ChangeRequest, Space: c.Thread.Space, Revision: c.Revision},
		URLs:        URLs{Location: s.urls.Location(c.Thread.path() + "/" + c.ID)},
		Permissions: access.ForComment(level, caller, c.PostedBy),
		Status:      c.Status,
	}
	if c.Node != "" {
		v.Target.Node = &Ref{ID: c.Node}
	}
	if c.Page != "" {
		v.Target.Page = &Ref{ID: c.Page}
	}
	if c.Status == StatusResolved {
		by := s.user(u, c.ResolvedBy)
		v.ResolvedAt, v.ResolvedBy = optionalTime(c.ResolvedAt), &by
	}
	repliers := slices.Clone(st.Repliers)
	// Most recent repliers first.
	slices.SortFunc(repliers, func(a, b Replier) int {
		return cmp.Or(b.LastAt.Compare(a.LastAt), cmp.Compare(a.User, b.User))
	})
	for i, r := range repliers {
		v.Repliers[i] = Contributor{UpdatedAt: r.LastAt, Count: r.Count, User: s.user(u, r.User)}
	}
	return v
}

// replyViews renders replies of comment c for the grant's user with one
// directory call.
func (s *Service) replyViews(ctx context.Context, g access.Grant, rs []Reply) ([]ReplyView, error) {
	var u users
	for _, r := range rs {
		u.add(r.PostedBy)
		u.addReactions(r.Reactions)
	}
	if err := s.load(ctx, &u); err != nil {
		return nil, err
	}
	out := make([]ReplyView, len(rs))
	for i, r := range rs {
		out[i] = ReplyView{
			Object:      "comment-reply",
			ID:          r.ID,
			PostedBy:    s.user(&u, r.PostedBy),
			PostedAt:    r.PostedAt,
			EditedAt:    optionalTime(r.EditedAt),
			Reactions:   s.reactionViews(&u, r.Reactions),
			Body:        Body{Markdown: r.Markdown},
			URLs:        URLs{Location: s.urls.Location(r.Thread.path() + "/" + r.Comment + "/replies/" + r.ID)},
			Permissions: access.ForComment(g.Level, g.User, r.PostedBy),
		}
	}
	return out, nil
}

func (s *Service) replyView(ctx context.Context, g access.Grant, r Reply) (ReplyView, error) {
	vs, err := s.replyViews(ctx, g, []Reply{r})
	if err != nil {
		return ReplyView{}, err
	}
	return vs[0], nil
}

// reactionViews groups reactions by emoji, in the order each emoji was
// first used; each emoji's users in the order they reacted.
func (s *Service) reactionViews(u *users, rs []Reaction) []ReactionView {
	out := []ReactionView{}
	at := map[string]int{}
	for _, r := range rs {
		i, ok := at[r.Emoji]
		if !ok {
			i = len(out)
			at[r.Emoji] = i
			out = append(out, ReactionView{Emoji: r.Emoji, Users: []Reactor{}})
		}
		out[i].Count++
		out[i].Users = append(out[i].Users, Reactor{User: s.user(u, r.User), ReactedAt: r.ReactedAt})
	}
	return out
}

func optionalTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}
