package redistest_test

import (
	"context"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/docspub/platform/libs/redistest"
	"github.com/redis/go-redis/v9"
)

func TestClientsAreIsolated(t *testing.T) {
	ctx := context.Background()
	a := redistest.Client(t)
	b := redistest.Client(t)
	if err := a.Set(ctx, "k", "a", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := a.Get(ctx, "k").Result(); got != "a" || err != nil {
		t.Errorf("a: Get(k) = %q, %v; want a", got, err)
	}
	if _, err := b.Get(ctx, "k").Result(); !errors.Is(err, redis.Nil) {
		t.Errorf("b: Get(k) error = %v, want redis.Nil: another test's data is visible", err)
	}
}

func TestDatabaseEmptiedAndFreedAtEnd(t *testing.T) {
	if os.Getenv(redistest.EnvURL) == "" {
		t.Skip("a miniredis is gone with its test; set REDIS_URL to check a shared server")
	}
	ctx := context.Background()
	var db int
	var opts *redis.Options
	t.Run("user", func(t *testing.T) {
		c := redistest.Client(t)
		opts = c.Options()
		db = opts.DB
		if err := c.Set(ctx, "left", "behind", 0).Err(); err != nil {
			t.Fatal(err)
		}
	})
	o := *opts
	c := redis.NewClient(&o)
	defer c.Close()
	if n, err := c.DBSize(ctx).Result(); n != 0 || err != nil {
		t.Errorf("database %d after the test: %d keys, %v; want 0", db, n, err)
	}
	o.DB = 0
	admin := redis.NewClient(&o)
	defer admin.Close()
	if n, err := admin.Exists(ctx, "redistest:claim:"+strconv.Itoa(db)).Result(); n != 0 || err != nil {
		t.Errorf("claim of database %d after the test: %d, %v; want released", db, n, err)
	}
}
