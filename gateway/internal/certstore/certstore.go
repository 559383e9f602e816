// Package certstore keeps the gateway's TLS certificates, their keys and
// its ACME state (account, challenges in progress) in Redis: a
// certmagic.Storage every gateway replica shares, so that a certificate
// one replica obtained is served by all, a challenge one replica started
// is answered by whichever the CA reaches, and only one replica obtains a
// certificate at a time (Lock).
//
// A file is a Redis hash under prefix+"f:"+key (its value and when it was
// stored); every file key is also a member of the sorted set prefix+"keys"
// (all scores 0, ordered by the key's bytes) that List, Exists and Delete
// of a "directory" read by range. A lock is a key prefix+"lock:"+name
// holding its holder's random token, which expires after LockTTL unless
// its holder, still alive, extends it: a replica that dies holding a lock
// blocks the others for LockTTL at most.
package certstore

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/certmagic"
	"github.com/redis/go-redis/v9"
)

// Bounds of what is kept and read.
const (
	// MaxValueBytes bounds a stored value: a certificate chain, a key or an
	// ACME resource is a few kilobytes.
	MaxValueBytes = 256 << 10
	// MaxKeyBytes bounds a key.
	MaxKeyBytes = 1024
	// MaxListed bounds the keys a List or a Delete of a directory reads:
	// three files per certificate, for far more hostnames than a platform
	// serves.
	MaxListed = 100_000
	// listBatch is how many keys one range read returns.
	listBatch = 1000
)

// Lock timings.
const (
	// LockTTL is how long a lock outlives a holder that stopped extending it.
	LockTTL = 30 * time.Second
	// LockPoll is how often a replica waiting for a lock tries again.
	LockPoll = 250 * time.Millisecond
)

// ErrTooLarge is a value or key over its bound, or a directory with more
// than MaxListed keys.
var ErrTooLarge = errors.New("certstore: over the bound")

// Storage is a certmagic.Storage over Redis; safe for concurrent use.
type Storage struct {
	rdb    redis.Cmdable
	prefix string
	ttl    time.Duration
	poll   time.Duration

	mu   sync.Mutex
	held map[string]*heldLock // by lock name: the locks this value holds
}

var _ certmagic.Storage = (*Storage)(nil)

// heldLock is a lock this Storage holds: its token, and how to stop
// extending it.
type heldLock struct {
	token string
	stop  context.CancelFunc
	done  chan struct{}
}

// New returns the storage under prefix (like "docspub:certmagic:") of rdb.
func New(rdb redis.Cmdable, prefix string) *Storage {
	return &Storage{rdb: rdb, prefix: prefix, ttl: LockTTL, poll: LockPoll, held: map[string]*heldLock{}}
}

// WithLockTiming returns s with other lock timings (tests of expiry).
func (s *Storage) WithLockTiming(ttl, poll time.Duration) *Storage {
	s.ttl, s.poll = ttl, poll
	return s
}

func (s *Storage) fileKey(key string) string { return s.prefix + "f:" + key }
func (s *Storage) indexKey() string          { return s.prefix + "keys" }
func (s *Storage) lockKey(name string) string {
	return s.prefix + "lock:" + name
}

// clean is key without leading or trailing slashes, checked.
func clean(key string) (string, error) {
	key = strings.Trim(key, "/")
	if key == "" || len(key) > MaxKeyBytes {
		return "", fmt.Errorf("%w: key of %d bytes (1 to %d)", ErrTooLarge, len(key), MaxKeyBytes)
	}
	return key, nil
}

// Store puts value at key.
func (s *Storage) Store(ctx context.Context, key string, value []byte) error {
	key, err := clean(key)
	if err != nil {
		return err
	}
	if len(value) > MaxValueBytes {
		return fmt.Errorf("%w: %s: value of %d bytes, more than %d", ErrTooLarge, key, len(value), MaxValueBytes)
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, s.fileKey(key), "v", value, "m", time.Now().UnixNano())
		p.ZAdd(ctx, s.indexKey(), redis.Z{Member: key})
		return nil
	})
	return err
}

// Load returns the value at key; fs.ErrNotExist when there is none.
func (s *Storage) Load(ctx context.Context, key string) ([]byte, error) {
	key, err := clean(key)
	if err != nil {
		return nil, err
	}
	v, err := s.rdb.HGet(ctx, s.fileKey(key), "v").Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, fs.ErrNotExist
	}
	return v, err
}

