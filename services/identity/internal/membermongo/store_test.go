package membermongo_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/membermongo"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newStore(t *testing.T) *membermongo.Store {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, membermongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	return membermongo.NewStore(mongox.NewDB(db), nil)
}

func ev(typ, subject string) envelope.Event { return envelope.New(typ, "o1", subject, nil) }

func newMember(id, user, name string, minute int) member.Member {
	return member.Member{ID: id, Key: member.Key("o1", user), Organization: "o1", User: user, Role: roles.Read,
		JoinedAt: t0.Add(time.Duration(minute) * time.Minute), Name: name}
}

// TestMembershipWrites: an update sets what its change names; a second
// membership of a user is a conflict until the first is removed.
func TestMembershipWrites(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	m := newMember("m1", "u1", "ada", 0)
	if err := s.Insert(ctx, m, ev(identityapi.MemberCreated, "u1")); err != nil {
		t.Fatal(err)
	}
	if err := s.Insert(ctx, newMember("m2", "u1", "ada", 1), ev(identityapi.MemberCreated, "u1")); !errors.Is(err, apierr.ErrConflict) {
		t.Fatalf("second membership: %v, want a conflict", err)
	}
	seen, admin := t0.Add(time.Hour), roles.Admin
	for _, ch := range []member.Change{{Role: &admin}, {LastSeenAt: &seen}, {SSO: new(bool)}} {
		if err := s.Update(ctx, m.ID, ch, ev(identityapi.MemberUpdated, "u1")); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Member(ctx, "o1", "u1")
	if err != nil {
		t.Fatal(err)
	}
	m.Role, m.LastSeenAt = roles.Admin, &seen
	if diff := cmp.Diff(m, got); diff != "" {
		t.Errorf("member after the changes (-want +got):\n%s", diff)
	}
	if err := s.Remove(ctx, m.ID, ev(identityapi.MemberDeleted, "u1")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Member(ctx, "o1", "u1"); !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("removed member: %v, want not found", err)
	}
	if err := s.Insert(ctx, newMember("m2", "u1", "ada", 1), ev(identityapi.MemberCreated, "u1")); err != nil {
		t.Errorf("membership after the removal: %v", err)
	}
}

// TestMembersSortedBy: each sort key of the API orders by its stored field.
func TestMembersSortedBy(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	for _, m := range []member.Member{newMember("m1", "u1", "cy", 2), newMember("m2", "u2", "ada", 1), newMember("m3", "u3", "bo", 0)} {
		if err := s.Insert(ctx, m, ev(identityapi.MemberCreated, m.User)); err != nil {
			t.Fatal(err)
		}
	}
	seen := t0.Add(time.Hour)
	if err := s.Update(ctx, "m3", member.Change{LastSeenAt: &seen}, ev(identityapi.MemberUpdated, "u3")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sort string
		want []string
	}{
		{member.SortJoinedAt, []string{"u3", "u2", "u1"}},
		{member.SortName, []string{"u2", "u3", "u1"}},
		{member.SortLastSeenAt, []string{"u3"}},
	} {
		ms, _, err := s.Members(ctx, member.Query{Organization: "o1", Sort: tc.sort, Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range ms {
			got = append(got, m.User)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("sort %s (-want +got):\n%s", tc.sort, diff)
		}
	}
}
