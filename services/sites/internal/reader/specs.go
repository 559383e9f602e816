package reader

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/services/sites/internal/apiref"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Specs is what the reader asks the integrations service about the
// organization's stored OpenAPI specs (integrationsclient.Client): a spec
// it does not have is integrationsapi.ErrNoSpec.
type Specs interface {
	PublishedSpec(ctx context.Context, org, slug string) (integrationsapi.PublishedSpec, error)
	// PublishedSpecByURL is org's spec whose source is the URL.
	PublishedSpecByURL(ctx context.Context, org, u string) (integrationsapi.PublishedSpec, error)
}

// SpecsChanged drops the stored specs of an organization, and the pages
// showing one, from the reader's use: call it with integrations'
// openapi_spec.* events (limits.ReaderSpecTTL is the backstop).
func (r *Reader) SpecsChanged(org string) { r.specGens.Bump(org) }

// storedSpec is a stored spec as the reader's cache keeps it: nil spec
// when integrations has none (or could not say: until retry).
type storedSpec struct {
	spec   *apiref.Spec
	digest string
	gen    uint64
	until  time.Time
}

// fresh tells whether something made at generation gen, until until, may
// still be used for org.
func (r *Reader) fresh(org string, gen uint64, until time.Time) bool {
	return gen == r.specGens.Of(org) && r.now().Before(until)
}

// storedSpec is org's stored spec slug (byURL: whose source is the URL
// slug), parsed, or nil; until is how long it may be used. It is asked of
// integrations once per generation and limits.ReaderSpecTTL, and parsed
// again only when its content changed.
func (r *Reader) storedSpec(ctx context.Context, org, slug string, byURL bool) (*apiref.Spec, uint64, time.Time) {
	kind := "stored"
	if byURL {
		kind = "stored-url"
	}
	key := cacheKey(kind, org, slug)
	var prev storedSpec
	if v, ok := r.cache.Get(key); ok {
		prev = v.(storedSpec)
		if r.fresh(org, prev.gen, prev.until) {
			return prev.spec, prev.gen, prev.until
		}
	}
	gen := r.specGens.Of(org) // before the read (generations)
	if r.deps.Specs == nil {
		return nil, gen, r.now().Add(limits.ReaderSpecTTL)
	}
	v, _, _ := r.loading.Do(key, func() (any, error) {
		s := storedSpec{gen: gen, until: r.now().Add(limits.ReaderSpecTTL)}
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), limits.ContentTimeout)
		defer cancel()
		ask := r.deps.Specs.PublishedSpec
		if byURL {
			ask = r.deps.Specs.PublishedSpecByURL
		}
		ps, err := ask(cctx, org, slug)
		switch {
		case errors.Is(err, integrationsapi.ErrNoSpec):
		case err != nil:
			s.until = r.now().Add(limits.ReaderSpecRetry)
			if r.deps.Log != nil {
				r.deps.Log.WarnContext(ctx, "read a stored OpenAPI spec", "organization", org, "spec", slug, "err", err)
			}
		case ps.Digest != "" && ps.Digest == prev.digest && prev.spec != nil:
			s.spec, s.digest = prev.spec, prev.digest
		default:
			if spec, err := apiref.Parse(cctx, ps.Document); err == nil {
				s.spec, s.digest = spec, ps.Digest
			}
		}
		size := int64(256)
		if s.spec != nil {
			size += s.spec.Size()
		}
		r.cache.Set(key, s, size)
		return s, nil
	})
	s := v.(storedSpec)
	return s.spec, s.gen, s.until
}
