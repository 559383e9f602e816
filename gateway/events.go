package gateway

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
)

// IdentityTopic is where identity publishes the events that drop cached
// token resolutions.
const IdentityTopic = identityapi.Topic

// ConsumerGroup is the gateway's consumer group of IdentityTopic. Every
// replica of a deployment joins it: they share the Redis cache, so one of
// them dropping an entry drops it for all.
const ConsumerGroup = "gateway"

// PurgeTopics are the topics whose events purge every replica's page cache
// (kafkax.Broadcast: each replica reads every event): content's and
// sites' changes, including those that never pass through a gateway (Git
// sync, another replica's writes).
var PurgeTopics = []string{contentapi.Topic, sitesapi.Topic}

// purgeOnEvent drops the cached answers of the event's organization and
// of its subject (a space): every published page is tagged with its
// organization, so a change of a site, a space or its content in an
// organization is never served stale from a replica's cache after the
// event reached it.
func (g *Gateway) purgeOnEvent(_ context.Context, ev kafkax.Event) error {
	if ev.Organization == "" {
		return nil
	}
	tags := []string{readerapi.OrgTag(ev.Organization), readerapi.SpaceTag(ev.Subject)}
	g.pages.Purge(tags...)
	g.repurge.add(tags)
	return nil
}

// repurge purges tags a second time once the sites replicas' own caches
// of what changed have expired (readerapi.SiteTTL): an answer refilled in
// between from a replica that had not seen the change yet is not kept
// past it. Tags are gathered and purged together once a second; past
// maxRepurge distinct tags, the whole cache is.
type repurge struct {
	mu   sync.Mutex
	tags map[string]bool
	all  bool
}

const maxRepurge = 10_000

func (r *repurge) add(tags []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.tags == nil {
		r.tags = map[string]bool{}
	}
	for _, t := range tags {
		if len(r.tags) >= maxRepurge {
			r.all = true
			return
		}
		r.tags[t] = true
	}
}

// run purges what was gathered every readerapi.SiteTTL until ctx ends.
func (r *repurge) run(ctx context.Context, pages *pagecache.Cache) {
	t := time.NewTicker(readerapi.SiteTTL)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		r.mu.Lock()
		tags, all := r.tags, r.all
		r.tags, r.all = nil, false
		r.mu.Unlock()
		if all {
			pages.PurgeAll()
			continue
		}
		pages.Purge(slices.Collect(maps.Keys(tags))...)
	}
}

// errBadEvent marks an event whose data cannot be used: retrying cannot help.
var errBadEvent = errors.New("bad identity event")

// onIdentityEvent is the consumer's handler: a Redis failure is retried, an
// unusable event refused for good (kafkax.Permanent: logged and counted as a
// dead letter), so that it does not hold up the events after it; an event
// identity does not declare, or of a newer version than the gateway reads,
// is ignored (envelope.ErrUnknown: logged and counted by the consumer).
func (g *Gateway) onIdentityEvent(ctx context.Context, ev kafkax.Event) error {
	err := g.HandleIdentityEvent(ctx, ev)
	if errors.Is(err, errBadEvent) {
		return kafkax.Permanent(err)
	}
	return err
}

// HandleIdentityEvent keeps the token cache true to identity's events (topic
// identity.events): token.revoked drops the revoked token, and
// member.created, member.updated and member.deleted drop every cached token
// of the member's user, whose roles changed. identity's other types are
// ignored; a type identity does not declare, or a newer version than the
// gateway reads, is an error wrapping envelope.ErrUnknown.
//
// The hash of a token.revoked event must be TokenHash of the raw token.
func (g *Gateway) HandleIdentityEvent(ctx context.Context, ev kafkax.Event) error {
	if err := identityapi.Events.Check(ev); err != nil {
		return err
	}
	switch ev.Type {
	case identityapi.TokenRevoked:
		t, err := identityapi.TokenSchema.Decode(ev)
		if err != nil {
			return bad(err)
		}
		switch {
		case t.Hash != "":
			return g.Forget(ctx, t.Hash)
		case t.User != "":
			return g.ForgetUser(ctx, t.User)
		}
		return fmt.Errorf("%w: %s data has neither hash nor user", errBadEvent, ev.Type)
	case identityapi.MemberCreated, identityapi.MemberUpdated, identityapi.MemberDeleted:
		m, err := identityapi.MemberSchema.Decode(ev)
		if err != nil {
			return bad(err)
		}
		if m.User.ID == "" {
			return fmt.Errorf("%w: %s data has no user.id", errBadEvent, ev.Type)
		}
		return g.ForgetUser(ctx, m.User.ID)
	}
	return nil
}

// bad is a decoding error: an unknown version as it is (ignored), else errBadEvent.
func bad(err error) error {
	if errors.Is(err, envelope.ErrUnknown) {
		return err
	}
	return fmt.Errorf("%w: %v", errBadEvent, err)
}
