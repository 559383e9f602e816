package commenthttp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func (e *env) reply(user, commentID, markdown string) comment.ReplyView {
	e.t.Helper()
	body, _ := json.Marshal(map[string]any{"body": map[string]string{"markdown": markdown}})
	return apitest.Decode[comment.ReplyView](e.t, e.ok("postCommentReplyInSpace", user, "POST", base+"/"+commentID+"/replies", string(body)))
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
	if l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base, "")); l.Items[0].Replies != 3 || len(l.Items[0].Repliers) != 2 {
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
		l := apitest.Decode[paging.List[comment.ReplyView]](t, e.ok("listCommentRepliesInSpace", rex, "GET", q, ""))
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

	g := apitest.Decode[comment.ReplyView](t, e.ok("getCommentReplyInSpace", rex, "GET", replies+"/"+r2.ID+"?format=document", ""))
	if g.ID != r2.ID || g.Permissions.Edit || g.Permissions.Reply {
		t.Errorf("reply as a reader = %+v", g)
	}

	edited := apitest.Decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", kim, "PUT", replies+"/"+r1.ID, `{"body":{"markdown":"answer 1, better"}}`))
	if edited.Body.Markdown != "answer 1, better" || edited.EditedAt == nil {
		t.Errorf("edited reply = %+v", edited)
	}
	e.ok("updateCommentReplyInSpace", cole, "PUT", replies+"/"+r1.ID, `{"addedReactions":["👍"]}`)
	reacted := apitest.Decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", eve, "PUT", replies+"/"+r1.ID, `{"addedReactions":["👍"]}`))
	if len(reacted.Reactions) != 1 || reacted.Reactions[0].Count != 2 || len(reacted.Reactions[0].Users) != 2 {
		t.Errorf("reply reactions = %+v", reacted.Reactions)
	}
	unreacted := apitest.Decode[comment.ReplyView](t, e.ok("updateCommentReplyInSpace", cole, "PUT", replies+"/"+r1.ID, `{"removedReactions":["👍"]}`))
	if len(unreacted.Reactions) != 1 || unreacted.Reactions[0].Count != 1 || unreacted.Reactions[0].Users[0].User.ID != eve {
		t.Errorf("reply reactions after removal = %+v", unreacted.Reactions)
	}
	if diff := cmp.Diff(eventTypes(e.events(commentmongo.Replies, r1.ID)),
		[]string{contentapi.CommentReplyCreated, contentapi.CommentReplyUpdated, contentapi.CommentReplyUpdated, contentapi.CommentReplyUpdated, contentapi.CommentReplyUpdated}); diff != "" {
		t.Errorf("reply events (-got +want):\n%s", diff)
	}
	if ev := e.events(commentmongo.Replies, r1.ID)[0]; ev.Subject != r1.ID || ev.Organization != org || !strings.Contains(string(ev.Data), `"comment-reply"`) {
		t.Errorf("reply event = %+v", ev)
	}

	e.api.Run(e.t, as, []row{
		{Name: "read member replies", User: rex, Method: "POST", Path: replies, Body: `{"body":{"markdown":"me too"}}`, Want: 403},
		{Name: "read member reacts to a reply", User: rex, Method: "PUT", Path: replies + "/" + r1.ID, Body: `{"addedReactions":["👍"]}`, Want: 403},
		{Name: "non-author edits a reply", User: cole, Method: "PUT", Path: replies + "/" + r1.ID, Body: `{"body":{"markdown":"mine now"}}`, Want: 403},
		{Name: "reply without body", User: kim, Method: "POST", Path: replies, Body: `{}`, Want: 400, Field: "body"},
		{Name: "reply without request body", User: kim, Method: "POST", Path: replies, Want: 400, Field: "body"},
		{Name: "reply blank markdown", User: kim, Method: "POST", Path: replies, Body: `{"body":{"markdown":"  "}}`, Want: 400, Field: "body.markdown"},
		{Name: "reply markdown too long", User: kim, Method: "POST", Path: replies, Body: `{"body":{"markdown":"` + strings.Repeat("x", comment.MaxMarkdown+1) + `"}}`, Want: 400, Field: "body.markdown"},
		{Name: "reply bad format", User: kim, Method: "POST", Path: replies + "?format=pdf", Body: `{"body":{"markdown":"x"}}`, Want: 400, Field: "format"},
		{Name: "reply update blank markdown", User: kim, Method: "PUT", Path: replies + "/" + r1.ID, Body: `{"body":{"markdown":""}}`, Want: 400, Field: "body.markdown"},
		{Name: "reply update long emoji", User: kim, Method: "PUT", Path: replies + "/" + r1.ID, Body: `{"addedReactions":["` + strings.Repeat("x", comment.MaxEmoji+1) + `"]}`, Want: 400, Field: "addedReactions[0]"},
		{Name: "reply list bad limit", User: kim, Method: "GET", Path: replies + "?limit=x", Want: 400, Field: "limit"},
		{Name: "reply list bad cursor", User: kim, Method: "GET", Path: replies + "?page=%21", Want: 400, Field: "page"},
		{Name: "reply to unknown comment", User: kim, Method: "POST", Path: base + "/nope/replies", Body: `{"body":{"markdown":"x"}}`, Want: 404},
		{Name: "replies of unknown comment", User: kim, Method: "GET", Path: base + "/nope/replies", Want: 404},
		{Name: "unknown reply", User: kim, Method: "GET", Path: replies + "/nope", Want: 404, Field: "reply"},
		{Name: "reply under another comment", User: kim, Method: "GET", Path: base + "/" + e.post(cole, "other").ID + "/replies/" + r1.ID, Want: 404},
		{Name: "outsider reads a reply", User: oz, Method: "GET", Path: replies + "/" + r1.ID, Want: 404},
	})

	// Deleting the comment deletes its replies.
	e.ok("deleteCommentInSpace", cole, "DELETE", base+"/"+c.ID, "")
	e.api.Run(e.t, as, []row{
		{Name: "reply of a deleted comment", User: kim, Method: "GET", Path: replies + "/" + r1.ID, Want: 404},
		{Name: "replies of a deleted comment", User: kim, Method: "GET", Path: replies, Want: 404},
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

// Concurrent replies and reactions are all counted. A reaction that lost
// its race to others twice is a 409 with nothing written, which its client
// sends again (the store retries once, not until it wins); none is lost.
func TestConcurrentRepliesAndReactions(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "busy thread")
	const n = 8
	var wg sync.WaitGroup
	var conflicts atomic.Int64
	deadline := time.Now().Add(time.Minute)
	for i := range n {
		user := fmt.Sprintf("user%d", i)
		wg.Add(2)
		go func() {
			defer wg.Done()
			if r := e.api.Do(as(user), "POST", base+"/"+c.ID+"/replies", `{"body":{"markdown":"+1"}}`); r.Status != 200 {
				t.Errorf("reply as %s: %d %s", user, r.Status, r.Body)
			}
		}()
		go func() {
			defer wg.Done()
			for {
				r := e.api.Do(as(user), "PUT", base+"/"+c.ID, `{"addedReactions":["👀"]}`)
				if r.Status == 409 && time.Now().Before(deadline) {
					conflicts.Add(1)
					continue
				}
				if r.Status != 200 {
					t.Errorf("react as %s: %d %s", user, r.Status, r.Body)
				}
				return
			}
		}()
	}
	wg.Wait()
	t.Logf("%d reactions answered 409 and were sent again", conflicts.Load())
	got := e.get(rex, c.ID)
	if got.Replies != n || len(got.Repliers) != n {
		t.Errorf("replies %d, repliers %d, want %d", got.Replies, len(got.Repliers), n)
	}
	if len(got.Reactions) != 1 || got.Reactions[0].Count != n || len(got.Reactions[0].Users) != n {
		t.Errorf("reactions = %+v, want one emoji with %d users", got.Reactions, n)
	}
}
