package commentmongo_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var (
	space = comment.Thread{Space: "sp1"}
	cr    = comment.Thread{Space: "sp1", ChangeRequest: "cr1"}
	other = comment.Thread{Space: "sp2"}
	t0    = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
)

func newStore(t *testing.T) (*commentmongo.Store, *mongo.Database) {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, commentmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	return commentmongo.NewStore(mongox.NewDB(db), nil), db
}

func ev(typ, subject string) kafkax.Event { return kafkax.NewEvent(typ, "org1", subject, nil) }

// newComment is a comment of th posted by user at t0 plus minute minutes.
func newComment(th comment.Thread, id, user string, minute int) comment.Comment {
	return comment.Comment{
		ID: id, Thread: th, Revision: "rev1", PostedBy: user, PostedAt: t0.Add(time.Duration(minute) * time.Minute),
		Markdown: "text of " + id, Status: comment.StatusOpen,
	}
}

func insert(t *testing.T, s *commentmongo.Store, cs ...comment.Comment) {
	t.Helper()
	for _, c := range cs {
		if err := s.InsertComment(context.Background(), c, ev(contentapi.CommentCreated, c.ID)); err != nil {
			t.Fatalf("insert %s: %v", c.ID, err)
		}
	}
}

// outbox returns the event types pending on a stored document.
func outbox(t *testing.T, db *mongo.Database, coll, id string) []string {
	t.Helper()
	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := db.Collection(coll).FindOne(context.Background(), bson.M{"_id": id}).Decode(&doc); err != nil {
		t.Fatalf("read %s %s: %v", coll, id, err)
	}
	var types []string
	for _, e := range doc.Outbox {
		types = append(types, e.Type)
	}
	return types
}

func TestCommentRoundTrip(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	c := newComment(cr, "c1", "u1", 0)
	c.Node, c.Page = "node1", "page1"
	c.Reactions = []comment.Reaction{{Emoji: "👍", User: "u2", ReactedAt: t0}}
	insert(t, s, c)

	got, err := s.Comment(ctx, cr, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, c, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read back (-got +want):\n%s", diff)
	}
	if got := outbox(t, db, commentmongo.Comments, "c1"); !slices.Equal(got, []string{contentapi.CommentCreated}) {
		t.Errorf("outbox = %v", got)
	}
	// A comment is found only in its own thread.
	for _, th := range []comment.Thread{space, other} {
		if _, err := s.Comment(ctx, th, "c1"); !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("comment c1 in thread %+v: err %v, want not found", th, err)
		}
	}
}

// setTo is the change that makes a comment or reply v, recording an
// event of typ.
func setTo[T any](v T, typ, subject string) func(*T) ([]kafkax.Event, error) {
	return func(d *T) ([]kafkax.Event, error) {
		*d = v
		return []kafkax.Event{ev(typ, subject)}, nil
	}
}

