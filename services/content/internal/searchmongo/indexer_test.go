package searchmongo_test

import (
	"context"
	"slices"
	"sort"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/google/go-cmp/cmp"
)

// heads are the spaces the indexer follows (search.Spaces): the domain's
// view of content's spaces, not a store.
type heads struct {
	mu sync.Mutex
	m  map[string]search.Head
}

func (h *heads) set(space, org, rev string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.m[space] = search.Head{Space: space, Organization: org, Revision: rev}
}

func (h *heads) drop(space string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, space)
}

func (h *heads) Head(_ context.Context, id string) (search.Head, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	hd, ok := h.m[id]
	if !ok {
		return search.Head{}, apierr.NotFound("no space %s", id)
	}
	return hd, nil
}

func (h *heads) Heads(_ context.Context, after string, limit int) ([]search.Head, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var ids []string
	for id := range h.m {
		if id > after {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out []search.Head
	for _, id := range ids[:min(limit, len(ids))] {
		out = append(out, h.m[id])
	}
	return out, nil
}

// revisions are pages by revision id; read counts the revisions read.
type revisions struct {
	pages map[string][]revision.Page
	read  []string
}

func (r *revisions) get(_ context.Context, id string) ([]revision.Page, error) {
	r.read = append(r.read, id)
	ps, ok := r.pages[id]
	if !ok {
		return nil, apierr.NotFound("no revision %s", id)
	}
	return ps, nil
}

func TestIndexer(t *testing.T) {
	ctx := context.Background()
	svc, st := newService(t)
	hs := &heads{m: map[string]search.Head{}}
	revs := &revisions{pages: map[string][]revision.Page{
		"r1": {doc("p1", "Otters", "otters", "Otters float on their backs.\n")},
		"r2": {doc("p1", "Otters", "otters", "Sea otters hold hands while sleeping.\n")},
		"r3": {doc("p1", "Lynx", "lynx", "The lynx hunts at dusk.\n")},
	}}
	x := search.NewIndexer(st, hs, revs.get)
	found := func(org, space, q string) bool {
		return len(hits(mustSearch(t, svc, org, []string{space}, q))) > 0
	}
	marks := func(spaces ...string) map[string]search.Mark {
		m, err := st.Marks(ctx, spaces)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}

	// A space is indexed at its head, and again only when the head moved.
	hs.set("s1", "acme", "r1")
	for range 2 {
		if err := x.Reindex(ctx, "s1"); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"r1"}, revs.read); diff != "" {
		t.Errorf("revisions read (-want +got):\n%s", diff)
	}
	if !found("acme", "s1", "float") {
		t.Error("s1 not found by a word of r1")
	}
	hs.set("s1", "acme", "r2")
	if err := x.Reindex(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if found("acme", "s1", "float") || !found("acme", "s1", "sleeping") {
		t.Error("s1 is not indexed at r2")
	}
	if diff := cmp.Diff(map[string]search.Mark{"s1": {Organization: "acme", Revision: "r2", Format: search.IndexFormat}}, marks("s1", "s2")); diff != "" {
		t.Errorf("marks (-want +got):\n%s", diff)
	}

	// Another organization (a transfer) reindexes the same revision there.
	hs.set("s1", "globex", "r2")
	if err := x.Reindex(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if found("acme", "s1", "sleeping") || !found("globex", "s1", "sleeping") {
		t.Error("s1 did not follow its organization")
	}

	// CatchUp indexes the spaces without an index or behind, and only them;
	// a second run has nothing to do.
	hs.set("s2", "acme", "r3")
	hs.set("s3", "acme", "r1")
	if err := svc.IndexRevision(ctx, "acme", "s3", revs.pages["r1"]); err != nil { // indexed before marks existed
		t.Fatal(err)
	}
	revs.read = nil
	n, err := x.CatchUp(ctx)
	if err != nil || n != 2 {
		t.Fatalf("CatchUp = %d, %v; want 2 (s2 never indexed, s3 without a mark)", n, err)
	}
	slices.Sort(revs.read)
	if diff := cmp.Diff([]string{"r1", "r3"}, revs.read); diff != "" {
		t.Errorf("revisions read by CatchUp (-want +got):\n%s", diff)
	}
	if !found("acme", "s2", "lynx") {
		t.Error("s2 not found after CatchUp")
	}
	if n, err := x.CatchUp(ctx); err != nil || n != 0 {
		t.Errorf("second CatchUp = %d, %v; want 0", n, err)
	}

	// A space indexed at its head with an older format is indexed again.
	old := search.Build("acme", "s3", revs.pages["r1"])
	old.Revision, old.Format = "r1", search.IndexFormat-1
	if err := st.ReplaceSpace(ctx, old); err != nil {
		t.Fatal(err)
	}
	revs.read = nil
	if n, err := x.CatchUp(ctx); err != nil || n != 1 || !cmp.Equal(revs.read, []string{"r1"}) {
		t.Errorf("CatchUp after a format change = %d, %v, read %v; want s3 reindexed", n, err, revs.read)
	}
	if m := marks("s3")["s3"]; m.Format != search.IndexFormat {
		t.Errorf("s3's mark %+v after CatchUp", m)
	}

	// A space whose revision cannot be read is skipped, the others done,
	// and the error reported; a space gone for good leaves the index.
	hs.set("s0", "acme", "missing")
	hs.set("s2", "acme", "r1")
	if n, err := x.CatchUp(ctx); err == nil || n != 1 {
		t.Errorf("CatchUp with an unreadable revision = %d, %v; want 1 and an error", n, err)
	}
	hs.drop("s2")
	if err := x.Reindex(ctx, "s2"); err != nil {
		t.Fatal(err)
	}
	if _, ok := marks("s2")["s2"]; ok || found("acme", "s2", "float") {
		t.Error("a space gone for good is still indexed")
	}
}
