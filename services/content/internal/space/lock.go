package space

import (
	"context"
	"slices"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/services/content/internal/limits"
)

// ErrTreeBusy answers a change of an organization's tree while another one
// (a move, a transfer, a deletion) holds its lock for longer than limits.TreeWait.
var ErrTreeBusy = func() error {
	e := apierr.Conflict("another change of this organization's collections is in progress; retry shortly")
	e.RetryAfter = time.Second
	return e
}()

// lockTrees takes the tree locks of orgs for owner ("" for a new one), in a
// fixed order, waiting at most limits.TreeWait for other holders. While they are
// held they are renewed every third of limits.TreeLease; release frees them.
//
// Every change that depends on the shape of an organization's tree (where a
// collection is, whether it is empty, whether it is an ancestor) reads the
// tree and writes under this lock, so two such changes never interleave:
// no cycle, no space in a deleted collection. The lock is a lease document,
// so a holder that dies frees it after limits.TreeLease; an operation holds it as
// its job id and takes it back at once when it resumes.
func (s *Service) lockTrees(ctx context.Context, owner string, orgs ...string) (release func(), err error) {
	if owner == "" {
		owner = ids.New()
	}
	orgs = slices.Compact(slices.Sorted(slices.Values(orgs)))
	var held []string
	free := func() {
		fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		for _, org := range held {
			_ = s.store.UnlockTree(fctx, org, owner)
		}
	}
	for _, org := range orgs {
		if err := s.takeTree(ctx, org, owner); err != nil {
			free()
			return nil, err
		}
		held = append(held, org)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(limits.TreeLease / 3)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				for _, org := range held {
					_, _ = s.store.LockTree(context.WithoutCancel(ctx), org, owner, limits.TreeLease)
				}
			}
		}
	}()
	return func() {
		close(stop)
		<-done
		free()
	}, nil
}

// takeTree waits for the tree lock of org.
func (s *Service) takeTree(ctx context.Context, org, owner string) error {
	deadline := time.Now().Add(limits.TreeWait)
	wait := 2 * time.Millisecond
	for {
		ok, err := s.store.LockTree(ctx, org, owner, limits.TreeLease)
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return ErrTreeBusy
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-t.C:
		}
		wait = min(2*wait, 50*time.Millisecond)
	}
}

// locked runs f under the tree lock of org (a request's own lock).
func (s *Service) locked(ctx context.Context, org string, f func() error) error {
	release, err := s.lockTrees(ctx, "", org)
	if err != nil {
		return err
	}
	defer release()
	return f()
}
