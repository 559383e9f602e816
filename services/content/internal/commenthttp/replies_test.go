package commenthttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func (e *env) reply(user, commentID, markdown string) comment.ReplyView {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"body": map[string]string{"markdown": markdown}})
	return decode[comment.ReplyView](e.t, e.ok("postCommentReplyInSpace", user, "POST", base+"/"+commentID+"/replies", string(body)))
}

type replier struct {
	User      string
	Count     int
	UpdatedAt time.Time
}

func repliers(v comment.View) []replier {
	var out []replier
	for _, r := range v.Repliers {
		out = append(out, replier{r.User.ID, r.Count, r.UpdatedAt})
	}
	slices.SortFunc(out, func(a, b replier) int { return strings.Compare(a.User, b.User) })
	return out
}

func TestReplies(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "question")
	replies := base + "/" + c.ID + "/replies"

	r1 := e.reply(kim, c.ID, "answer 1")
	if r1.Object != "comment-reply" || r1.PostedBy.ID != kim || r1.Body.Markdown != "answer 1" || r1.EditedAt != nil {
		t.Errorf("reply = %+v", r1)
	}
	if r1.URLs.Location != public+replies+"/"+r1.ID {
		t.Errorf("reply location = %s", r1.URLs.Location)
	}
	if want := (access.CommentPermissions{View: true, Edit: true, Reply: true, Delete: true}); r1.Permissions != want {
		t.Errorf("author's reply permissions = %+v", r1.Permissions)
	}
	r2 := e.reply(eve, c.ID, "answer 2")
	r3 := e.reply(kim, c.ID, "answer 3")

	got := e.get(rex, c.ID)
	if got.Replies != 3 {
		t.Errorf("replies = %d, want 3", got.Replies)
	}
	want := []replier{{eve, 1, r2.PostedAt}, {kim, 2, r3.PostedAt}}
	if diff := cmp.Diff(repliers(got), want); diff != "" {
		t.Errorf("repliers (-got +want):\n%s", diff)
	}
	if l := decode[list[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base, "")); l.Items[0].Replies != 3 || len(l.Items[0].Repliers) != 2 {
		t.Errorf("listed comment: replies %d, repliers %d", l.Items[0].Replies, len(l.Items[0].Repliers))
	}

	// Oldest first, paged with keyset cursors.
	var ids []string
	next := ""
	for pages := 0; ; pages++ {
		q := replies + "?limit=2&format=markdown"
		if next != "" {
			q += "&page=" + next
		}
		l := decode[list[comment.ReplyView]](t, e.ok("listCommentRepliesInSpace", rex, "GET", q, ""))
		if l.Count != 3 {
			t.Errorf("count %d, want 3", l.Count)
		}
		for _, r := range l.Items {
			ids = append(ids, r.ID)
		}
		if l.Next == nil || pages > 5 {
			break
		}
		next = l.Next.Page
	}
	if diff := cmp.Diff(ids, sortedIDs(r1, r2, r3)); diff != "" {
		t.Errorf("reply ids (-got +want):\n%s", diff)
	}

	g := decode[comment.ReplyView](t, e.ok("getCommentReplyInSpace", rex, "GET", replies+"/"+r2.ID+"?format=document", ""))
	if g.ID != r2.ID || g.Permissions.Edit || g.Permissions.Reply {
		t.Errorf("reply as a reader = %+v", g)
	}

	edited := decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", kim, "PUT", replies+"/"+r1.ID, `{"body":{"markdown":"answer 1, better"}}`))
	if edited.Body.Markdown != "answer 1, better" || edited.EditedAt == nil {
		t.Errorf("edited reply = %+v", edited)
	}
	e.ok("updateCommentReplyInSpace", cole, "PUT", replies+"/"+r1.ID, `{"addedReactions":["👍"]}`)
	reacted := decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", eve, "PUT", replies+"/"+r1.ID, `{"addedReactions":["👍"]}`))
	if len(reacted.Reactions) != 1 || reacted.Reactions[0].Count != 2 || len(reacted.Reactions[0].Users) != 2 {
		t.Errorf("reply reactions = %+v", reacted.Reactions)
	}
	unreacted := decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", cole, "PUT", replies+"/"+r1.ID, `{"removedReactions":["👍"]}`))
	if len(unreacted.Reactions) != 1 || unreacted.Reactions[0].Count != 1 || unreacted.Reactions[0].Users[0].User.ID != eve {
		t.Errorf("reply reactions after removal = %+v", unreacted.Reactions)
	}
	if diff := cmp.Diff(eventTypes(e.events(commentmongo.Replies, r1.ID)),
		[]string{comment.EventReplyCreated, comment.EventReplyUpdated, comment.EventReplyUpdated, comment.EventReplyUpdated, comment.EventReplyUpdated}); diff != "" {
		t.Errorf("reply events (-got +want):\n%s", diff)
	}
	if ev := e.events(commentmongo.Replies, r1.ID)[0]; ev.Subject != r1.ID || ev.Organization != org || !strings.Contains(string(ev.Data), `"comment-reply"`) {
		t.Errorf("reply event = %+v", ev)
	}

	e.run([]row{
		{name: "read member replies", user: rex, method: "POST", path: replies, body: `{"body":{"markdown":"me too"}}`, want: 403},
		{name: "read member reacts to a reply", user: rex, method: "PUT", path: replies + "/" + r1.ID, body: `{"addedReactions":["👍"]}`, want: 403},
		{name: "non-author edits a reply", user: cole, method: "PUT", path: replies + "/" + r1.ID, body: `{"body":{"markdown":"mine now"}}`, want: 403},
		{name: "reply without body", user: kim, method: "POST", path: replies, body: `{}`, want: 400, field: "body"},
		{name: "reply without request body", user: kim, method: "POST", path: replies, want: 400, field: "body"},
		{name: "reply blank markdown", user: kim, method: "POST", path: replies, body: `{"body":{"markdown":"  "}}`, want: 400, field: "body.markdown"},
		{name: "reply markdown too long", user: kim, method: "POST", path: replies, body: `{"body":{"markdown":"` + strings.Repeat("x", comment.MaxMarkdown+1) + `"}}`, want: 400, field: "body.markdown"},
		{name: "reply bad format", user: kim, method: "POST", path: replies + "?format=pdf", body: `{"body":{"markdown":"x"}}`, want: 400, field: "format"},
		{name: "reply update blank markdown", user: kim, method: "PUT", path: replies + "/" + r1.ID, body: `{"body":{"markdown":""}}`, want: 400, field: "body.markdown"},
		{name: "reply update long emoji", user: kim, method: "PUT", path: replies + "/" + r1.ID, body: `{"addedReactions":["` + strings.Repeat("x", comment.MaxEmoji+1) + `"]}`, want: 400, field: "addedReactions[0]"},
		{name: "reply list bad limit", user: kim, method: "GET", path: replies + "?limit=x", want: 400, field: "limit"},
		{name: "reply list bad cursor", user: kim, method: "GET", path: replies + "?page=%21", want: 400, field: "page"},
		{name: "reply to unknown comment", user: kim, method: "POST", path: base + "/nope/replies", body: `{"body":{"markdown":"x"}}`, want: 404},
		{name: "replies of unknown comment", user: kim, method: "GET", path: base + "/nope/replies", want: 404},
		{name: "unknown reply", user: kim, method: "GET", path: replies + "/nope", want: 404, field: "reply"},
		{name: "reply under another comment", user: kim, method: "GET", path: base + "/" + e.post(cole, "other").ID + "/replies/" + r1.ID, want: 404},
		{name: "outsider reads a reply", user: oz, method: "GET", path: replies + "/" + r1.ID, want: 404},
	})

	// Deleting the comment deletes its replies.
	e.ok("deleteCommentInSpace", cole, "DELETE", base+"/"+c.ID, "")
	e.run([]row{
		{name: "reply of a deleted comment", user: kim, method: "GET", path: replies + "/" + r1.ID, want: 404},
		{name: "replies of a deleted comment", user: kim, method: "GET", path: replies, want: 404},
	})
	if n, err := e.db.Collection(commentmongo.Replies).CountDocuments(context.Background(), bson.M{"comment": c.ID}); err != nil || n != 0 {
		t.Errorf("%d replies left after deleting their comment (err %v)", n, err)
	}
}

