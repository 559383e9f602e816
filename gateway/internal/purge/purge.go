// Package purge keeps the gateway's page cache (pagecache) true to the
// platform's changes: the answers a write through the gateway changed are
// purged before the writer has its answer (Answered), and those of the
// organization and space of every content and sites event are purged on
// every replica (OnEvent), then once more after sites' own caches expired
// (Run).
package purge

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/docspub/platform/gateway/internal/pagecache"
	"github.com/docspub/platform/gateway/internal/proxy"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
)

// Topics are the topics whose events purge every replica's page cache
// (kafkax.Broadcast: each replica reads every event): content's and
// sites' changes, including those that never pass through a gateway (Git
// sync, another replica's writes).
var Topics = []string{contentapi.Topic, sitesapi.Topic}

// Purger purges a page cache.
type Purger struct {
	pages *pagecache.Cache
	again repurge
}

// New returns a purger of pages (nil: the cache is off, nothing is purged).
func New(pages *pagecache.Cache) *Purger {
	return &Purger{pages: pages}
}

// Answered drops the cached answers a successful write changed (its
// organization's or space's, from in's path) before the writer has its
// answer resp (a proxy.Answered of the API's requests).
func (p *Purger) Answered(in *http.Request, resp *http.Response, _ proxy.Internal) error {
	switch m := resp.Request.Method; {
	case m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions, resp.StatusCode >= 400:
		return nil
	}
	p.pages.Purge(pagecache.WriteTags(in.URL.Path)...)
	return nil
}

// OnEvent drops the cached answers of the event's organization and of its
// subject (a space): every published page is tagged with its
// organization, so a change of a site, a space or its content in an
// organization is never served stale from a replica's cache after the
// event reached it.
func (p *Purger) OnEvent(_ context.Context, ev kafkax.Event) error {
	if ev.Organization == "" {
		return nil
	}
	tags := []string{readerapi.OrgTag(ev.Organization), readerapi.SpaceTag(ev.Subject)}
	p.pages.Purge(tags...)
	p.again.add(tags)
	return nil
}

// Run purges the tags of events a second time, every readerapi.SiteTTL,
// until ctx is done (repurge).
func (p *Purger) Run(ctx context.Context) {
	p.again.run(ctx, p.pages)
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
