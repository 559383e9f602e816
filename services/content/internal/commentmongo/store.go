// Package commentmongo stores comments and replies in MongoDB through
// libs/docstore: every write records its event on the written document in
// the same update, removals tombstone, reads skip tombstones, and updates of
// one document go through the document locks of mongox.DB.
//
// The stored shape is a contract with the space service, which counts a
// space's open comments for its comments counter with
//
//	comments: {space: <space id>, changeRequest: "", status: "open", _tombstone: {$ne: true}}
//
// Collection "comments": _id, space, changeRequest ("" for the space's own
// comments), revision, node, page, postedBy, postedAt, body {markdown},
// editedAt, status ("open" | "resolved"), resolvedAt, resolvedBy, reactions
// [{emoji, user, reactedAt}], version. Collection "comment_replies": _id,
// comment, space, changeRequest, postedBy, postedAt, body {markdown},
// editedAt, reactions, version.
package commentmongo

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/comment"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// The collections.
const (
	Comments = "comments"
	Replies  = "comment_replies"
)

// Collections lists the collections whose documents carry events, for the
// outbox relay.
func Collections() []string { return []string{Comments, Replies} }

// Indexes are the indexes the store and the space service's counter rely on.
func Indexes() []mongox.Index {
	return []mongox.Index{
		mongox.Keys(Comments, "space", "changeRequest", "postedAt", "_id"),
		mongox.Keys(Comments, "space", "changeRequest", "status"),
		mongox.Keys(Replies, "comment", "postedAt", "_id"),
		mongox.Keys(Replies, "space"),
	}
}

// Store implements comment.Store.
type Store struct {
	ds *docstore.Store
}

var _ comment.Store = (*Store)(nil)

// NewStore returns a store on db. Updates of one document are serialised
// with db's document locks, which the outbox relay shares; written (nil:
// none) is called after every write that recorded an event (the relay's
// Notify).
func NewStore(db mongox.DB, written func([]kafkax.Event)) *Store {
	ds := docstore.New(db, map[string]string{Comments: "comment", Replies: "comment reply"}, written)
	return &Store{ds: ds}
}

type body struct {
	Markdown string `bson:"markdown"`
}

// reaction is the form reactions had when each was a subdocument; documents
// written so are still read.
type reaction struct {
	Emoji     string    `bson:"emoji"`
	User      string    `bson:"user"`
	ReactedAt time.Time `bson:"reactedAt"`
}

// reactions are stored packed in one string, a JSON array of
// [emoji, user, reactedAt in Unix milliseconds]: a comment may hold
// limits.Reactions of them, and as one value they cost a reader that passes
// over the document (the embedded server decodes every document a query
// scans, whoever's it is) one string instead of thousands of fields.
type packedReaction struct {
	Emoji     string
	User      string
	ReactedAt int64
}

func (r packedReaction) MarshalJSON() ([]byte, error) {
	return json.Marshal([]any{r.Emoji, r.User, r.ReactedAt})
}

func (r *packedReaction) UnmarshalJSON(b []byte) error {
	var a [3]json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(a[0], &r.Emoji); err != nil {
		return err
	}
	if err := json.Unmarshal(a[1], &r.User); err != nil {
		return err
	}
	return json.Unmarshal(a[2], &r.ReactedAt)
}

func packReactions(rs []comment.Reaction) string {
	if len(rs) == 0 {
		return ""
	}
	out := make([]packedReaction, len(rs))
	for i, r := range rs {
		out[i] = packedReaction{Emoji: r.Emoji, User: r.User, ReactedAt: r.ReactedAt.UnixMilli()}
	}
	b, err := json.Marshal(out)
	if err != nil { // strings and integers always marshal
		panic(err)
	}
	return string(b)
}