func TestUpdateComment(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	c := newComment(space, "c1", "u1", 0)
	insert(t, s, c)

	resolved := c
	resolved.Status, resolved.ResolvedAt, resolved.ResolvedBy = comment.StatusResolved, t0.Add(time.Hour), "u2"
	resolved.Markdown, resolved.EditedAt = "edited", t0.Add(time.Hour)
	updated, err := s.UpdateComment(ctx, space, "c1", setTo(resolved, contentapi.CommentUpdated, "c1"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Comment(ctx, space, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, resolved, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("after resolve (-got +want):\n%s", diff)
	}
	if diff := cmp.Diff(updated, resolved, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("returned after resolve (-got +want):\n%s", diff)
	}

	// Another thread's comment is not found there; a change without
	// events writes nothing.
	if _, err := s.UpdateComment(ctx, other, "c1", setTo(c, contentapi.CommentUpdated, "c1")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update through another thread: err %v, want not found", err)
	}
	if _, err := s.UpdateComment(ctx, space, "c1", func(c *comment.Comment) ([]kafkax.Event, error) {
		c.Markdown = "no event"
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Comment(ctx, space, "c1"); got.Markdown != "edited" {
		t.Errorf("body %q after a change without events", got.Markdown)
	}

	// Reopening clears the resolution fields.
	reopened := resolved
	reopened.Status, reopened.ResolvedAt, reopened.ResolvedBy = comment.StatusOpen, time.Time{}, ""
	if _, err := s.UpdateComment(ctx, space, "c1", setTo(reopened, contentapi.CommentUpdated, "c1")); err != nil {
		t.Fatal(err)
	}
	var raw bson.M
	if err := db.Collection(commentmongo.Comments).FindOne(ctx, bson.M{"_id": "c1"}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"resolvedAt", "resolvedBy"} {
		if _, ok := raw[f]; ok {
			t.Errorf("field %s kept after reopening: %v", f, raw)
		}
	}
	if got := outbox(t, db, commentmongo.Comments, "c1"); !slices.Equal(got, []string{contentapi.CommentCreated, contentapi.CommentUpdated, contentapi.CommentUpdated}) {
		t.Errorf("outbox = %v", got)
	}

	if _, err := s.UpdateComment(ctx, space, "nope", setTo(c, contentapi.CommentUpdated, "nope")); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("update of a missing comment: err %v, want not found", err)
	}
}

// Concurrent reactions to one comment: each is stored with its event, or
// refused with apierr.ErrChanged after the store's retry; none is lost.
func TestUpdateCommentRace(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	insert(t, s, newComment(space, "c1", "u1", 0))
	const n = 8
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.UpdateComment(ctx, space, "c1", func(c *comment.Comment) ([]kafkax.Event, error) {
				c.Reactions = append(c.Reactions, comment.Reaction{Emoji: fmt.Sprint(i), User: "u1", ReactedAt: t0})
				return []kafkax.Event{ev(contentapi.CommentUpdated, "c1")}, nil
			})
		}()
	}
	wg.Wait()
	var want []string
	for i, err := range errs {
		switch {
		case err == nil:
			want = append(want, fmt.Sprint(i))
		case !errors.Is(err, apierr.ErrChanged):
			t.Errorf("err %v, want nil or ErrChanged", err)
		}
	}
	t.Logf("%d of %d reactions stored", len(want), n)
	got, err := s.Comment(ctx, space, "c1")
	if err != nil {
		t.Fatal(err)
	}
	var emoji []string
	for _, r := range got.Reactions {
		emoji = append(emoji, r.Emoji)
	}
	slices.Sort(emoji)
	if diff := cmp.Diff(emoji, want); diff != "" {
		t.Errorf("reactions stored (-got +want, those answered ok):\n%s", diff)
	}
	if got := outbox(t, db, commentmongo.Comments, "c1"); len(got) != 1+len(want) {
		t.Errorf("outbox %v, want the creation and %d updates", got, len(want))
	}
}

func TestCommentsPaging(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	// Seven comments, some posted in the same millisecond (ties broken by id).
	minutes := map[string]int{"a": 0, "b": 1, "c": 1, "d": 1, "e": 2, "f": 3, "g": 3}
	for id, m := range minutes {
		insert(t, s, newComment(space, id, "u1", m))
	}
	insert(t, s, newComment(cr, "x", "u1", 1), newComment(other, "y", "u1", 1))

	collect := func(desc bool, limit int) []string {
		t.Helper()
		var got []string
		p := comment.Page{Limit: limit}
		for range 20 {
			cs, count, err := s.Comments(ctx, space, comment.Filter{Desc: desc}, p)
			if err != nil {
				t.Fatal(err)
			}
			if count != 7 {
				t.Fatalf("count %d, want 7", count)
			}
			for _, c := range cs {
				got = append(got, c.ID)
			}
			if len(cs) < limit {
				return got
			}
			last := cs[len(cs)-1]
			p = comment.Page{AfterPostedAt: last.PostedAt, AfterID: last.ID, Limit: limit}
		}
		t.Fatal("paging does not end")
		return nil
	}
	asc := []string{"a", "b", "c", "d", "e", "f", "g"}
	desc := slices.Clone(asc)
	slices.Reverse(desc)
	cases := []struct {
		name  string
		desc  bool
		limit int
		want  []string
	}{
		{"ascending by 2", false, 2, asc},
		{"ascending by 3", false, 3, asc},
		{"descending by 2", true, 2, desc},
		{"descending by 1", true, 1, desc},
		{"one page", false, 100, asc},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(collect(tc.desc, tc.limit), tc.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
		})
	}
}

