package organization

import (
	"testing"
	"time"

	"github.com/docspub/platform/libs/roles"
)

// TestCallersKeptAgainAfterTTL: an entry past its TTL is not used, and
// what is read then is kept again (an expired entry left in the cache
// must not block it, or every request after the first TTL reads the
// database again).
func TestCallersKeptAgainAfterTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newCallers(func() time.Time { return now })
	c.add("o1", "u1", c.gen.Load(), Organization{ID: "o1"}, roles.Admin)
	if e, ok := c.get("o1", "u1"); !ok || e.role != roles.Admin {
		t.Fatalf("fresh entry: %v %v", e, ok)
	}
	now = now.Add(callerTTL)
	if _, ok := c.get("o1", "u1"); ok {
		t.Fatal("an entry past its TTL was used")
	}
	c.add("o1", "u1", c.gen.Load(), Organization{ID: "o1"}, roles.Read)
	if e, ok := c.get("o1", "u1"); !ok || e.role != roles.Read {
		t.Fatalf("read again after the TTL: %v %v", e, ok)
	}
	gen := c.gen.Load()
	c.forget()
	c.add("o1", "u1", gen, Organization{ID: "o1"}, roles.Admin)
	if _, ok := c.get("o1", "u1"); ok {
		t.Error("a read begun before a write was kept")
	}
}
