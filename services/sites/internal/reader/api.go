package reader

import (
	"context"
	"errors"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/sites/internal/apiref"
	"github.com/docspub/platform/services/sites/internal/gitbookmd"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// apiRender renders one page's API reference blocks (gitbookmd.APIRef).
// A spec is a file of the revision (src relative to the page or under
// .gitbook/assets, found by its name as links find files), or one of the
// organization's stored specs by name (spec, integrations'), or its
// stored spec whose source is the URL src; a URL no stored spec has is
// shown as the block's card: nothing is fetched from outside while a
// reader waits. failed is set when content could not answer: the page is
// then not cached, so that it shows the operation once content is back.
// stored is set when the page shows a stored spec: the page is then used
// while gen is the organization's and until until (Reader.fresh).
type apiRender struct {
	r      *Reader
	ctx    context.Context
	t      *tree
	failed bool
	stored bool
	gen    uint64
	until  time.Time
}

// render is gitbookmd.Options.API.
func (a *apiRender) render(ref gitbookmd.APIRef) string {
	var spec *apiref.Spec
	switch {
	case ref.Spec != "":
		spec = a.storedSpec(ref.Spec, false)
	case strings.HasPrefix(ref.Src, "https://") || strings.HasPrefix(ref.Src, "http://"):
		spec = a.storedSpec(ref.Src, true)
	case !strings.Contains(ref.Src, "://"):
		spec = a.fileSpec(ref.Src)
	}
	if spec == nil {
		return ""
	}
	var out string
	if len(ref.Schemas) > 0 {
		out, _ = spec.Schemas(ref.Schemas)
	} else {
		out, _ = spec.Operation(ref.Path, ref.Method)
	}
	return out
}

// storedSpec is the organization's stored spec by name (slug; byURL: by
// source URL), nil when there is none; the page depends on it from now on.
func (a *apiRender) storedSpec(slug string, byURL bool) *apiref.Spec {
	spec, gen, until := a.r.storedSpec(a.ctx, a.t.org, slug, byURL)
	if !a.stored || until.Before(a.until) {
		a.until = until
	}
	if !a.stored || gen < a.gen {
		a.gen = gen
	}
	a.stored = true
	return spec
}

// fileSpec is the spec of the revision's file src names, parsed once per
// organization and file content (its SHA-256) and kept in the reader's
// cache; nil when there is none, or it is no OpenAPI 3.x or Swagger 2.0
// document within apiref's bounds.
func (a *apiRender) fileSpec(src string) *apiref.Spec {
	name := src
	if i := strings.Index(src, ".gitbook/assets/"); i >= 0 {
		name = src[i+len(".gitbook/assets/"):]
	} else {
		name = path.Base(src)
	}
	id, ok := a.t.assetID(name)
	if !ok {
		return nil
	}
	f := a.t.files[id]
	if f.Size > apiref.MaxSpecBytes {
		return nil
	}
	key := cacheKey("apispec", a.t.org, a.t.space, a.t.id, id)
	if f.SHA256 != "" {
		key = cacheKey("apispec", a.t.org, f.SHA256)
	}
	if s, ok := a.r.cache.Get(key); ok {
		spec, _ := s.(*apiref.Spec)
		return spec
	}
	v, _, _ := a.r.loading.Do(key, func() (any, error) {
		raw, err := a.read(id)
		if err != nil {
			a.failed = true
			return (*apiref.Spec)(nil), nil
		}
		spec, err := apiref.Parse(context.WithoutCancel(a.ctx), raw)
		if err != nil && !errors.Is(err, apiref.ErrInvalid) && !errors.Is(err, apiref.ErrTooLarge) {
			a.failed = true // busy or too slow: not remembered
			return (*apiref.Spec)(nil), nil
		}
		// (A document that is none is remembered too: a file is immutable.)
		size := int64(256)
		if spec != nil {
			size += spec.Size()
		}
		a.r.cache.Add(key, spec, size)
		return spec, nil
	})
	spec, _ := v.(*apiref.Spec)
	return spec
}

// read reads a file of the revision, up to apiref.MaxSpecBytes.
func (a *apiRender) read(fileID string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(a.ctx, limits.ContentTimeout)
	defer cancel()
	ans, err := a.r.deps.Content.File(ctx, a.t.space, a.t.id, fileID, contentapi.FileAsk{})
	if err != nil {
		return nil, err
	}
	if ans.Body != nil {
		defer ans.Body.Close()
	}
	if ans.Status != http.StatusOK || ans.Body == nil {
		return nil, contentapi.ErrNoSpace
	}
	raw, err := io.ReadAll(io.LimitReader(ans.Body, apiref.MaxSpecBytes+1))
	if err != nil {
		return nil, err
	}
	return raw, nil
}
