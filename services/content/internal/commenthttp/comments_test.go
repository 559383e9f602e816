package commenthttp_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/docspub/platform/services/content/internal/commentmongo"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/google/go-cmp/cmp"
)

func TestCommentLifecycle(t *testing.T) {
	e := newEnv(t)
	b := e.ok("postCommentInSpace", cole, "POST", base, `{"body":{"markdown":"Typo in **step 2**"},"node":"n1","page":"pg1"}`)
	c := apitest.Decode[comment.View](t, b)
	if c.ID == "" || c.Object != "comment" || c.Status != comment.StatusOpen || c.Replies != 0 || c.EditedAt != nil {
		t.Errorf("posted comment = %+v", c)
	}
	wantTarget := comment.Target{Node: &comment.Ref{ID: "n1"}, Page: &comment.Ref{ID: "pg1"}, Space: space, Revision: rev}
	if diff := cmp.Diff(c.Target, wantTarget); diff != "" {
		t.Errorf("target (-got +want):\n%s", diff)
	}
	if c.PostedBy.ID != cole || c.PostedBy.DisplayName != "Cole" || c.PostedBy.URLs.Location != public+"/v1/users/cole" {
		t.Errorf("postedBy = %+v", c.PostedBy)
	}
	if c.URLs.Location != public+base+"/"+c.ID {
		t.Errorf("location = %s", c.URLs.Location)
	}
	if want := (access.CommentPermissions{View: true, Edit: true, Reply: true, Delete: true}); c.Permissions != want {
		t.Errorf("author's permissions = %+v, want %+v", c.Permissions, want)
	}

	// Permissions are the caller's.
	cases := []struct {
		user string
		want access.CommentPermissions
	}{
		{rex, access.CommentPermissions{View: true}},
		{kim, access.CommentPermissions{View: true, Reply: true}},
		{ada, access.CommentPermissions{View: true, Reply: true, Delete: true}},
	}
	for _, tc := range cases {
		t.Run("permissions of "+tc.user, func(t *testing.T) {
			got := apitest.Decode[comment.View](t, e.in(t).ok("getCommentInSpace", tc.user, "GET", base+"/"+c.ID+"?format=markdown", ""))
			if got.Permissions != tc.want {
				t.Errorf("permissions = %+v, want %+v", got.Permissions, tc.want)
			}
		})
	}

	l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base+"?format=document", ""))
	if l.Count != 1 || len(l.Items) != 1 || l.Items[0].ID != c.ID || l.Next != nil {
		t.Errorf("list = %+v", l)
	}

	edited := e.update(cole, c.ID, `{"body":{"markdown":"Typo in step 3"}}`)
	if edited.Body.Markdown != "Typo in step 3" || edited.EditedAt == nil || edited.EditedAt.Before(c.PostedAt) {
		t.Errorf("edited = %+v", edited)
	}
	// The same body again changes nothing and records no event.
	again := e.update(cole, c.ID, `{"body":{"markdown":"Typo in step 3"}}`)
	if !again.EditedAt.Equal(*edited.EditedAt) {
		t.Errorf("editedAt moved on an unchanged body: %v, was %v", again.EditedAt, edited.EditedAt)
	}
	e.ok("updateCommentInSpace", cole, "PUT", base+"/"+c.ID, `{}`)

	// An admin deletes another's comment.
	e.ok("deleteCommentInSpace", ada, "DELETE", base+"/"+c.ID, "")
	e.api.Run(e.t, as, []row{
		{Name: "deleted comment is gone", User: cole, Method: "GET", Path: base + "/" + c.ID, Want: 404, Field: "comment"},
		{Name: "deleted comment cannot change", User: cole, Method: "PUT", Path: base + "/" + c.ID, Body: `{"resolved":true}`, Want: 404},
		{Name: "deleted comment cannot be deleted again", User: cole, Method: "DELETE", Path: base + "/" + c.ID, Want: 404},
	})
	if l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base, "")); l.Count != 0 || len(l.Items) != 0 {
		t.Errorf("list after delete = %+v", l)
	}

	// Every change recorded one event, on the comment, with its ids and counts.
	evs := e.events(commentmongo.Comments, c.ID)
	if diff := cmp.Diff(eventTypes(evs), []string{contentapi.CommentCreated, contentapi.CommentUpdated, contentapi.CommentDeleted}); diff != "" {
		t.Errorf("events (-got +want):\n%s", diff)
	}
	for _, ev := range evs {
		var data comment.EventData
		if err := json.Unmarshal(ev.Data, &data); err != nil || data.ID != c.ID || data.Space != space || data.PostedBy != cole ||
			ev.Subject != c.ID || ev.Organization != org {
			t.Errorf("event %s: subject %s, organization %s, data %s", ev.Type, ev.Subject, ev.Organization, ev.Data)
		}
	}
	if data := apitest.Decode[comment.EventData](t, evs[1].Data); data.EditedAt == nil {
		t.Errorf("comment.updated carries no editedAt: %+v", data)
	}
}

