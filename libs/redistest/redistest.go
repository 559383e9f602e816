// Package redistest gives each test its own empty Redis database, reached
// through the real go-redis client. Without configuration it starts an
// embedded miniredis per test; with the environment variable REDIS_URL set
// (CI runs Debian's redis-server) it claims a free numbered database on that
// server for the test, empties it, and empties and frees it at the end, so
// tests of several packages can share one server.
package redistest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/docspub/platform/libs/embedded"
	"github.com/redis/go-redis/v9"
)

// EnvURL names the environment variable of a real Redis server.
const EnvURL = "REDIS_URL"

const (
	claimPrefix = "redistest:claim:" // in database 0: who uses database N
	claimTTL    = 10 * time.Minute   // a crashed test's claim expires
	claimWait   = time.Minute        // how long to wait for a free database
)

// Client returns a client of a Redis database that only this test uses,
// empty at the start; it is closed (and the database emptied) when the test ends.
func Client(t testing.TB) *redis.Client {
	t.Helper()
	if url := os.Getenv(EnvURL); url != "" {
		return claim(t, url)
	}
	srv, err := embedded.StartRedis("")
	if err != nil {
		t.Fatalf("redistest: %v", err)
	}
	t.Cleanup(srv.Close)
	c := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// release deletes a claim only if it is still ours.
var release = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

func claim(t testing.TB, url string) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatalf("redistest: %s: %v", EnvURL, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), claimWait)
	defer cancel()

	o0 := *opts
	o0.DB = 0
	admin := redis.NewClient(&o0)
	defer admin.Close()
	n := databases(ctx, admin)
	token := newToken()
	for {
		for db := 1; db < n; db++ {
			key := claimPrefix + strconv.Itoa(db)
			ok, err := admin.SetNX(ctx, key, token, claimTTL).Result()
			if err != nil {
				t.Fatalf("redistest: claim a database on %s: %v", opts.Addr, err)
			}
			if !ok {
				continue
			}
			o := *opts
			o.DB = db
			c := redis.NewClient(&o)
			if err := c.FlushDB(ctx).Err(); err != nil {
				_ = c.Close()
				t.Fatalf("redistest: empty database %d: %v", db, err)
			}
			t.Cleanup(func() {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				if err := c.FlushDB(ctx).Err(); err != nil {
					t.Errorf("redistest: empty database %d: %v", db, err)
				}
				_ = c.Close()
				a := redis.NewClient(&o0)
				defer a.Close()
				_ = release.Run(ctx, a, []string{key}, token).Err()
			})
			return c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("redistest: no free database among 1..%d on %s within %s", n-1, opts.Addr, claimWait)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// databases returns how many numbered databases the server has (16 when
// the server does not tell).
func databases(ctx context.Context, c *redis.Client) int {
	res, err := c.ConfigGet(ctx, "databases").Result()
	if err != nil {
		return 16
	}
	n, err := strconv.Atoi(res["databases"])
	if err != nil || n < 2 {
		return 16
	}
	return n
}

func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return fmt.Sprintf("%s@%d", hex.EncodeToString(b[:]), os.Getpid())
}