// unpackReactions reads the packed form, or the older subdocuments.
func unpackReactions(packed string, old []reaction) ([]comment.Reaction, error) {
	if packed == "" {
		return fromReactions(old), nil
	}
	var rs []packedReaction
	if err := json.Unmarshal([]byte(packed), &rs); err != nil {
		return nil, fmt.Errorf("stored reactions: %w", err)
	}
	out := make([]comment.Reaction, len(rs))
	for i, r := range rs {
		out[i] = comment.Reaction{Emoji: r.Emoji, User: r.User, ReactedAt: time.UnixMilli(r.ReactedAt).UTC()}
	}
	return out, nil
}

type commentDoc struct {
	ID            string     `bson:"_id"`
	Space         string     `bson:"space"`
	ChangeRequest string     `bson:"changeRequest"`
	Revision      string     `bson:"revision"`
	Node          string     `bson:"node,omitempty"`
	Page          string     `bson:"page,omitempty"`
	PostedBy      string     `bson:"postedBy"`
	PostedAt      time.Time  `bson:"postedAt"`
	Body          body       `bson:"body"`
	EditedAt      *time.Time `bson:"editedAt,omitempty"`
	Status        string     `bson:"status"`
	ResolvedAt    *time.Time `bson:"resolvedAt,omitempty"`
	ResolvedBy    string     `bson:"resolvedBy,omitempty"`
	Reactions     string     `bson:"reactionList,omitempty"`
	OldReactions  []reaction `bson:"reactions,omitempty"`
}

type replyDoc struct {
	ID            string     `bson:"_id"`
	Comment       string     `bson:"comment"`
	Space         string     `bson:"space"`
	ChangeRequest string     `bson:"changeRequest"`
	PostedBy      string     `bson:"postedBy"`
	PostedAt      time.Time  `bson:"postedAt"`
	Body          body       `bson:"body"`
	EditedAt      *time.Time `bson:"editedAt,omitempty"`
	Reactions     string     `bson:"reactionList,omitempty"`
	OldReactions  []reaction `bson:"reactions,omitempty"`
}

func fromReactions(rs []reaction) []comment.Reaction {
	out := make([]comment.Reaction, len(rs))
	for i, r := range rs {
		out[i] = comment.Reaction{Emoji: r.Emoji, User: r.User, ReactedAt: r.ReactedAt.UTC()}
	}
	return out
}