func sortedIDs(rs ...comment.ReplyView) []string {
	slices.SortFunc(rs, func(a, b comment.ReplyView) int {
		if c := a.PostedAt.Compare(b.PostedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	var out []string
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

// Concurrent replies and reactions are all counted.
func TestConcurrentRepliesAndReactions(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "busy thread")
	const n = 8
	var wg sync.WaitGroup
	for i := range n {
		user := fmt.Sprintf("user%d", i)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if status, b := e.as(user, "POST", base+"/"+c.ID+"/replies", `{"body":{"markdown":"+1"}}`); status != 200 {
				t.Errorf("reply as %s: %d %s", user, status, b)
			}
		}()
		go func() {
			defer wg.Done()
			if status, b := e.as(user, "PUT", base+"/"+c.ID, `{"addedReactions":["👀"]}`); status != 200 {
				t.Errorf("react as %s: %d %s", user, status, b)
			}
		}()
	}
	wg.Wait()
	got := e.get(rex, c.ID)
	if got.Replies != n || len(got.Repliers) != n {
		t.Errorf("replies %d, repliers %d, want %d", got.Replies, len(got.Repliers), n)
	}
	if len(got.Reactions) != 1 || got.Reactions[0].Count != n || len(got.Reactions[0].Users) != n {
		t.Errorf("reactions = %+v, want one emoji with %d users", got.Reactions, n)
	}
}