// Delete removes key and, when it is a directory, every key under it.
func (s *Storage) Delete(ctx context.Context, key string) error {
	key, err := clean(key)
	if err != nil {
		return err
	}
	under, err := s.keysUnder(ctx, key)
	if err != nil {
		return err
	}
	keys := append(under, key)
	for len(keys) > 0 {
		n := min(len(keys), listBatch)
		batch := keys[:n]
		keys = keys[n:]
		_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			members := make([]any, len(batch))
			for i, k := range batch {
				p.Del(ctx, s.fileKey(k))
				members[i] = k
			}
			p.ZRem(ctx, s.indexKey(), members...)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Exists tells whether key is a file or a directory.
func (s *Storage) Exists(ctx context.Context, key string) bool {
	key, err := clean(key)
	if err != nil {
		return false
	}
	if n, err := s.rdb.Exists(ctx, s.fileKey(key)).Result(); err == nil && n > 0 {
		return true
	}
	return s.isDir(ctx, key)
}

// isDir tells whether any file is under key.
func (s *Storage) isDir(ctx context.Context, key string) bool {
	lo, hi := dirRange(key)
	ks, err := s.rdb.ZRangeByLex(ctx, s.indexKey(), &redis.ZRangeBy{Min: lo, Max: hi, Count: 1}).Result()
	return err == nil && len(ks) > 0
}

// dirRange is the lexical range of the keys under dir: from "dir/"
// to just before "dir0" ('0' follows '/').
func dirRange(dir string) (string, string) {
	return "[" + dir + "/", "(" + dir + "0"
}

// List returns the keys in dir: its files and directories, or with
// recursive every file and directory below it.
func (s *Storage) List(ctx context.Context, dir string, recursive bool) ([]string, error) {
	dir, err := clean(dir)
	if err != nil {
		return nil, err
	}
	files, err := s.keysUnder(ctx, dir)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fs.ErrNotExist
	}
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		rest := strings.Split(strings.TrimPrefix(f, dir+"/"), "/")
		if !recursive {
			rest = rest[:1]
		}
		for i := range rest {
			k := dir + "/" + strings.Join(rest[:i+1], "/")
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	return out, nil
}

// keysUnder returns the file keys under dir, in order; more than MaxListed
// is ErrTooLarge.
func (s *Storage) keysUnder(ctx context.Context, dir string) ([]string, error) {
	lo, hi := dirRange(dir)
	var out []string
	for {
		ks, err := s.rdb.ZRangeByLex(ctx, s.indexKey(), &redis.ZRangeBy{Min: lo, Max: hi, Count: listBatch}).Result()
		if err != nil {
			return nil, err
		}
		out = append(out, ks...)
		if len(out) > MaxListed {
			return nil, fmt.Errorf("%w: more than %d keys under %s", ErrTooLarge, MaxListed, dir)
		}
		if len(ks) < listBatch {
			return out, nil
		}
		lo = "(" + ks[len(ks)-1]
	}
}

// Stat describes key: a file (its size and when it was stored) or a
// directory; fs.ErrNotExist when it is neither.
func (s *Storage) Stat(ctx context.Context, key string) (certmagic.KeyInfo, error) {
	key, err := clean(key)
	if err != nil {
		return certmagic.KeyInfo{}, err
	}
	var m *redis.StringCmd
	var size *redis.IntCmd
	_, err = s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		m = p.HGet(ctx, s.fileKey(key), "m")
		size = p.HStrLen(ctx, s.fileKey(key), "v")
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return certmagic.KeyInfo{}, err
	}
	if nanos, err := strconv.ParseInt(m.Val(), 10, 64); err == nil {
		return certmagic.KeyInfo{Key: key, Modified: time.Unix(0, nanos), Size: size.Val(), IsTerminal: true}, nil
	}
	if s.isDir(ctx, key) {
		return certmagic.KeyInfo{Key: key, IsTerminal: false}, nil
	}
	return certmagic.KeyInfo{}, fs.ErrNotExist
}

// unlockScript deletes a lock only if it holds the caller's token;
// extendScript extends it only then.
var (
	unlockScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)
	extendScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("PEXPIRE", KEYS[1], ARGV[2]) end return 0`)
)

// Lock takes the lock name, waiting while another holder (this replica or
// another) has it, until ctx is done. While held it is extended every
// third of its TTL, so that only a holder that died lets it expire.
func (s *Storage) Lock(ctx context.Context, name string) error {
	token := rand.Text()
	key := s.lockKey(name)
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
		ok, err := s.rdb.SetNX(ctx, key, token, s.ttl).Result()
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil && ok {
			s.hold(name, token)
			return nil
		}
		// A Redis failure is waited out like a held lock.
		t.Reset(s.poll)
	}
}

// hold records the lock name as held with token and extends it until
// Unlock.
func (s *Storage) hold(name, token string) {
	ctx, stop := context.WithCancel(context.Background())
	h := &heldLock{token: token, stop: stop, done: make(chan struct{})}
	s.mu.Lock()
	s.held[name] = h
	s.mu.Unlock()
	go func() {
		defer close(h.done)
		t := time.NewTicker(s.ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			n, err := extendScript.Run(ctx, s.rdb, []string{s.lockKey(name)}, token, s.ttl.Milliseconds()).Int()
			if err == nil && n == 0 {
				return // lost (expired meanwhile): nothing left to extend
			}
		}
	}()
}

// Unlock releases the lock name if this Storage holds it.
func (s *Storage) Unlock(ctx context.Context, name string) error {
	s.mu.Lock()
	h, ok := s.held[name]
	delete(s.held, name)
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("certstore: lock %q is not held here", name)
	}
	h.stop()
	<-h.done
	return unlockScript.Run(ctx, s.rdb, []string{s.lockKey(name)}, h.token).Err()
}