func TestCommentAuthorRules(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "mine")
	path := base + "/" + c.ID
	e.api.Run(e.t, as, []row{
		{Name: "read member posts", User: rex, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"}}`, Want: 403},
		{Name: "read member resolves", User: rex, Method: "PUT", Path: path, Body: `{"resolved":true}`, Want: 403},
		{Name: "read member reacts", User: rex, Method: "PUT", Path: path, Body: `{"addedReactions":["👍"]}`, Want: 403},
		{Name: "non-author edits the body", User: eve, Method: "PUT", Path: path, Body: `{"body":{"markdown":"theirs"}}`, Want: 403},
		{Name: "admin edits another's body", User: ada, Method: "PUT", Path: path, Body: `{"body":{"markdown":"theirs"}}`, Want: 403},
		{Name: "non-author deletes", User: eve, Method: "DELETE", Path: path, Want: 403},
		{Name: "outsider lists", User: oz, Method: "GET", Path: base, Want: 404},
		{Name: "outsider posts", User: oz, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"}}`, Want: 404},
		{Name: "outsider reads", User: oz, Method: "GET", Path: path, Want: 404},
		{Name: "other space", User: cole, Method: "GET", Path: "/v1/spaces/sp2/comments/" + c.ID, Want: 404},
		{Name: "comment of another thread", User: cole, Method: "GET", Path: "/v1/spaces/" + space + "/change-requests/cr1/comments/" + c.ID, Want: 404},
		{Name: "unknown comment", User: cole, Method: "GET", Path: base + "/nope", Want: 404, Field: "comment"},
		{Name: "update unknown", User: cole, Method: "PUT", Path: base + "/nope", Body: `{"resolved":true}`, Want: 404},
		{Name: "delete unknown", User: ada, Method: "DELETE", Path: base + "/nope", Want: 404},
	})
	if got := e.get(cole, c.ID); got.Body.Markdown != "mine" || got.Status != comment.StatusOpen || len(got.Reactions) != 0 {
		t.Errorf("refused requests changed the comment: %+v", got)
	}
	// The author deletes their own comment.
	e.ok("deleteCommentInSpace", cole, "DELETE", path, "")
}

func TestCommentLimits(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "limits")
	path := base + "/" + c.ID
	long := strings.Repeat("é", comment.MaxMarkdown+1)
	tooMany := `["` + strings.Repeat(`a","`, comment.MaxReactions) + `b"]`
	ids129 := strings.Repeat("x", 129)
	var authors []string
	for i := range comment.MaxAuthors + 1 {
		authors = append(authors, fmt.Sprint("u", i))
	}
	e.api.Run(e.t, as, []row{
		{Name: "no request body", User: cole, Method: "POST", Path: base, Want: 400, Field: "body"},
		{Name: "no body field", User: cole, Method: "POST", Path: base, Body: `{}`, Want: 400, Field: "body"},
		{Name: "null body", User: cole, Method: "POST", Path: base, Body: `{"body":null}`, Want: 400, Field: "body"},
		{Name: "empty body document", User: cole, Method: "POST", Path: base, Body: `{"body":{}}`, Want: 400, Field: "body.markdown"},
		{Name: "blank markdown", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":" \n\t"}}`, Want: 400, Field: "body.markdown"},
		{Name: "markdown not a string", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":7}}`, Want: 400, Field: "body.markdown"},
		{Name: "body not an object", User: cole, Method: "POST", Path: base, Body: `{"body":"hi"}`, Want: 400, Field: "body"},
		{Name: "JSON document body", User: cole, Method: "POST", Path: base, Body: `{"body":{"document":{"object":"document","nodes":[]}}}`, Want: 400, Field: "body"},
		{Name: "markdown too long", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"` + long + `"}}`, Want: 400, Field: "body.markdown"},
		{Name: "empty node", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"node":""}`, Want: 400, Field: "node"},
		{Name: "long node", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"node":"` + ids129 + `"}`, Want: 400, Field: "node"},
		{Name: "node not a string", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"node":1}`, Want: 400, Field: "node"},
		{Name: "empty page", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"page":" "}`, Want: 400, Field: "page"},
		{Name: "long page", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"page":"` + ids129 + `"}`, Want: 400, Field: "page"},
		{Name: "malformed JSON", User: cole, Method: "POST", Path: base, Body: `{"body":`, Want: 400},

		{Name: "update without request body", User: cole, Method: "PUT", Path: path, Want: 400, Field: "body"},
		{Name: "update blank markdown", User: cole, Method: "PUT", Path: path, Body: `{"body":{"markdown":""}}`, Want: 400, Field: "body.markdown"},
		{Name: "update markdown too long", User: cole, Method: "PUT", Path: path, Body: `{"body":{"markdown":"` + long + `"}}`, Want: 400, Field: "body.markdown"},
		{Name: "resolved not a boolean", User: cole, Method: "PUT", Path: path, Body: `{"resolved":"yes"}`, Want: 400, Field: "resolved"},
		{Name: "too many added reactions", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":` + tooMany + `}`, Want: 400, Field: "addedReactions"},
		{Name: "too many removed reactions", User: cole, Method: "PUT", Path: path, Body: `{"removedReactions":` + tooMany + `}`, Want: 400, Field: "removedReactions"},
		{Name: "empty emoji", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":["👍",""]}`, Want: 400, Field: "addedReactions[1]"},
		{Name: "long emoji", User: cole, Method: "PUT", Path: path, Body: `{"removedReactions":["` + strings.Repeat("x", comment.MaxEmoji+1) + `"]}`, Want: 400, Field: "removedReactions[0]"},
		{Name: "reactions not an array", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":"👍"}`, Want: 400, Field: "addedReactions"},
		{Name: "emoji not a string", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":[1]}`, Want: 400, Field: "addedReactions"},
		{Name: "emoji added and removed", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":["👍"],"removedReactions":["👍"]}`, Want: 400, Field: "removedReactions"},
		// A request with one bad field changes nothing, even its good fields.
		{Name: "good resolve with bad body", User: cole, Method: "PUT", Path: path, Body: `{"resolved":true,"body":{"markdown":""}}`, Want: 400, Field: "body.markdown"},

		{Name: "bad status", User: rex, Method: "GET", Path: base + "?status=closed", Want: 400, Field: "status"},
		{Name: "bad order", User: rex, Method: "GET", Path: base + "?order=up", Want: 400, Field: "order"},
		{Name: "bad format", User: rex, Method: "GET", Path: base + "?format=html", Want: 400, Field: "format"},
		{Name: "bad format on get", User: rex, Method: "GET", Path: path + "?format=html", Want: 400, Field: "format"},
		{Name: "limit above 1000", User: rex, Method: "GET", Path: base + "?limit=1001", Want: 400, Field: "limit"},
		{Name: "negative limit", User: rex, Method: "GET", Path: base + "?limit=-1", Want: 400, Field: "limit"},
		{Name: "bad page cursor", User: rex, Method: "GET", Path: base + "?page=zzz", Want: 400, Field: "page"},
		{Name: "cursor of other keys", User: rex, Method: "GET", Path: base + "?page=WyJhIl0", Want: 400, Field: "page"},
		{Name: "too many authors", User: rex, Method: "GET", Path: base + "?authors=" + strings.Join(authors, ","), Want: 400, Field: "authors"},
		{Name: "long targetPage", User: rex, Method: "GET", Path: base + "?targetPage=" + ids129, Want: 400, Field: "targetPage"},
	})
	got := e.get(cole, c.ID)
	if got.Status != comment.StatusOpen || got.Body.Markdown != "limits" || len(got.Reactions) != 0 {
		t.Errorf("refused requests changed the comment: %+v", got)
	}
	if l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base, "")); l.Count != 1 {
		t.Errorf("refused posts stored comments: count %d", l.Count)
	}
	// The limits themselves are allowed.
	atMax := e.post(cole, strings.Repeat("é", comment.MaxMarkdown))
	if n := len([]rune(atMax.Body.Markdown)); n != comment.MaxMarkdown {
		t.Errorf("markdown of %d characters stored as %d", comment.MaxMarkdown, n)
	}
	var mine []string
	for i := range limits.ReactionsPerUser {
		mine = append(mine, fmt.Sprint(i))
	}
	mine[0] = strings.Repeat("y", comment.MaxEmoji)
	body, _ := json.Marshal(map[string]any{"addedReactions": mine})
	if got := e.update(kim, c.ID, string(body)); len(got.Reactions) != limits.ReactionsPerUser {
		t.Errorf("%d reactions after adding %d", len(got.Reactions), limits.ReactionsPerUser)
	}
	// Past a user's share, or the kinds of emoji of a comment, adding is refused.
	var kinds []string
	for i := range limits.ReactionKinds - limits.ReactionsPerUser {
		kinds = append(kinds, fmt.Sprint("k", i))
	}
	kindsBody, _ := json.Marshal(map[string]any{"addedReactions": kinds[:limits.ReactionsPerUser]})
	e.update(eve, c.ID, string(kindsBody))
	kindsBody, _ = json.Marshal(map[string]any{"addedReactions": kinds[limits.ReactionsPerUser:]})
	e.update(ada, c.ID, string(kindsBody))
	e.api.Run(e.t, as, []row{
		{Name: "a user's reaction past their share", User: kim, Method: "PUT", Path: path, Body: `{"addedReactions":["🎉"]}`, Want: 400, Field: "addedReactions"},
		{Name: "a kind of emoji past the comment's", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":["🦄"]}`, Want: 400, Field: "addedReactions"},
		{Name: "an emoji with a control character", User: cole, Method: "PUT", Path: path, Body: `{"addedReactions":["\u001b[31m"]}`, Want: 400, Field: "addedReactions[0]"},
		{Name: "a page that is not in the space", User: cole, Method: "POST", Path: base, Body: `{"body":{"markdown":"hi"},"page":"nope"}`, Want: 400, Field: "page"},
		{Name: "a page that is not in the change request", User: cole, Method: "POST", Path: "/v1/spaces/" + space + "/change-requests/cr1/comments",
			Body: `{"body":{"markdown":"hi"},"page":"nope"}`, Want: 400, Field: "page"},
	})
	// An existing emoji still takes another user's reaction; removing always works.
	e.update(cole, c.ID, `{"addedReactions":["1"]}`)
	e.update(kim, c.ID, `{"removedReactions":["1","2"]}`)
}

func TestReactions(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "react to me")
	type reaction struct {
		Emoji string
		Count int
		Users []string
	}
	reactions := func(v comment.View) []reaction {
		var out []reaction
		for _, r := range v.Reactions {
			var users []string
			for _, u := range r.Users {
				if u.ReactedAt.IsZero() || u.User.DisplayName == "" {
					t.Errorf("reaction user %+v", u)
				}
				users = append(users, u.User.ID)
			}
			out = append(out, reaction{r.Emoji, r.Count, users})
		}
		return out
	}
	steps := []struct {
		name string
		user string
		body string
		want []reaction
	}{
		{"first reaction", cole, `{"addedReactions":["👍"]}`, []reaction{{"👍", 1, []string{cole}}}},
		{"same reaction again counts once", cole, `{"addedReactions":["👍","👍"]}`, []reaction{{"👍", 1, []string{cole}}}},
		{"second user, same emoji", kim, `{"addedReactions":["👍","🎉"]}`, []reaction{{"👍", 2, []string{cole, kim}}, {"🎉", 1, []string{kim}}}},
		{"one user removes theirs", cole, `{"removedReactions":["👍"]}`, []reaction{{"👍", 1, []string{kim}}, {"🎉", 1, []string{kim}}}},
		{"removing what one has not changes nothing", cole, `{"removedReactions":["🎉"]}`, []reaction{{"👍", 1, []string{kim}}, {"🎉", 1, []string{kim}}}},
		{"last one removed", kim, `{"removedReactions":["🎉"]}`, []reaction{{"👍", 1, []string{kim}}}},
	}
	for _, st := range steps {
		before := len(e.events(commentmongo.Comments, c.ID))
		got := reactions(e.update(st.user, c.ID, st.body))
		if diff := cmp.Diff(got, st.want); diff != "" {
			t.Errorf("%s: reactions (-got +want):\n%s", st.name, diff)
		}
		if diff := cmp.Diff(reactions(e.get(rex, c.ID)), st.want); diff != "" {
			t.Errorf("%s: stored reactions (-got +want):\n%s", st.name, diff)
		}
		// Only a real change records an event.
		after := len(e.events(commentmongo.Comments, c.ID))
		changed := !strings.Contains(st.name, "once") && !strings.Contains(st.name, "nothing")
		if (after > before) != changed {
			t.Errorf("%s: events %d → %d", st.name, before, after)
		}
	}
}

func TestResolve(t *testing.T) {
	e := newEnv(t)
	c := e.post(cole, "please fix")
	other := e.post(kim, "fine as is")

	r := e.update(kim, c.ID, `{"resolved":true}`)
	if r.Status != comment.StatusResolved || r.ResolvedAt == nil || r.ResolvedBy == nil || r.ResolvedBy.ID != kim {
		t.Fatalf("resolved = %+v", r)
	}
	// Resolving again keeps who resolved it and when.
	again := e.update(cole, c.ID, `{"resolved":true}`)
	if again.ResolvedBy.ID != kim || !again.ResolvedAt.Equal(*r.ResolvedAt) {
		t.Errorf("resolved again = %+v by %+v", again.ResolvedAt, again.ResolvedBy)
	}

	ids := func(query string) []string {
		t.Helper()
		l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", base+query, ""))
		var out []string
		for _, v := range l.Items {
			out = append(out, v.ID)
		}
		slices.Sort(out)
		if l.Count != len(out) {
			t.Errorf("%s: count %d for %d items", query, l.Count, len(out))
		}
		return out
	}
	both := []string{c.ID, other.ID}
	slices.Sort(both)
	cases := []struct {
		query string
		want  []string
	}{
		{"?status=resolved", []string{c.ID}},
		{"?status=open", []string{other.ID}},
		{"?status=all", both},
		{"", both},
	}
	for _, tc := range cases {
		if diff := cmp.Diff(ids(tc.query), tc.want); diff != "" {
			t.Errorf("%q (-got +want):\n%s", tc.query, diff)
		}
	}

	b := e.ok("updateCommentInSpace", cole, "PUT", base+"/"+c.ID, `{"resolved":false}`)
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["status"] != "open" || raw["resolvedAt"] != nil || raw["resolvedBy"] != nil {
		t.Errorf("unresolved = status %v, resolvedAt %v, resolvedBy %v", raw["status"], raw["resolvedAt"], raw["resolvedBy"])
	}
	if diff := cmp.Diff(ids("?status=resolved"), []string(nil)); diff != "" {
		t.Errorf("resolved after reopening (-got +want):\n%s", diff)
	}
}

func TestPaging(t *testing.T) {
	e := newEnv(t)
	var all []comment.View
	for i := range 7 {
		all = append(all, e.post([]string{cole, kim}[i%2], fmt.Sprint("comment ", i)))
	}
	asc := slices.Clone(all)
	slices.SortFunc(asc, func(a, b comment.View) int {
		if c := a.PostedAt.Compare(b.PostedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	var ascIDs []string
	for _, v := range asc {
		ascIDs = append(ascIDs, v.ID)
	}
	descIDs := slices.Clone(ascIDs)
	slices.Reverse(descIDs)

	collect := func(e *env, query string, limit int) ([]string, int) {
		t := e.t
		t.Helper()
		var ids []string
		next, pages := "", 0
		for {
			q := fmt.Sprintf("%s?limit=%d%s", base, limit, query)
			if next != "" {
				q += "&page=" + next
			}
			l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInSpace", rex, "GET", q, ""))
			if l.Count != 7 {
				t.Errorf("%s: count %d, want 7", q, l.Count)
			}
			for _, v := range l.Items {
				ids = append(ids, v.ID)
			}
			pages++
			if l.Next == nil {
				return ids, pages
			}
			if len(l.Items) != limit {
				t.Errorf("%s: %d items on a page with a next", q, len(l.Items))
			}
			next = l.Next.Page
			if pages > 10 {
				t.Fatal("paging does not end")
			}
		}
	}
	cases := []struct {
		name  string
		query string
		limit int
		want  []string
		pages int
	}{
		{"default order is newest first", "", 3, descIDs, 3},
		{"descending", "&order=desc", 2, descIDs, 4},
		{"ascending", "&order=asc", 3, ascIDs, 3},
		{"ascending, exact pages", "&order=asc", 7, ascIDs, 1},
		{"one per page", "&order=asc", 1, ascIDs, 7},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ids, pages := collect(e.in(t), tc.query, tc.limit)
			if diff := cmp.Diff(ids, tc.want); diff != "" {
				t.Errorf("ids (-got +want):\n%s", diff)
			}
			if pages != tc.pages {
				t.Errorf("%d pages, want %d", pages, tc.pages)
			}
		})
	}
}

func TestFilters(t *testing.T) {
	e := newEnv(t)
	byCole := e.post(cole, "one")
	byKim := apitest.Decode[comment.View](t, e.ok("postCommentInSpace", kim, "POST", base, `{"body":{"markdown":"two"},"page":"pg1"}`))
	byEve := apitest.Decode[comment.View](t, e.ok("postCommentInSpace", eve, "POST", base, `{"body":{"markdown":"three"},"page":"pg1"}`))
	e.update(ada, byEve.ID, `{"resolved":true}`)
	// A change request's comments are another thread.
	cr := apitest.Decode[comment.View](t, e.ok("postCommentInChangeRequest", cole, "POST", "/v1/spaces/"+space+"/change-requests/cr1/comments", `{"body":{"markdown":"on the change"}}`))
	if cr.Target.ChangeRequest != "cr1" || cr.Target.Revision != crRev || cr.URLs.Location != public+"/v1/spaces/"+space+"/change-requests/cr1/comments/"+cr.ID {
		t.Errorf("change request comment = %+v", cr)
	}

	cases := []struct {
		name  string
		query string
		want  []string
	}{
		{"all", "", []string{byCole.ID, byKim.ID, byEve.ID}},
		{"one author", "?authors=kim", []string{byKim.ID}},
		{"repeated authors", "?authors=kim&authors=cole", []string{byCole.ID, byKim.ID}},
		{"comma-separated authors", "?authors=kim,eve", []string{byKim.ID, byEve.ID}},
		{"both forms", "?authors=kim,eve&authors=cole", []string{byCole.ID, byKim.ID, byEve.ID}},
		{"unknown author", "?authors=nobody", nil},
		{"target page", "?targetPage=pg1", []string{byKim.ID, byEve.ID}},
		{"open on a page", "?targetPage=pg1&status=open", []string{byKim.ID}},
		{"resolved by author", "?status=resolved&authors=eve", []string{byEve.ID}},
		{"open by a resolved comment's author", "?status=open&authors=eve", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := apitest.Decode[paging.List[comment.View]](t, e.in(t).ok("listCommentsInSpace", rex, "GET", base+tc.query+sep(tc.query)+"order=asc", ""))
			var got []string
			for _, v := range l.Items {
				got = append(got, v.ID)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" || l.Count != len(tc.want) {
				t.Errorf("ids (-got +want):\n%s count %d", diff, l.Count)
			}
		})
	}
	l := apitest.Decode[paging.List[comment.View]](t, e.ok("listCommentsInChangeRequest", rex, "GET", "/v1/spaces/"+space+"/change-requests/cr1/comments", ""))
	if l.Count != 1 || l.Items[0].ID != cr.ID {
		t.Errorf("change request comments = %+v", l)
	}
}

func sep(query string) string {
	if query == "" {
		return "?"
	}
	return "&"
}

// A refused update status is what the gate says, before any body is read.
func TestGateFirst(t *testing.T) {
	e := newEnv(t)
	e.api.Run(e.t, as, []row{
		{Name: "outsider with a bad body", User: oz, Method: "POST", Path: base, Body: `{}`, Want: http.StatusNotFound},
		{Name: "reader with a bad body", User: rex, Method: "POST", Path: base, Body: `{}`, Want: http.StatusForbidden},
	})
}
