package siteview_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/services/insights/internal/siteview"
)

// memStore is the projection in memory, with the Store's rule.
type memStore struct {
	mu    sync.Mutex
	sites map[string]siteview.Site
}

func (m *memStore) Get(_ context.Context, id string) (siteview.Site, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.sites[id]
	return st, ok, nil
}

func (m *memStore) Put(_ context.Context, st siteview.Site) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if cur, ok := m.sites[st.ID]; ok && cur.At.After(st.At) {
		return nil
	}
	m.sites[st.ID] = st
	return nil
}

// owner is the sites service: its sites by id (to organization), the
// questions it was asked, and err when it does not answer.
type owner struct {
	mu    sync.Mutex
	sites map[string]string
	asked map[string]int
	err   error
}

func (o *owner) Site(_ context.Context, id string) (siteview.Site, bool, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.asked[id]++
	if o.err != nil {
		return siteview.Site{}, false, o.err
	}
	org, ok := o.sites[id]
	return siteview.Site{ID: id, Organization: org}, ok, nil
}

func (o *owner) calls(id string) int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.asked[id]
}

func newView(t *testing.T) (*siteview.View, *memStore, *owner) {
	t.Helper()
	store := &memStore{sites: map[string]siteview.Site{}}
	o := &owner{sites: map[string]string{"new": "org1"}, asked: map[string]int{}}
	return siteview.New(store, o), store, o
}

func exists(t *testing.T, v *siteview.View, org, site string) bool {
	t.Helper()
	ok, err := v.Exists(context.Background(), org, site)
	if err != nil {
		t.Fatalf("Exists(%s, %s): %v", org, site, err)
	}
	return ok
}

// A site the projection misses is asked of its owner once: the answer is
// recorded (a fresh view over the projection needs no question), another
// organization's site stays unknown to org2, and its site.created event,
// consumed later, overwrites the looked-up record.
func TestMissAsksOwnerOnce(t *testing.T) {
	v, store, o := newView(t)
	if !exists(t, v, "org1", "new") {
		t.Fatal("a site the owner knows is not found")
	}
	if exists(t, v, "org2", "new") {
		t.Error("org1's site exists in org2")
	}
	v2 := siteview.New(store, o)
	if !exists(t, v2, "org1", "new") || exists(t, v2, "org2", "new") {
		t.Error("the looked-up record does not answer another view")
	}
	if got := o.calls("new"); got != 1 {
		t.Errorf("owner asked %d times, want 1", got)
	}
	at := time.Now()
	if err := v.Apply(context.Background(), sitesapi.SiteCreated, "org1", "new", at); err != nil {
		t.Fatal(err)
	}
	if st, _, _ := store.Get(context.Background(), "new"); !st.At.Equal(at) {
		t.Errorf("site.created did not overwrite the looked-up record: %+v", st)
	}
	// A deletion recorded stays: no question, no resurrection.
	if err := v.Apply(context.Background(), sitesapi.SiteDeleted, "org1", "new", at.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if exists(t, v, "org1", "new") || o.calls("new") != 1 {
		t.Errorf("a deleted site: exists, or owner asked (%d)", o.calls("new"))
	}
}

// An unknown site is remembered: a flood of events for it asks once; the
// memory is bounded (the least recently missed go first), and the site's
// site.created forgets it at once.
func TestUnknownSitesRemembered(t *testing.T) {
	v, _, o := newView(t)
	for range 100 {
		if exists(t, v, "org1", "ghost") {
			t.Fatal("an unknown site exists")
		}
	}
	if got := o.calls("ghost"); got != 1 {
		t.Errorf("owner asked %d times about an unknown site, want 1", got)
	}
	for i := range siteview.MissSize {
		exists(t, v, "org1", fmt.Sprintf("flood%d", i))
	}
	exists(t, v, "org1", "ghost") // pushed out by MissSize others
	if got := o.calls("ghost"); got != 2 {
		t.Errorf("owner asked %d times after the bound, want 2", got)
	}
	exists(t, v, "org1", "flood1") // still remembered (flood0 went out)
	if got := o.calls("flood1"); got != 1 {
		t.Errorf("owner asked %d times about flood1, want 1", got)
	}
	if err := v.Apply(context.Background(), sitesapi.SiteCreated, "org1", "ghost", time.Now()); err != nil {
		t.Fatal(err)
	}
	if !exists(t, v, "org1", "ghost") {
		t.Error("a site created after it was missed is not found")
	}
}

// The owner not answering is the owner's error (a 503 to the caller),
// never remembered as an unknown site.
func TestOwnerUnavailable(t *testing.T) {
	v, _, o := newView(t)
	o.err = apierr.Unavailable(5*time.Second, "sites service unavailable")
	_, err := v.Exists(context.Background(), "org1", "new")
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != http.StatusServiceUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	o.mu.Lock()
	o.err = nil
	o.mu.Unlock()
	if !exists(t, v, "org1", "new") || o.calls("new") != 2 {
		t.Errorf("once the owner answers: asked %d times, want 2", o.calls("new"))
	}
}

// Without an owner, the projection alone answers.
func TestNoOwner(t *testing.T) {
	v := siteview.New(&memStore{sites: map[string]siteview.Site{}}, nil)
	if exists(t, v, "org1", "new") {
		t.Error("a site unknown to the projection exists")
	}
}

// Every event sites declares, of every version whose golden is kept,
// applies; one of a newer version or an undeclared type is unknown: the
// consumer skips it.
func TestHandleSitesGoldens(t *testing.T) {
	t.Parallel()
	v, _, _ := newView(t)
	ctx := context.Background()
	for _, ev := range eventtest.Goldens(t, sitesapi.Goldens()) {
		if err := v.Handle(ctx, ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
	newer := sitesapi.NewSiteCreated("o1", "w2", nil)
	newer.Version = sitesapi.SiteVersion + 1
	for _, ev := range []envelope.Event{newer, {ID: "e1", Type: "site.archived"}} {
		if err := v.Handle(ctx, ev); !errors.Is(err, envelope.ErrUnknown) {
			t.Errorf("%s v%d: %v, want envelope.ErrUnknown", ev.Type, ev.SchemaVersion(), err)
		}
	}
}
