package gitsyncmongo_test

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"github.com/docspub/platform/services/integrations/internal/gitsyncmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// TestUpdateIsCompareAndSet: a state is created by its first write; a
// change applies to the state as stored, again when another write came
// between its read and its write (the request that started a job racing
// the job's end), and a change that keeps losing is apierr.ErrChanged,
// nothing of it written.
func TestUpdateIsCompareAndSet(t *testing.T) {
	db := mongotest.DB(t)
	st := gitsyncmongo.NewStore(db, nil)
	ctx := t.Context()
	set := func(op *gitsync.Operation) func(*gitsync.State) (*kafkax.Event, error) {
		return func(s *gitsync.State) (*kafkax.Event, error) {
			s.Organization, s.URL, s.Operation = "o1", "https://git.example/a", op
			ev := integrationsapi.NewGitSyncStarted("o1", s.ID, nil)
			return &ev, nil
		}
	}
	if err := st.Update(ctx, "sp1", set(&gitsync.Operation{Job: "j1", State: gitsync.OpRunning})); err != nil {
		t.Fatal(err)
	}
	// The job's end, raced once by the request that started it.
	raced := false
	err := st.Update(ctx, "sp1", func(s *gitsync.State) (*kafkax.Event, error) {
		if !raced {
			raced = true
			if err := st.Update(ctx, "sp1", func(s *gitsync.State) (*kafkax.Event, error) {
				s.LastCommit = "abc"
				return nil, nil
			}); err != nil {
				t.Fatalf("racing write: %v", err)
			}
		}
		s.Operation = &gitsync.Operation{Job: "j1", State: gitsync.OpSuccess}
		return nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, "sp1")
	if err != nil || got.Operation == nil || got.Operation.State != gitsync.OpSuccess || got.LastCommit != "abc" {
		t.Fatalf("after the raced end: %+v (%+v), %v; want both writes", got, got.Operation, err)
	}
	// A write that loses every race changes nothing.
	err = st.Update(ctx, "sp1", func(s *gitsync.State) (*kafkax.Event, error) {
		if err := st.Update(ctx, "sp1", func(s *gitsync.State) (*kafkax.Event, error) {
			s.LastCommit += "+"
			return nil, nil
		}); err != nil {
			t.Fatalf("racing write: %v", err)
		}
		s.Operation = nil
		return set(nil)(s)
	})
	if !errors.Is(err, apierr.ErrChanged) {
		t.Fatalf("a write that always loses: %v, want ErrChanged", err)
	}
	if got, _ := st.Get(ctx, "sp1"); got.Operation == nil || got.LastCommit != "abc++" {
		t.Errorf("after the lost write: %+v (%+v)", got, got.Operation)
	}
	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := db.Collection(gitsyncmongo.States).FindOne(ctx, bson.M{"_id": "sp1"}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Outbox) != 1 {
		t.Errorf("%d events recorded, want the first write's alone", len(doc.Outbox))
	}
}
