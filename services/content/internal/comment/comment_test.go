package comment

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	t1 = t0.Add(time.Minute)
)

func TestReact(t *testing.T) {
	t.Parallel()
	a := Reaction{Emoji: "👍", User: "ann", ReactedAt: t0}
	b := Reaction{Emoji: "👍", User: "bob", ReactedAt: t0}
	cases := []struct {
		name           string
		rs             []Reaction
		user           string
		added, removed []string
		want           []Reaction
		changed        bool
	}{
		{"first", nil, "ann", []string{"👍"}, nil, []Reaction{{"👍", "ann", t1}}, true},
		{"again", []Reaction{a}, "ann", []string{"👍"}, nil, []Reaction{a}, false},
		{"twice in one request", nil, "ann", []string{"👍", "👍"}, nil, []Reaction{{"👍", "ann", t1}}, true},
		{"another user", []Reaction{a}, "bob", []string{"👍"}, nil, []Reaction{a, {"👍", "bob", t1}}, true},
		{"remove own", []Reaction{a, b}, "ann", nil, []string{"👍"}, []Reaction{b}, true},
		{"remove absent", []Reaction{b}, "ann", nil, []string{"👍"}, []Reaction{b}, false},
		{"add and remove others", []Reaction{a}, "ann", []string{"🎉"}, []string{"👍"}, []Reaction{{"🎉", "ann", t1}}, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]Reaction(nil), tc.rs...)
			got, changed, err := react(tc.rs, tc.user, tc.added, tc.removed, t1)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("reactions (-got +want):\n%s", diff)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
			if diff := cmp.Diff(tc.rs, before); diff != "" {
				t.Errorf("input modified (-got +want):\n%s", diff)
			}
		})
	}
}

func TestReactLimits(t *testing.T) {
	t.Parallel()
	emoji := func(n int, prefix string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s%d", prefix, i)
		}
		return out
	}
	fill := func(users, each int) []Reaction {
		var rs []Reaction
		for u := range users {
			for _, e := range emoji(each, "e") {
				rs = append(rs, Reaction{Emoji: e, User: fmt.Sprint("u", u), ReactedAt: t0})
			}
		}
		return rs
	}
	cases := []struct {
		name           string
		rs             []Reaction
		added, removed []string
		wantErr        bool
	}{
		{"up to the kinds of a comment", fill(3, limits.ReactionKinds-1), []string{"new"}, nil, false},
		{"one kind too many", fill(3, limits.ReactionKinds), []string{"new"}, nil, true},
		{"up to a user's reactions", nil, emoji(limits.ReactionsPerUser, "e"), nil, false},
		{"one reaction of a user too many", fill(1, 0), emoji(limits.ReactionsPerUser+1, "e"), nil, true},
		{"one reaction of the comment too many", fill(limits.Reactions/10, 10), []string{"e0"}, nil, true},
		{"removing is allowed over the limits", fill(limits.Reactions/10+1, 10), nil, []string{"e0"}, false},
		{"an existing reaction again changes nothing", append(fill(limits.Reactions/10+1, 10), Reaction{Emoji: "e0", User: "me"}), []string{"e0"}, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := react(tc.rs, "me", tc.added, tc.removed, t1)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want an error %v", err, tc.wantErr)
			}
			if err != nil && field(t, err) != "addedReactions" {
				t.Errorf("err %v does not name addedReactions", err)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func md(s string) *Document { return &Document{Markdown: &s} }

// field returns the field a 400 names, "" for no error.
func field(t *testing.T, err error) string {
	t.Helper()
	if err == nil {
		return ""
	}
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != 400 {
		t.Fatalf("err %v, want a 400", err)
	}
	return e.Field
}

func TestPostInputValidate(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   PostInput
		want string // the field named, "" for valid
	}{
		{"markdown", PostInput{Body: md("hi")}, ""},
		{"with targets", PostInput{Body: md("hi"), Node: ptr("n"), Page: ptr("p")}, ""},
		{"at the limit", PostInput{Body: md(strings.Repeat("ü", MaxMarkdown))}, ""},
		{"no body", PostInput{}, "body"},
		{"empty document", PostInput{Body: &Document{}}, "body.markdown"},
		{"JSON document", PostInput{Body: &Document{Document: []byte(`{}`)}}, "body"},
		{"blank", PostInput{Body: md(" \n")}, "body.markdown"},
		{"too long", PostInput{Body: md(strings.Repeat("ü", MaxMarkdown+1))}, "body.markdown"},
		{"empty node", PostInput{Body: md("hi"), Node: ptr("")}, "node"},
		{"long page", PostInput{Body: md("hi"), Page: ptr(strings.Repeat("p", MaxRefID+1))}, "page"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.in.validate()
			if got := field(t, err); got != tc.want {
				t.Errorf("field %q, want %q (err %v)", got, tc.want, err)
			}
		})
	}
}

