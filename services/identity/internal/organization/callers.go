package organization

import (
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/internalapi/identityapi"
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

// Callers caches what Enter reads for every request: the organization and
// the caller's role in it. A write of this instance that records an event
// (a member removed or given another role, an organization changed)
// drops the entries of the event's organization at once (Forget, called by
// the store after the write), another organization's stay; a read that
// began before the write never stores what it read (the organization's
// generation, read before it). callerTTL bounds how long another
// instance's change takes to show when its event does not come.
//
// It is built before the stores, whose writes call its Forget, and given
// to New.
type Callers struct {
	cache *sizedcache.Cache[string, entered]
	gens  generations.Counters // by organization
	now   func() time.Time
}

type entered struct {
	org  Organization
	role roles.Role
	gen  uint64
	at   time.Time
}

// NewCallers returns an empty cache of callers.
func NewCallers() *Callers { return newCallers(time.Now) }

func newCallers(now func() time.Time) *Callers {
	return &Callers{cache: sizedcache.New[string, entered](callerEntries, callerBytes), now: now}
}

func callerKey(org, user string) string { return org + "\x00" + user }

// gen is org's generation: read it before reading what add keeps.
func (c *Callers) gen(org string) uint64 { return c.gens.Of(org) }

// get returns the cached entry of a user in an organization, if fresh.
func (c *Callers) get(org, user string) (entered, bool) {
	e, ok := c.cache.Get(callerKey(org, user))
	if !ok || e.gen != c.gen(org) || c.now().Sub(e.at) >= callerTTL {
		return entered{}, false
	}
	return e, true
}

// add caches what a read begun in org's generation gen found.
func (c *Callers) add(org, user string, gen uint64, o Organization, role roles.Role) {
	if gen != c.gen(org) {
		return
	}
	// Set: an entry past its TTL is still there, and Add would keep it.
	c.cache.Set(callerKey(org, user), entered{org: o, role: role, gen: gen, at: c.now()}, 2048)
}

// forget drops the entries of org (every entry when org is "").
func (c *Callers) forget(org string) {
	if org == "" {
		c.gens.BumpAll()
		return
	}
	c.gens.Bump(org)
}

// Forget drops the cached callers that events may have changed: call it
// with the events of every write (the stores' written) and of another
// instance's (their broadcast). An event drops its organization's callers
// alone. user.created and token.* name no organization and change no
// organization or membership: they drop nothing. Any other event without
// an organization (a type this instance does not know) drops every caller.
func (c *Callers) Forget(events ...envelope.Event) {
	for _, ev := range events {
		switch {
		case ev.Organization != "":
			c.forget(ev.Organization)
		case ev.Type == identityapi.UserCreated, ev.Type == identityapi.TokenCreated, ev.Type == identityapi.TokenRevoked:
		default:
			c.forget("")
		}
	}
}
