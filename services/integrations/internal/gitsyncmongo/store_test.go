package gitsyncmongo_test

import (
	"errors"
	"testing"

	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/integrations/internal/gitsync"
	"github.com/docspub/platform/services/integrations/internal/gitsyncmongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// TestPutIsCompareAndSet: a state is written at the version it was read
// at; a write from an older read (the request that started a job racing
// the job's end) is ErrStateMoved and changes nothing; two first writes
// of one space store one of them.
func TestPutIsCompareAndSet(t *testing.T) {
	st := gitsyncmongo.NewStore(mongotest.DB(t))
	ctx := t.Context()
	first := gitsync.State{ID: "sp1", Organization: "o1", URL: "https://git.example/a", Ref: "refs/heads/main"}
	if err := st.Put(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if err := st.Put(ctx, first, nil); !errors.Is(err, gitsync.ErrStateMoved) {
		t.Fatalf("a second first write: %v", err)
	}
	read, err := st.Get(ctx, "sp1")
	if err != nil || read.Version != 1 {
		t.Fatalf("read %+v, %v", read, err)
	}
	ended := read
	ended.Operation = &gitsync.Operation{Job: "j1", State: gitsync.OpSuccess, Error: "skipped"}
	if err := st.Put(ctx, ended, nil); err != nil {
		t.Fatal(err)
	}
	stale := read
	stale.Operation = &gitsync.Operation{Job: "j1", State: gitsync.OpRunning}
	if err := st.Put(ctx, stale, nil); !errors.Is(err, gitsync.ErrStateMoved) {
		t.Fatalf("a write from a stale read: %v", err)
	}
	if got, _ := st.Get(ctx, "sp1"); got.Version != 2 || got.Operation == nil || got.Operation.State != gitsync.OpSuccess {
		t.Errorf("after the stale write: %+v", got)
	}
}
