package certstore_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/certstore"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/redistest"
	"github.com/docspub/platform/libs/waittest"
	"github.com/redis/go-redis/v9"
)

const prefix = "docspub:certmagic:"

// Files are stored, loaded, described, listed and deleted as certmagic
// expects of a file system: directories are the prefixes of keys.
func TestFiles(t *testing.T) {
	ctx := context.Background()
	rdb := redistest.Client(t)
	s := certstore.New(rdb, prefix)
	if _, err := s.Load(ctx, "certificates/ca/a.test/a.test.crt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("load of nothing: %v", err)
	}
	files := map[string]string{
		"certificates/ca/a.test/a.test.crt": "crt-a", "certificates/ca/a.test/a.test.key": "key-a",
		"certificates/ca/b.test/b.test.crt": "crt-b", "certificates/ca-x/c.test/c.test.crt": "other dir",
		"acme/ca/users/me/me.json": "user",
	}
	for k, v := range files {
		if err := s.Store(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range files {
		if got, err := s.Load(ctx, k); err != nil || string(got) != v {
			t.Errorf("load %s = %q, %v", k, got, err)
		}
	}
	info, err := s.Stat(ctx, "certificates/ca/a.test/a.test.crt")
	if err != nil || !info.IsTerminal || info.Size != 5 || time.Since(info.Modified) > time.Minute {
		t.Errorf("stat of a file: %+v, %v", info, err)
	}
	if info, err := s.Stat(ctx, "certificates/ca"); err != nil || info.IsTerminal {
		t.Errorf("stat of a directory: %+v, %v", info, err)
	}
	if _, err := s.Stat(ctx, "certificates/c"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("stat of a key's prefix that is no directory: %v", err)
	}
	got, err := s.List(ctx, "certificates/ca", false)
	if want := []string{"certificates/ca/a.test", "certificates/ca/b.test"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("list = %v, %v; want %v", got, err, want)
	}
	got, err = s.List(ctx, "certificates/ca", true)
	want := []string{"certificates/ca/a.test", "certificates/ca/a.test/a.test.crt", "certificates/ca/a.test/a.test.key",
		"certificates/ca/b.test", "certificates/ca/b.test/b.test.crt"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("recursive list = %v, %v; want %v", got, err, want)
	}
	if !s.Exists(ctx, "certificates/ca/a.test") || !s.Exists(ctx, "acme/ca/users/me/me.json") || s.Exists(ctx, "certificates/ca/z") {
		t.Error("exists")
	}
	if err := s.Delete(ctx, "certificates/ca/a.test"); err != nil {
		t.Fatal(err)
	}
	if s.Exists(ctx, "certificates/ca/a.test") || s.Exists(ctx, "certificates/ca/a.test/a.test.key") || !s.Exists(ctx, "certificates/ca/b.test/b.test.crt") {
		t.Error("delete of a directory removed too little or too much")
	}
	if err := s.Delete(ctx, "no/such/key"); err != nil {
		t.Errorf("delete of nothing: %v", err)
	}
	// Every key is under the prefix.
	keys, err := rdb.Keys(ctx, "*").Result()
	for _, k := range keys {
		if !bytes.HasPrefix([]byte(k), []byte(prefix)) {
			t.Errorf("key %q outside %q", k, prefix)
		}
	}
	if err != nil || len(keys) == 0 {
		t.Errorf("keys: %v, %v", keys, err)
	}
}

// Values and keys are bounded.
func TestBounds(t *testing.T) {
	ctx := context.Background()
	s := certstore.New(redistest.Client(t), prefix)
	if err := s.Store(ctx, "big", make([]byte, certstore.MaxValueBytes+1)); !errors.Is(err, certstore.ErrTooLarge) {
		t.Errorf("a value over the bound: %v", err)
	}
	if err := s.Store(ctx, string(make([]byte, certstore.MaxKeyBytes+1)), nil); !errors.Is(err, certstore.ErrTooLarge) {
		t.Errorf("a key over the bound: %v", err)
	}
	if err := s.Store(ctx, "", []byte("x")); err == nil {
		t.Error("an empty key was stored")
	}
}

// A lock is held by one storage at a time, across storages sharing Redis
// (replicas); its holder extends it while it holds it; one its holder
// stopped extending (a replica that died) expires. miniredis's clock
// moves only when told (FastForward).
func TestLock(t *testing.T) {
	ctx := context.Background()
	mr, err := embedded.StartRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mr.Close)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })
	const ttl, poll = 300 * time.Millisecond, 10 * time.Millisecond
	a := certstore.New(rdb, prefix).WithLockTiming(ttl, poll)
	b := certstore.New(rdb, prefix).WithLockTiming(ttl, poll)
	if err := a.Lock(ctx, "issue_cert_a.test"); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 3*ttl)
	defer cancel()
	if err := b.Lock(short, "issue_cert_a.test"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b took a held lock: %v", err)
	}
	// Time passes: a, alive, extends its lock before it expires.
	mr.FastForward(2 * ttl / 3)
	waittest.Until(t, "a extending its lock", 5*time.Second, func() bool {
		return rdb.PTTL(ctx, prefix+"lock:issue_cert_a.test").Val() > 2*ttl/3
	})
	if err := b.Lock(ctx, "issue_cert_other.test"); err != nil {
		t.Fatalf("another lock: %v", err)
	}
	got := make(chan error, 1)
	go func() { got <- b.Lock(ctx, "issue_cert_a.test") }()
	if err := a.Unlock(ctx, "issue_cert_a.test"); err != nil {
		t.Fatal(err)
	}
	if err := <-got; err != nil {
		t.Fatalf("b after a's unlock: %v", err)
	}
	if err := a.Unlock(ctx, "issue_cert_a.test"); err == nil {
		t.Error("a unlocked a lock it no longer holds")
	}

	// A holder that died left its lock, which nobody extends: it blocks
	// until its TTL passes, then it is taken.
	if err := rdb.Set(ctx, prefix+"lock:issue_cert_dead.test", "a dead replica's token", ttl).Err(); err != nil {
		t.Fatal(err)
	}
	go func() { got <- a.Lock(ctx, "issue_cert_dead.test") }()
	select {
	case err := <-got:
		t.Fatalf("a took the dead holder's lock before it expired: %v", err)
	case <-time.After(5 * poll):
	}
	mr.FastForward(ttl)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the dead holder's lock never expired")
	}
}
