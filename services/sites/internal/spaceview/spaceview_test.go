package spaceview_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/sites/internal/spaceview"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func event(typ, title string, at time.Time) kafkax.Event {
	ev := kafkax.NewEvent(typ, "org1", "s1", map[string]any{"object": "space", "id": "s1", "organization": "org1", "title": title})
	ev.OccurredAt = at
	return ev
}

func TestEventsKeepTheNewestView(t *testing.T) {
	s := spaceview.NewStore(mongotest.Database(t), mongox.NewDocLocks())
	ctx := context.Background()
	t0 := time.Now().UTC().Truncate(time.Millisecond)
	steps := []struct {
		name        string
		ev          kafkax.Event
		wantTitle   string
		wantDeleted bool
		wantFound   bool
	}{
		{"created", event("space.created", "Docs", t0), "Docs", false, true},
		{"renamed", event("space.updated", "Handbook", t0.Add(time.Second)), "Handbook", false, true},
		{"an older event redelivered changes nothing", event("space.updated", "Docs", t0), "Handbook", false, true},
		{"deleted", event("space.deleted", "Handbook", t0.Add(2*time.Second)), "Handbook", true, true},
		{"restored", event("space.restored", "Handbook", t0.Add(3*time.Second)), "Handbook", false, true},
		{"other events are ignored", event("comment.created", "x", t0.Add(4*time.Second)), "Handbook", false, true},
		{"purged", event("space.purged", "Handbook", t0.Add(5*time.Second)), "", false, false},
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