func TestCommentsFilter(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t)
	ctx := context.Background()
	a := newComment(space, "a", "u1", 0)
	b := newComment(space, "b", "u2", 1)
	b.Page = "p1"
	c := newComment(space, "c", "u3", 2)
	c.Status, c.ResolvedAt, c.ResolvedBy = comment.StatusResolved, t0, "u1"
	c.Page = "p1"
	insert(t, s, a, b, c, newComment(cr, "x", "u1", 0))

	cases := []struct {
		name string
		f    comment.Filter
		want []string
	}{
		{"all", comment.Filter{}, []string{"a", "b", "c"}},
		{"open", comment.Filter{Status: comment.StatusOpen}, []string{"a", "b"}},
		{"resolved", comment.Filter{Status: comment.StatusResolved}, []string{"c"}},
		{"page", comment.Filter{TargetPage: "p1"}, []string{"b", "c"}},
		{"authors", comment.Filter{Authors: []string{"u1", "u3"}}, []string{"a", "c"}},
		{"open on page", comment.Filter{Status: comment.StatusOpen, TargetPage: "p1"}, []string{"b"}},
		{"unknown author", comment.Filter{Authors: []string{"zz"}}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cs, count, err := s.Comments(ctx, space, tc.f, comment.Page{Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range cs {
				got = append(got, c.ID)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" || count != len(tc.want) {
				t.Errorf("ids (-got +want):\n%s count %d", diff, count)
			}
		})
	}
}