func optional(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

func fromOptional(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.UTC()
}

func toCommentDoc(c comment.Comment) commentDoc {
	return commentDoc{
		ID: c.ID, Space: c.Thread.Space, ChangeRequest: c.Thread.ChangeRequest, Revision: c.Revision,
		Node: c.Node, Page: c.Page, PostedBy: c.PostedBy, PostedAt: c.PostedAt, Body: body{Markdown: c.Markdown},
		EditedAt: optional(c.EditedAt), Status: string(c.Status), ResolvedAt: optional(c.ResolvedAt),
		ResolvedBy: c.ResolvedBy, Reactions: packReactions(c.Reactions),
	}
}

func (d commentDoc) domain() (comment.Comment, error) {
	rs, err := unpackReactions(d.Reactions, d.OldReactions)
	return comment.Comment{
		ID: d.ID, Thread: comment.Thread{Space: d.Space, ChangeRequest: d.ChangeRequest}, Revision: d.Revision,
		Node: d.Node, Page: d.Page, PostedBy: d.PostedBy, PostedAt: d.PostedAt.UTC(), Markdown: d.Body.Markdown,
		EditedAt: fromOptional(d.EditedAt), Status: comment.Status(d.Status), ResolvedAt: fromOptional(d.ResolvedAt),
		ResolvedBy: d.ResolvedBy, Reactions: rs,
	}, err
}

func toReplyDoc(r comment.Reply) replyDoc {
	return replyDoc{
		ID: r.ID, Comment: r.Comment, Space: r.Thread.Space, ChangeRequest: r.Thread.ChangeRequest,
		PostedBy: r.PostedBy, PostedAt: r.PostedAt, Body: body{Markdown: r.Markdown}, EditedAt: optional(r.EditedAt),
		Reactions: packReactions(r.Reactions),
	}
}

func (d replyDoc) domain() (comment.Reply, error) {
	rs, err := unpackReactions(d.Reactions, d.OldReactions)
	return comment.Reply{
		ID: d.ID, Comment: d.Comment, Thread: comment.Thread{Space: d.Space, ChangeRequest: d.ChangeRequest},
		PostedBy: d.PostedBy, PostedAt: d.PostedAt.UTC(), Markdown: d.Body.Markdown, EditedAt: fromOptional(d.EditedAt),
		Reactions: rs,
	}, err
}

// InsertComment stores a new comment with its event.
func (s *Store) InsertComment(ctx context.Context, c comment.Comment, ev kafkax.Event) error {
	return s.ds.Insert(ctx, Comments, toCommentDoc(c), ev)
}

func threadFilter(t comment.Thread) bson.M {
	return bson.M{"space": t.Space, "changeRequest": t.ChangeRequest}
}

// Comment reads a comment of a thread.
func (s *Store) Comment(ctx context.Context, t comment.Thread, id string) (comment.Comment, error) {
	f := threadFilter(t)
	f["_id"] = id
	d, err := docstore.FindOne[commentDoc](ctx, s.ds, Comments, f)
	if err != nil {
		return comment.Comment{}, err
	}
	return d.domain()
}

// Comments reads a page of a thread's comments and counts all that match.
func (s *Store) Comments(ctx context.Context, t comment.Thread, f comment.Filter, p comment.Page) ([]comment.Comment, int, error) {
	q := threadFilter(t)
	if f.Status != "" {
		q["status"] = string(f.Status)
	}
	if f.TargetPage != "" {
		q["page"] = f.TargetPage
	}
	if len(f.Authors) > 0 {
		q["postedBy"] = bson.M{"$in": f.Authors}
	}
	docs, count, err := docstore.Page[commentDoc](ctx, s.ds, Comments, q, keyset(p, f.Desc))
	if err != nil {
		return nil, 0, err
	}
	out := make([]comment.Comment, len(docs))
	for i, d := range docs {
		if out[i], err = d.domain(); err != nil {
			return nil, 0, err
		}
	}
	return out, count, nil
}

func keyset(p comment.Page, desc bool) docstore.Keyset {
	return docstore.Keyset{Field: "postedAt", Desc: desc, AfterValue: p.AfterPostedAt, AfterID: p.AfterID, Limit: p.Limit}
}

// UpdateComment applies change to the live comment id of thread t
// (docstore.Modify); a change without events writes nothing.
func (s *Store) UpdateComment(ctx context.Context, t comment.Thread, id string, change func(*comment.Comment) ([]kafkax.Event, error)) (comment.Comment, error) {
	d, err := docstore.Modify(ctx, s.ds, Comments, id, func(d *commentDoc) ([]kafkax.Event, error) {
		c, err := d.domain()
		if err != nil {
			return nil, err
		}
		if c.Thread != t {
			return nil, apierr.NotFound("%s not found", s.ds.Name(Comments))
		}
		events, err := change(&c)
		if err != nil || len(events) == 0 {
			return nil, err
		}
		*d = toCommentDoc(c)
		return events, nil
	})
	if err != nil {
		return comment.Comment{}, err
	}
	return d.domain()
}

// UpdateReply applies change to the live reply id of the live comment
// commentID of thread t (docstore.Modify); a change without events writes
// nothing.
func (s *Store) UpdateReply(ctx context.Context, t comment.Thread, commentID, id string, change func(*comment.Reply) ([]kafkax.Event, error)) (comment.Reply, error) {
	if _, err := s.Comment(ctx, t, commentID); err != nil {
		return comment.Reply{}, err
	}
	d, err := docstore.Modify(ctx, s.ds, Replies, id, func(d *replyDoc) ([]kafkax.Event, error) {
		r, err := d.domain()
		if err != nil {
			return nil, err
		}
		if r.Comment != commentID || r.Thread != t {
			return nil, apierr.NotFound("%s not found", s.ds.Name(Replies))
		}
		events, err := change(&r)
		if err != nil || len(events) == 0 {
			return nil, err
		}
		*d = toReplyDoc(r)
		return events, nil
	})
	if err != nil {
		return comment.Reply{}, err
	}
	return d.domain()
}

// RemoveComment tombstones a comment with its deletion event, then deletes
// its replies (the comment's event says they are gone). Were the second step
// to fail, the replies left are unreachable, since every read of a reply goes
// through its live comment, and DeleteSpace collects them.
func (s *Store) RemoveComment(ctx context.Context, c comment.Comment, ev kafkax.Event) error {
	if err := s.ds.Remove(ctx, Comments, c.ID, nil, ev); err != nil {
		return err
	}
	return s.ds.Delete(ctx, Replies, bson.M{"comment": c.ID})
}

// InsertReply stores a new reply with its event.
func (s *Store) InsertReply(ctx context.Context, r comment.Reply, ev kafkax.Event) error {
	return s.ds.Insert(ctx, Replies, toReplyDoc(r), ev)
}

// Reply reads a reply of a comment.
func (s *Store) Reply(ctx context.Context, commentID, id string) (comment.Reply, error) {
	d, err := docstore.FindOne[replyDoc](ctx, s.ds, Replies, bson.M{"_id": id, "comment": commentID})
	if err != nil {
		return comment.Reply{}, err
	}
	return d.domain()
}

// Replies reads a page of a comment's replies, oldest first.
func (s *Store) Replies(ctx context.Context, commentID string, p comment.Page) ([]comment.Reply, int, error) {
	docs, count, err := docstore.Page[replyDoc](ctx, s.ds, Replies, bson.M{"comment": commentID}, keyset(p, false))
	if err != nil {
		return nil, 0, err
	}
	out := make([]comment.Reply, len(docs))
	for i, d := range docs {
		if out[i], err = d.domain(); err != nil {
			return nil, 0, err
		}
	}
	return out, count, nil
}

// ReplyStats counts the live replies of each comment, per replier, from one
// query reading only the three fields it needs. (An aggregation would need
// $max, which FerretDB v1 does not implement.)
func (s *Store) ReplyStats(ctx context.Context, commentIDs []string) (map[string]comment.ReplyStats, error) {
	out := map[string]comment.ReplyStats{}
	if len(commentIDs) == 0 {
		return out, nil
	}
	type row struct {
		Comment  string    `bson:"comment"`
		PostedBy string    `bson:"postedBy"`
		PostedAt time.Time `bson:"postedAt"`
	}
	rows, err := docstore.Find[row](ctx, s.ds, Replies, bson.M{"comment": bson.M{"$in": commentIDs}},
		options.Find().SetProjection(bson.M{"comment": 1, "postedBy": 1, "postedAt": 1}))
	if err != nil {
		return nil, err
	}
	at := map[[2]string]int{} // (comment, user) → index in the comment's Repliers
	for _, r := range rows {
		st := out[r.Comment]
		st.Count++
		key := [2]string{r.Comment, r.PostedBy}
		i, ok := at[key]
		if !ok {
			i = len(st.Repliers)
			at[key] = i
			st.Repliers = append(st.Repliers, comment.Replier{User: r.PostedBy})
		}
		st.Repliers[i].Count++
		if t := r.PostedAt.UTC(); t.After(st.Repliers[i].LastAt) {
			st.Repliers[i].LastAt = t
		}
		out[r.Comment] = st
	}
	return out, nil
}

// DeleteSpace deletes every live comment and reply of a space at once,
// without events: the space's own deletion event says they are gone. Used
// when a deleted space is purged. Tombstoned documents are left to the relay,
// which deletes them once their events are published.
func (s *Store) DeleteSpace(ctx context.Context, spaceID string) error {
	if err := s.ds.Delete(ctx, Replies, bson.M{"space": spaceID}); err != nil {
		return fmt.Errorf("purge comment replies of space %s: %w", spaceID, err)
	}
	if err := s.ds.Delete(ctx, Comments, bson.M{"space": spaceID}); err != nil {
		return fmt.Errorf("purge comments of space %s: %w", spaceID, err)
	}
	return nil
}
