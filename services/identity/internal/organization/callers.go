package organization

import (
	"sync/atomic"
	"time"

	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/sizedcache"
)

// Bounds of the cache of callers (Enter): how many organization
// memberships, how many bytes, and how long one is used at most.
const (
	callerEntries = 10_000
	callerBytes   = 8 << 20
	callerTTL     = time.Second
)

// callers caches what Enter reads for every request: the organization and
// the caller's role in it. Any write of this instance that records an
// event (a member removed or given another role, an organization changed)
// drops every entry at once (Forget, called by the store after the
// write); a read that began before the write never stores what it read
// (generations). callerTTL bounds how long another instance's change
// takes to show.
type callers struct {
	cache *sizedcache.Cache[string, entered]
	gen   atomic.Uint64
	now   func() time.Time
}

type entered struct {
	org  Organization
	role roles.Role
	gen  uint64
	at   time.Time
}

func newCallers(now func() time.Time) *callers {
	return &callers{cache: sizedcache.New[string, entered](callerEntries, callerBytes), now: now}
}

func callerKey(org, user string) string { return org + "\x00" + user }

// get returns the cached entry of a user in an organization, if fresh.
func (c *callers) get(org, user string) (entered, bool) {
	e, ok := c.cache.Get(callerKey(org, user))
	if !ok || e.gen != c.gen.Load() || c.now().Sub(e.at) >= callerTTL {
		return entered{}, false
	}
	return e, true
}

// add caches what a read begun in generation gen found.
func (c *callers) add(org, user string, gen uint64, o Organization, role roles.Role) {
	if gen != c.gen.Load() {
		return
	}
	// Set: an entry past its TTL is still there, and Add would keep it.
	c.cache.Set(callerKey(org, user), entered{org: o, role: role, gen: gen, at: c.now()}, 2048)
}

// forget drops every entry.
func (c *callers) forget() {
	c.gen.Add(1)
	c.cache.RemoveIf(func(string, entered) bool { return true })
}

// Forget drops the cached callers: call it after every write (the store's
// OnWrite).
func (s *Service) Forget() { s.callers.forget() }