func TestUpdateValidate(t *testing.T) {
	t.Parallel()
	many := make([]string, MaxReactions+1)
	for i := range many {
		many[i] = "x"
	}
	cases := []struct {
		name string
		in   ReplyUpdate
		want string
	}{
		{"nothing", ReplyUpdate{}, ""},
		{"body", ReplyUpdate{Body: md("new")}, ""},
		{"reactions", ReplyUpdate{AddedReactions: []string{"👍"}, RemovedReactions: []string{"🎉"}}, ""},
		{"blank body", ReplyUpdate{Body: md("")}, "body.markdown"},
		{"too many added", ReplyUpdate{AddedReactions: many}, "addedReactions"},
		{"too many removed", ReplyUpdate{RemovedReactions: many}, "removedReactions"},
		{"empty emoji", ReplyUpdate{AddedReactions: []string{"👍", " "}}, "addedReactions[1]"},
		{"long emoji", ReplyUpdate{RemovedReactions: []string{strings.Repeat("x", MaxEmoji+1)}}, "removedReactions[0]"},
		{"added and removed", ReplyUpdate{AddedReactions: []string{"👍"}, RemovedReactions: []string{"👍"}}, "removedReactions"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := field(t, tc.in.validate()); got != tc.want {
				t.Errorf("field %q, want %q", got, tc.want)
			}
		})
	}
}

func TestUpdateApply(t *testing.T) {
	t.Parallel()
	open := Comment{ID: "c", PostedBy: "ann", Markdown: "text", Status: StatusOpen}
	resolved := open
	resolved.Status, resolved.ResolvedAt, resolved.ResolvedBy = StatusResolved, t0, "bob"
	cases := []struct {
		name    string
		c       Comment
		in      Update
		user    string
		want    Comment
		changed bool
		err     error
	}{
		{"edit own body", open, Update{ReplyUpdate: ReplyUpdate{Body: md("new")}}, "ann",
			Comment{ID: "c", PostedBy: "ann", Markdown: "new", EditedAt: t1, Status: StatusOpen}, true, nil},
		{"same body", open, Update{ReplyUpdate: ReplyUpdate{Body: md("text")}}, "ann", open, false, nil},
		{"another's body", open, Update{ReplyUpdate: ReplyUpdate{Body: md("text")}}, "bob", open, false, ErrNotAuthor},
		{"resolve", open, Update{Resolved: ptr(true)}, "bob",
			Comment{ID: "c", PostedBy: "ann", Markdown: "text", Status: StatusResolved, ResolvedAt: t1, ResolvedBy: "bob"}, true, nil},
		{"resolve again", resolved, Update{Resolved: ptr(true)}, "cid", resolved, false, nil},
		{"reopen", resolved, Update{Resolved: ptr(false)}, "cid", open, true, nil},
		{"reopen open", open, Update{Resolved: ptr(false)}, "cid", open, false, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, changed, err := tc.in.apply(tc.c, tc.user, t1)
			if !errors.Is(err, tc.err) {
				t.Fatalf("err %v, want %v", err, tc.err)
			}
			if diff := cmp.Diff(got, tc.want, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("comment (-got +want):\n%s", diff)
			}
			if changed != tc.changed {
				t.Errorf("changed = %v, want %v", changed, tc.changed)
			}
		})
	}
}

func TestEnter(t *testing.T) {
	t.Parallel()
	g := access.Grant{Organization: "o", Space: "s", Level: roles.Comment, User: "ann"}
	cases := []struct {
		name   string
		g      access.Grant
		t      Thread
		a      access.Action
		status int // 0: allowed; -1: an internal error
	}{
		{"comment", g, Thread{Space: "s"}, access.Comment, 0},
		{"change request thread", g, Thread{Space: "s", ChangeRequest: "cr"}, access.View, 0},
		{"level too low", g, Thread{Space: "s"}, access.Admin, 403},
		{"no user", access.Grant{Space: "s", Level: roles.Admin}, Thread{Space: "s"}, access.Comment, 401},
		{"thread of another space", g, Thread{Space: "x"}, access.View, -1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := enter(tc.g, tc.t, tc.a)
			var e *apierr.Error
			switch {
			case tc.status == 0 && err != nil, tc.status != 0 && err == nil:
				t.Fatalf("err %v, want status %d", err, tc.status)
			case tc.status > 0 && (!errors.As(err, &e) || e.Status != tc.status):
				t.Fatalf("err %v, want status %d", err, tc.status)
			case tc.status < 0 && errors.As(err, &e):
				t.Fatalf("err %v, want an internal error", err)
			}
		})
	}
}

func TestThreadPath(t *testing.T) {
	t.Parallel()
	cases := []struct {
		t    Thread
		want string
	}{
		{Thread{Space: "s"}, "/spaces/s/comments"},
		{Thread{Space: "s", ChangeRequest: "c"}, "/spaces/s/change-requests/c/comments"},
	}
	for _, tc := range cases {
		if got := tc.t.path(); got != tc.want {
			t.Errorf("%+v: path %q, want %q", tc.t, got, tc.want)
		}
	}
}
