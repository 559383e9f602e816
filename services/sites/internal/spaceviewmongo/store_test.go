package spaceviewmongo_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/spaceviewmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func event(typ, title string, at time.Time) kafkax.Event {
	ev := kafkax.NewEvent(typ, "org1", "s1", map[string]any{"object": "space", "id": "s1", "organization": "org1", "title": title})
	ev.OccurredAt = at
	return ev
}

func TestEventsKeepTheNewestView(t *testing.T) {
	s := spaceviewmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	steps := []struct {
		name        string
		ev          kafkax.Event
		wantTitle   string
		wantDeleted bool
		wantFound   bool
	}{
		{"created", event(contentapi.SpaceCreated, "Docs", t0), "Docs", false, true},
		{"renamed", event(contentapi.SpaceUpdated, "Handbook", t0.Add(time.Second)), "Handbook", false, true},
		{"an older event redelivered changes nothing", event(contentapi.SpaceUpdated, "Docs", t0), "Handbook", false, true},
		{"deleted", event(contentapi.SpaceDeleted, "Handbook", t0.Add(2*time.Second)), "Handbook", true, true},
		{"restored", event(contentapi.SpaceRestored, "Handbook", t0.Add(3*time.Second)), "Handbook", false, true},
		{"other events are ignored", event(contentapi.CommentCreated, "x", t0.Add(4*time.Second)), "Handbook", false, true},
		{"purged: a deleted tombstone", event(contentapi.SpacePurged, "Handbook", t0.Add(5*time.Second)), "Handbook", true, true},
		{"an older event after the purge does not bring it back", event(contentapi.SpaceRestored, "Docs", t0.Add(3*time.Second)), "Handbook", true, true},
	}
	for _, st := range steps {
		if err := s.Handle(ctx, st.ev); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.Get(ctx, []string{"s1"})
		if err != nil {
			t.Fatal(err)
		}
		sp, found := got["s1"]
		if found != st.wantFound || sp.Title != st.wantTitle || sp.Deleted != st.wantDeleted {
			t.Errorf("after %s: %+v (found %v), want title %q deleted %v found %v", st.name, sp, found, st.wantTitle, st.wantDeleted, st.wantFound)
		}
		if found {
			var v map[string]any
			if err := json.Unmarshal([]byte(sp.View), &v); err != nil || v["title"] != st.wantTitle {
				t.Errorf("after %s: view %s", st.name, sp.View)
			}
		}
	}
}

// view is a space as content's events carry it (with updatedAt and,
// deleted, deletedAt).
func view(org, title string, updated time.Time, deleted bool) map[string]any {
	v := map[string]any{"object": "space", "id": "s1", "organization": org, "title": title, "updatedAt": updated}
	if deleted {
		v["deletedAt"] = updated
	}
	return v
}

// TestTransfersWinWhateverTheOrder: the space's updatedAt orders its views,
// so an event written before a transfer and delivered after it (or a
// content answer read before it) never brings the old organization back.
func TestTransfersWinWhateverTheOrder(t *testing.T) {
	s := spaceviewmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	put := func(typ string, data map[string]any, occurred time.Time) {
		t.Helper()
		ev := kafkax.NewEvent(typ, "x", "s1", data)
		ev.OccurredAt = occurred
		if err := s.Handle(ctx, ev); err != nil {
			t.Fatal(err)
		}
	}
	check := func(when, wantOrg string, wantDeleted bool) {
		t.Helper()
		got, err := s.Get(ctx, []string{"s1"})
		if err != nil {
			t.Fatal(err)
		}
		if sp := got["s1"]; sp.Organization != wantOrg || sp.Deleted != wantDeleted {
			t.Errorf("%s: %+v, want organization %s deleted %v", when, sp, wantOrg, wantDeleted)
		}
	}
	put(contentapi.SpaceTransferred, view("orgB", "Moved", t0.Add(2*time.Second), false), t0.Add(2*time.Second))
	// An update from before the transfer, delivered late (its event written
	// even later than the transfer's: only the space's updatedAt orders them).
	put(contentapi.SpaceUpdated, view("orgA", "Old", t0.Add(time.Second), false), t0.Add(3*time.Second))
	check("a late update from before the transfer", "orgB", false)
	// content's answer read before the transfer, recorded after it.
	if err := s.Put(ctx, mustJSON(t, view("orgA", "Old", t0, false)), false, time.Now()); err != nil {
		t.Fatal(err)
	}
	check("an old answer of content", "orgB", false)
	// A transfer of a deleted space (with its collection) keeps it deleted.
	put(contentapi.SpaceDeleted, view("orgB", "Moved", t0.Add(4*time.Second), true), t0.Add(4*time.Second))
	put(contentapi.SpaceTransferred, view("orgC", "Moved", t0.Add(5*time.Second), true), t0.Add(5*time.Second))
	check("a deleted space transferred", "orgC", true)
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUnreadableEventIsPermanent: an event whose space cannot be read is
// dead-lettered by the consumer instead of blocking the events behind it.
func TestUnreadableEventIsPermanent(t *testing.T) {
	s := spaceviewmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	ev := kafkax.NewEvent(contentapi.SpaceUpdated, "org1", "s1", map[string]any{"title": "no id"})
	if err := s.Handle(context.Background(), ev); !kafkax.IsPermanent(err) {
		t.Errorf("Handle(event without a space id) = %v, want a permanent error", err)
	}
}

// Every event content declares, of every version whose golden is kept,
// applies (the space events project their space); one of a newer version
// or an undeclared type is unknown: the consumer skips it.
func TestHandleContentGoldens(t *testing.T) {
	s := spaceviewmongo.NewStore(mongox.NewDB(mongotest.Database(t)))
	ctx := context.Background()
	for _, ev := range eventtest.Goldens(t, contentapi.Goldens()) {
		if err := s.Handle(ctx, ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
	got, err := s.Get(ctx, []string{"s1"})
	if err != nil || got["s1"].Title == "" || got["s1"].Revision == "" {
		t.Errorf("projected s1 = %+v (%v), want the goldens' space", got["s1"], err)
	}
	newer := contentapi.NewSpaceUpdated(contentapi.Space{ID: "s2"})
	newer.Version = contentapi.SpaceVersion + 1
	for _, ev := range []kafkax.Event{newer, {ID: "e1", Type: "space.archived"}} {
		if err := s.Handle(ctx, ev); !errors.Is(err, envelope.ErrUnknown) {
			t.Errorf("%s v%d: %v, want envelope.ErrUnknown", ev.Type, ev.SchemaVersion(), err)
		}
	}
}