func TestRepliesAndStats(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	insert(t, s, newComment(space, "c1", "u1", 0), newComment(space, "c2", "u1", 1))
	reply := func(id, commentID, user string, minute int) comment.Reply {
		return comment.Reply{ID: id, Comment: commentID, Thread: space, PostedBy: user,
			PostedAt: t0.Add(time.Duration(minute) * time.Minute), Markdown: "re " + id}
	}
	for _, r := range []comment.Reply{
		reply("r1", "c1", "u2", 1), reply("r2", "c1", "u3", 2), reply("r3", "c1", "u2", 5), reply("r4", "c2", "u2", 3),
	} {
		if err := s.InsertReply(ctx, r, ev(contentapi.CommentReplyCreated, r.ID)); err != nil {
			t.Fatal(err)
		}
	}

	stats, err := s.ReplyStats(ctx, []string{"c1", "c2", "c3"})
	if err != nil {
		t.Fatal(err)
	}
	for id, st := range stats {
		slices.SortFunc(st.Repliers, func(a, b comment.Replier) int { return strings.Compare(a.User, b.User) })
		stats[id] = st
	}
	want := map[string]comment.ReplyStats{
		"c1": {Count: 3, Repliers: []comment.Replier{{User: "u2", Count: 2, LastAt: t0.Add(5 * time.Minute)}, {User: "u3", Count: 1, LastAt: t0.Add(2 * time.Minute)}}},
		"c2": {Count: 1, Repliers: []comment.Replier{{User: "u2", Count: 1, LastAt: t0.Add(3 * time.Minute)}}},
	}
	if diff := cmp.Diff(stats, want); diff != "" {
		t.Errorf("stats (-got +want):\n%s", diff)
	}

	rs, count, err := s.Replies(ctx, "c1", comment.Page{Limit: 2})
	if err != nil || count != 3 || len(rs) != 2 || rs[0].ID != "r1" || rs[1].ID != "r2" {
		t.Fatalf("first page: %v (count %d, err %v)", rs, count, err)
	}
	rs, _, err = s.Replies(ctx, "c1", comment.Page{AfterPostedAt: rs[1].PostedAt, AfterID: rs[1].ID, Limit: 2})
	if err != nil || len(rs) != 1 || rs[0].ID != "r3" {
		t.Fatalf("second page: %v (err %v)", rs, err)
	}
	if _, err := s.Reply(ctx, "c2", "r1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("reply r1 under c2: err %v, want not found", err)
	}

	// Removing a comment tombstones it with its event and deletes its replies.
	c1, err := s.Comment(ctx, space, "c1")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveComment(ctx, c1, ev(contentapi.CommentDeleted, "c1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Comment(ctx, space, "c1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("removed comment: err %v, want not found", err)
	}
	if got := outbox(t, db, commentmongo.Comments, "c1"); !slices.Equal(got, []string{contentapi.CommentCreated, contentapi.CommentDeleted}) {
		t.Errorf("outbox of removed comment = %v", got)
	}
	if n, err := db.Collection(commentmongo.Replies).CountDocuments(ctx, bson.M{"comment": "c1"}); err != nil || n != 0 {
		t.Errorf("%d replies of the removed comment left (err %v)", n, err)
	}
	if stats, err := s.ReplyStats(ctx, []string{"c1", "c2"}); err != nil || stats["c1"].Count != 0 || stats["c2"].Count != 1 {
		t.Errorf("stats after removal: %v (err %v)", stats, err)
	}
}

func TestUpdateReply(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	insert(t, s, newComment(space, "c1", "u1", 0))
	r := comment.Reply{ID: "r1", Comment: "c1", Thread: space, PostedBy: "u2", PostedAt: t0, Markdown: "re"}
	if err := s.InsertReply(ctx, r, ev(contentapi.CommentReplyCreated, "r1")); err != nil {
		t.Fatal(err)
	}
	edited := r
	edited.Markdown, edited.EditedAt = "re, edited", t0.Add(time.Minute)
	edited.Reactions = []comment.Reaction{{Emoji: "🎉", User: "u1", ReactedAt: t0.Add(time.Minute)}}
	if _, err := s.UpdateReply(ctx, space, "c1", "r1", setTo(edited, contentapi.CommentReplyUpdated, "r1")); err != nil {
		t.Fatal(err)
	}
	// Not found through another comment, nor through another thread.
	insert(t, s, newComment(space, "c2", "u1", 0))
	for _, at := range []struct {
		th      comment.Thread
		comment string
	}{{space, "c2"}, {other, "c1"}, {space, "nope"}} {
		if _, err := s.UpdateReply(ctx, at.th, at.comment, "r1", setTo(r, contentapi.CommentReplyUpdated, "r1")); !errors.Is(err, apierr.ErrNotFound) {
			t.Errorf("update of r1 through comment %s of %+v: err %v, want not found", at.comment, at.th, err)
		}
	}
	got, err := s.Reply(ctx, "c1", "r1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, edited); diff != "" {
		t.Errorf("reply (-got +want):\n%s", diff)
	}
	if got := outbox(t, db, commentmongo.Replies, "r1"); !slices.Equal(got, []string{contentapi.CommentReplyCreated, contentapi.CommentReplyUpdated}) {
		t.Errorf("outbox = %v", got)
	}
}

// The space service counts a space's open comments with this query on the
// stored fields; it must keep working.
func TestOpenCommentsCounterContract(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	resolved := newComment(space, "r", "u1", 1)
	resolved.Status, resolved.ResolvedAt, resolved.ResolvedBy = comment.StatusResolved, t0, "u1"
	gone := newComment(space, "gone", "u1", 2)
	insert(t, s, newComment(space, "a", "u1", 0), newComment(space, "b", "u1", 0), resolved, gone,
		newComment(cr, "x", "u1", 0), newComment(other, "y", "u1", 0))
	if err := s.RemoveComment(ctx, gone, ev(contentapi.CommentDeleted, "gone")); err != nil {
		t.Fatal(err)
	}

	cur, err := db.Collection("comments").Aggregate(ctx, mongo.Pipeline{
		{{Key: "$match", Value: bson.M{"space": "sp1", "changeRequest": "", "status": "open", kafkax.TombstoneField: bson.M{"$ne": true}}}},
		{{Key: "$count", Value: "n"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		N int `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0].N != 2 {
		t.Errorf("open comments of the space = %v, want 2", rows)
	}
}

func TestDeleteSpace(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	insert(t, s, newComment(space, "a", "u1", 0), newComment(cr, "b", "u1", 0), newComment(other, "c", "u1", 0))
	for _, r := range []comment.Reply{
		{ID: "ra", Comment: "a", Thread: space, PostedBy: "u1", PostedAt: t0, Markdown: "re"},
		{ID: "rb", Comment: "b", Thread: cr, PostedBy: "u1", PostedAt: t0, Markdown: "re"},
		{ID: "rc", Comment: "c", Thread: other, PostedBy: "u1", PostedAt: t0, Markdown: "re"},
	} {
		if err := s.InsertReply(ctx, r, ev(contentapi.CommentReplyCreated, r.ID)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSpace(ctx, "sp1"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		coll string
		want []string
	}{
		{commentmongo.Comments, []string{"c"}},
		{commentmongo.Replies, []string{"rc"}},
	}
	for _, tc := range cases {
		t.Run(tc.coll, func(t *testing.T) {
			if diff := cmp.Diff(mongotest.IDs(t, db.Collection(tc.coll)), tc.want); diff != "" {
				t.Errorf("left (-got +want):\n%s", diff)
			}
		})
	}
}

func TestCollections(t *testing.T) {
	t.Parallel()
	if got := commentmongo.Collections(); !slices.Equal(got, []string{"comments", "comment_replies"}) {
		t.Errorf("Collections() = %v", got)
	}
}

// Reactions are stored packed in one string (a reader scanning the
// collection decodes one value, not three fields per reaction); documents
// written with one subdocument per reaction still read, and their next
// update writes the packed form.
func TestReactionsPacked(t *testing.T) {
	t.Parallel()
	s, db := newStore(t)
	ctx := context.Background()
	c := newComment(space, "c1", "ann", 0)
	for i := range 3 {
		c.Reactions = append(c.Reactions, comment.Reaction{Emoji: fmt.Sprint("e", i), User: "u\t\"" + fmt.Sprint(i), ReactedAt: t0.Add(time.Duration(i) * time.Millisecond)})
	}
	insert(t, s, c)
	var raw bson.M
	if err := db.Collection(commentmongo.Comments).FindOne(ctx, bson.M{"_id": "c1"}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["reactionList"].(string); !ok || raw["reactions"] != nil {
		t.Fatalf("stored reactions: %v / %v, want one string", raw["reactionList"], raw["reactions"])
	}
	got, err := s.Comment(ctx, space, "c1")
	if err != nil || !cmp.Equal(got.Reactions, c.Reactions) {
		t.Fatalf("read back %v, %v; want %v", got.Reactions, err, c.Reactions)
	}

	// An older document, reactions as subdocuments.
	old := bson.M{"_id": "c2", "space": "sp1", "changeRequest": "", "revision": "rev1", "postedBy": "bob",
		"postedAt": t0, "body": bson.M{"markdown": "old"}, "status": "open", "version": 1,
		"reactions": bson.A{bson.M{"emoji": "👍", "user": "ann", "reactedAt": t0}}}
	if _, err := db.Collection(commentmongo.Comments).InsertOne(ctx, old); err != nil {
		t.Fatal(err)
	}
	got, err = s.Comment(ctx, space, "c2")
	want := []comment.Reaction{{Emoji: "👍", User: "ann", ReactedAt: t0}}
	if err != nil || !cmp.Equal(got.Reactions, want) {
		t.Fatalf("older document: %v, %v; want %v", got.Reactions, err, want)
	}
	got.Reactions = append(got.Reactions, comment.Reaction{Emoji: "🎉", User: "bob", ReactedAt: t0})
	if _, err := s.UpdateComment(ctx, space, "c2", setTo(got, contentapi.CommentUpdated, "c2")); err != nil {
		t.Fatal(err)
	}
	raw = nil
	if err := db.Collection(commentmongo.Comments).FindOne(ctx, bson.M{"_id": "c2"}).Decode(&raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["reactionList"].(string); !ok || raw["reactions"] != nil {
		t.Fatalf("updated older document: %v / %v, want one string", raw["reactionList"], raw["reactions"])
	}
	if again, err := s.Comment(ctx, space, "c2"); err != nil || len(again.Reactions) != 2 {
		t.Fatalf("after update: %v, %v", again.Reactions, err)
	}
}
