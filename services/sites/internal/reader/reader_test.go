package reader

import (
	"context"
	"fmt"
	"github.com/docspub/platform/libs/waittest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/google/go-cmp/cmp"
)

// TestCurrentsAskAfterArrival: a request never gets an answer to a
// question asked before it arrived (a merge done before it shows), and the
// requests arriving during one question share the next.
func TestCurrentsAskAfterArrival(t *testing.T) {
	var revision atomic.Int64
	revision.Store(1)
	var asked atomic.Int64
	release := make(chan struct{})
	c := newCurrents(func(ctx context.Context, space string) (contentapi.Current, error) {
		n := asked.Add(1)
		rev := revision.Load()
		if n == 1 {
			<-release // the first question is slow
		}
		return contentapi.Current{Space: space, Organization: "o", Revision: fmt.Sprint(rev)}, nil
	}, time.Second)

	first := make(chan string)
	go func() {
		cur, _ := c.get(context.Background(), "s")
		first <- cur.Revision
	}()
	waittest.Until(t, "the first question asked", 10*time.Second, func() bool { return asked.Load() > 0 })
	revision.Store(2) // a merge, acknowledged while the first question runs
	var wg sync.WaitGroup
	got := make([]string, 10)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cur, err := c.get(context.Background(), "s")
			if err != nil {
				t.Error(err)
			}
			got[i] = cur.Revision
		}()
	}
	// Every later request waits for the next question, queued behind the first.
	waittest.Until(t, "the 10 later requests waiting for the next question", 10*time.Second, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		l := c.flights["s"]
		return l != nil && l.next != nil && l.next.waiting == len(got)
	})
	close(release)
	if rev := <-first; rev != "1" {
		t.Errorf("first request got revision %s, want 1", rev)
	}
	wg.Wait()
	for i, rev := range got {
		if rev != "2" {
			t.Errorf("request %d arriving after the merge got revision %s", i, rev)
		}
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("content asked %d times, want 2 (one shared by the later requests)", n)
	}
}

// TestCurrentsKeepLastWhenDown: content down, the last revision it gave
// is used; a space it never answered about is an error.
func TestCurrentsKeepLastWhenDown(t *testing.T) {
	down := false
	c := newCurrents(func(ctx context.Context, space string) (contentapi.Current, error) {
		if down {
			return contentapi.Current{}, fmt.Errorf("down")
		}
		return contentapi.Current{Space: space, Organization: "o", Revision: "r1"}, nil
	}, time.Second)
	if _, err := c.get(context.Background(), "s"); err != nil {
		t.Fatal(err)
	}
	down = true
	if cur, err := c.get(context.Background(), "s"); err != nil || cur.Revision != "r1" {
		t.Errorf("with content down: %v %v", cur, err)
	}
	if _, err := c.get(context.Background(), "never"); err == nil {
		t.Error("a space never answered about has no revision")
	}
}

func TestClaimsFollowTheSchema(t *testing.T) {
	schema := parseClaimSchema(`{"type":"object","properties":{"beta":{"type":"boolean"},
		"plan":{"type":"object","properties":{"pro":{"type":"boolean"}}},
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}}}}}`)
	got := schema.claims(
		map[string]any{"beta": true, "email": "x@y", "plan": map[string]any{"pro": true, "other": true},
			"unsigned": map[string]any{"preview": true}, "exp": 123.0},
		map[string]any{"preview": "yes", "other": true})
	want := map[string]any{"beta": true, "plan": map[string]any{"pro": true}, "unsigned": map[string]any{}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("claims (-got +want):\n%s", diff)
	}
	if got := (claimSchema{}).claims(map[string]any{"beta": true}, nil); got != nil {
		t.Errorf("without adaptive content: %v", got)
	}
	u, set := unsignedFromQuery(map[string][]string{"visitor.preview": {"true"}, "visitor.plan.pro": {"false"}, "q": {"x"}})
	if !set || !cmp.Equal(u, map[string]any{"preview": true, "plan": map[string]any{"pro": false}}) {
		t.Errorf("unsigned from query: %v %v", u, set)
	}
}
