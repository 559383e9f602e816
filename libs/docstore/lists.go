package docstore

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/sizedcache"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TenantField is the field naming a document's tenant: the organization
// whose lists CacheLists keeps apart.
const TenantField = "organization"

// listCache keeps pages of one collection read by a tenant's filter, as
// read.
type listCache struct {
	pages *sizedcache.Cache[listKey, listPage]
	ttl   time.Duration
	// gens are the tenants' generations, bumped by each write of one of
	// their documents (see tenantChanged).
	gens generations.Counters
}

// listKey names a page as read: its tenant's generation before the read,
// the period of ttl the read started in and the query (filter and page),
// which names the tenant.
type listKey struct {
	query  string
	gen    uint64
	period int64
}

// listPage is a page's documents as read, and the count of all matching.
type listPage struct {
	docs  []bson.Raw
	count int
}

// CacheLists keeps the pages of coll that PageCached and FindTenant read,
// at most entries of them and maxBytes in all, for a tenant's lists read
// far more often than its documents are written (an organization's spaces
// on every visit of its home). Call it before the store is shared.
//
// A page is kept under its tenant's generation read before the page was,
// which every write of one of the tenant's documents through this store
// bumps once done: an Insert by the document's TenantField, an Update or a
// removal by its events' organization or else its condition's (a write
// naming none, and a Delete whose filter names no tenant, drop every
// tenant's pages of coll). So a
// kept page is never served after such a write in this process, nor after
// the period of ttl its read started in: a write through another instance
// shows within ttl (at once when its event reaches this one and calls
// TenantChanged). The staleness across instances is CacheByID's.
func (s *Store) CacheLists(coll string, entries int, maxBytes int64, ttl time.Duration) {
	if s.lists == nil {
		s.lists = map[string]*listCache{}
	}
	s.lists[coll] = &listCache{pages: sizedcache.New[listKey, listPage](entries, maxBytes).Observe("docstore.lists." + coll), ttl: ttl}
}

// TenantChanged drops what CacheLists keeps of tenant's pages of coll
// (every tenant's when tenant is ""): another instance wrote one of its
// documents (its event arrived).
func (s *Store) TenantChanged(coll, tenant string) {
	c := s.lists[coll]
	switch {
	case c == nil:
	case tenant == "":
		c.gens.BumpAll()
	default:
		c.gens.Bump(tenant)
	}
}

// tenantsWrote bumps the tenants of events once a write of coll is done:
// when none names one, the tenant of the write's condition, else every
// tenant.
func (s *Store) tenantsWrote(coll string, cond bson.M, events []kafkax.Event) {
	if s.lists[coll] == nil {
		return
	}
	named := false
	for _, ev := range events {
		if ev.Organization != "" {
			s.TenantChanged(coll, ev.Organization)
			named = true
		}
	}
	if !named {
		s.TenantChanged(coll, tenantOf(cond[TenantField]))
	}
}

// tenantOf is the tenant a filter or a document names, "" for none.
func tenantOf(tenant any) string {
	if t, ok := tenant.(string); ok && t != "" {
		return t
	}
	return ""
}

// PageCached is Page through coll's cache of lists (CacheLists; Page
// without one, or when f names no tenant): for a list that answers a
// request, never for a read a write depends on.
func PageCached[T any](ctx context.Context, s *Store, coll string, f bson.M, k Keyset) ([]T, int, error) {
	return cachedList[T](ctx, s, coll, f, k, true)
}

// FindTenant is PageCached uncounted.
func FindTenant[T any](ctx context.Context, s *Store, coll string, f bson.M, k Keyset) ([]T, error) {
	items, _, err := cachedList[T](ctx, s, coll, f, k, false)
	return items, err
}

func cachedList[T any](ctx context.Context, s *Store, coll string, f bson.M, k Keyset, counted bool) ([]T, int, error) {
	c, tenant := s.lists[coll], tenantOf(f[TenantField])
	if c == nil || tenant == "" {
		if !counted {
			q, opts := keysetQuery(f, k)
			items, err := Find[T](ctx, s, coll, q, opts)
			return items, 0, err
		}
		return Page[T](ctx, s, coll, f, k)
	}
	// fmt prints a map's keys in order, and %#v each value's type: equal
	// queries print alike, different ones differently ("1" is not 1).
	key := listKey{query: fmt.Sprintf("%v %#v %#v", counted, f, k), gen: c.gens.Of(tenant), period: periodOf(c.ttl)}
	p, ok := c.pages.Get(key)
	if !ok {
		var err error
		if p, err = readPage(ctx, s, coll, f, k, counted); err != nil {
			return nil, 0, err
		}
		size := int64(len(key.query))
		for _, raw := range p.docs {
			size += int64(len(raw))
		}
		c.pages.Add(key, p, size)
	}
	items := make([]T, len(p.docs))
	for i, raw := range p.docs {
		if err := decodeKept(raw, &items[i]); err != nil {
			return nil, 0, mongox.Err(err, s.Name(coll))
		}
	}
	return items, p.count, nil
}

// readPage reads a page as raw documents, and counts the matches when
// counted.
func readPage(ctx context.Context, s *Store, coll string, f bson.M, k Keyset, counted bool) (listPage, error) {
	var p listPage
	if counted {
		n, err := s.Count(ctx, coll, f)
		if err != nil {
			return p, err
		}
		p.count = n
	}
	q, opts := keysetQuery(f, k)
	cur, err := s.R(coll).Find(ctx, Live(q), opts)
	if err != nil {
		return p, mongox.Err(err, s.Name(coll))
	}
	defer cur.Close(ctx)
	p.docs = []bson.Raw{}
	for cur.Next(ctx) {
		p.docs = append(p.docs, slices.Clone(cur.Current))
	}
	return p, mongox.Err(cur.Err(), s.Name(coll))
}

// keysetQuery is the filter and options of page k of f.
func keysetQuery(f bson.M, k Keyset) (bson.M, *options.FindOptionsBuilder) {
	field := k.Field
	if field == "" {
		field = "_id"
	}
	q := f
	if k.AfterID != "" {
		q = mongox.And(f, mongox.After(field, k.Desc, k.AfterValue, k.AfterID))
	}
	opts := options.Find().SetSort(mongox.Sort(field, k.Desc))
	if k.Limit > 0 {
		opts.SetLimit(int64(k.Limit))
	}
	if len(k.Fields) > 0 {
		fields := bson.M{}
		for _, f := range k.Fields {
			fields[f] = 1
		}
		opts.SetProjection(fields)
	}
	return q, opts
}
