package organization

import (
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/roles"
)

// TestCallersKeptAgainAfterTTL: an entry past its TTL is not used, and
// what is read then is kept again (an expired entry left in the cache
// must not block it, or every request after the first TTL reads the
// database again).
func TestCallersKeptAgainAfterTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newCallers(func() time.Time { return now })
	c.add("o1", "u1", c.gen("o1"), Organization{ID: "o1"}, roles.Admin)
	if e, ok := c.get("o1", "u1"); !ok || e.role != roles.Admin {
		t.Fatalf("fresh entry: %v %v", e, ok)
	}
	now = now.Add(callerTTL)
	if _, ok := c.get("o1", "u1"); ok {
		t.Fatal("an entry past its TTL was used")
	}
	c.add("o1", "u1", c.gen("o1"), Organization{ID: "o1"}, roles.Read)
	if e, ok := c.get("o1", "u1"); !ok || e.role != roles.Read {
		t.Fatalf("read again after the TTL: %v %v", e, ok)
	}
	gen := c.gen("o1")
	c.forget("o1")
	c.add("o1", "u1", gen, Organization{ID: "o1"}, roles.Admin)
	if _, ok := c.get("o1", "u1"); ok {
		t.Error("a read begun before a write was kept")
	}
}

// TestForgetDropsTheEventsOrganization: an event drops the cached callers
// of its organization, another organization's stay; user.created and
// token.* drop none, an unknown event without an organization all.
func TestForgetDropsTheEventsOrganization(t *testing.T) {
	c := NewCallers()
	fill := func() {
		for _, org := range []string{"o1", "o2"} {
			c.add(org, "u1", c.gen(org), Organization{ID: org}, roles.Admin)
		}
	}
	kept := func() (o1, o2 bool) {
		_, o1 = c.get("o1", "u1")
		_, o2 = c.get("o2", "u1")
		return o1, o2
	}
	for _, tc := range []struct {
		name   string
		ev     envelope.Event
		o1, o2 bool
	}{
		{"another organization's member", identityapi.NewMemberUpdated("o2", identityapi.Member{User: identityapi.User{ID: "u1"}}), true, false},
		{"its organization", identityapi.NewOrganizationUpdated("o1", nil), false, true},
		{"a user created", identityapi.NewUserCreated(identityapi.User{ID: "u9"}), true, true},
		{"a token revoked", identityapi.NewTokenRevoked(identityapi.Token{ID: "t1", User: "u1"}), true, true},
		{"unknown, of no organization", envelope.New("thing.invented", "", "x", nil), false, false},
	} {
		fill()
		c.Forget(tc.ev)
		if o1, o2 := kept(); o1 != tc.o1 || o2 != tc.o2 {
			t.Errorf("%s: o1 kept %v, o2 kept %v; want %v, %v", tc.name, o1, o2, tc.o1, tc.o2)
		}
	}
}
