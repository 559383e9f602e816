package auth_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docspub/platform/gateway/internal/auth"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/embedded"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalclient"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/redis/go-redis/v9"
)

// TestAuthenticate: a token identity knows resolves to its principal and
// is cached (identity is asked once), an unknown one is ErrUnknownToken and
// cached as unknown, and Forget and ForgetUser make the next request ask
// identity again.
func TestAuthenticate(t *testing.T) {
	mr, err := embedded.StartRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mr.Close)
	rdb := redis.NewClient(&redis.Options{Addr: mr.Addr()})
	t.Cleanup(func() { _ = rdb.Close() })

	var asked atomic.Int64
	identity := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		var req identityapi.ResolveRequest
		if r.URL.Path != identityapi.ResolvePath || json.NewDecoder(r.Body).Decode(&req) != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if req.Token != "good" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"message":"unknown token"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"userId":"u1","tokenId":"t1","roles":{"org1":"admin"}}`))
	}))
	t.Cleanup(identity.Close)
	signer, err := internaltoken.NewSigner("gateway", "test-secret-test-secret-test-secret-0123", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	var redisFailures atomic.Int64
	tokens := auth.New(rdb, internalclient.New("identity", discovery.Static{"identity": identity.URL}, signer, auth.MaxResolveTime),
		time.Minute, func(context.Context, string, error) { redisFailures.Add(1) })
	ctx := context.Background()

	steps := []struct {
		name   string
		token  string
		before func() error
		user   string
		asks   int64
	}{
		{name: "known", token: "good", user: "u1", asks: 1},
		{name: "known, cached", token: "good", user: "u1", asks: 0},
		{name: "unknown", token: "bad", asks: 1},
		{name: "unknown, cached", token: "bad", asks: 0},
		{name: "forgotten token", token: "good", before: func() error { return tokens.Forget(ctx, auth.TokenHash("good")) }, user: "u1", asks: 1},
		{name: "forgotten user", token: "good", before: func() error { return tokens.ForgetUser(ctx, "u1") }, user: "u1", asks: 1},
		{name: "cached again", token: "good", user: "u1", asks: 0},
	}
	for _, st := range steps {
		if st.before != nil {
			if err := st.before(); err != nil {
				t.Fatalf("%s: %v", st.name, err)
			}
		}
		before := asked.Load()
		p, err := tokens.Authenticate(ctx, st.token, auth.TokenHash(st.token), "192.0.2.1")
		switch {
		case st.user == "" && !errors.Is(err, auth.ErrUnknownToken):
			t.Errorf("%s: %v, want ErrUnknownToken", st.name, err)
		case st.user != "" && (err != nil || p.UserID != st.user || p.Roles["org1"] != "admin" || p.TokenID != "t1"):
			t.Errorf("%s: %+v, %v; want the principal of u1", st.name, p, err)
		}
		if got := asked.Load() - before; got != st.asks {
			t.Errorf("%s: identity asked %d times, want %d", st.name, got, st.asks)
		}
	}
	if n := redisFailures.Load(); n != 0 {
		t.Errorf("%d Redis failures", n)
	}
}
