package gateway_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/waittest"
)

// TestRunBackgroundConsumesIdentityEvents: the gateway itself consumes
// identity.events; an event it cannot use is skipped, not retried for ever.
func TestRunBackgroundConsumesIdentityEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	k := kafkatest.Start(t)
	h := newHarness(t, options{env: map[string]string{"KAFKA_BROKERS": strings.Join(k.Brokers, ",")}})
	bg, stop := context.WithCancel(ctx)
	h.gw.RunBackground(bg)
	t.Cleanup(func() {
		stop()
		if err := h.gw.Close(ctx); err != nil {
			t.Errorf("Close: %v", err)
		}
	})

	user := randomID("user")
	token, res := h.identity.add(user, map[string]string{"o1": "admin"})
	other, _ := h.identity.add(randomID("user"), map[string]string{"o1": "read"})
	for _, tok := range []string{token, other} {
		wantStatus(t, h.do(t, http.MethodGet, "/v1/spaces/s1", tok, nil, nil), http.StatusOK)
	}
	cached := func(tok string) bool {
		n, err := h.rdb.Exists(ctx, "gateway:token:"+gateway.TokenHash(tok)).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if !cached(token) || !cached(other) {
		t.Fatal("tokens not cached")
	}

	pub := kafkax.NewPublisher(kafkax.Plain(k.Brokers))
	t.Cleanup(func() { _ = pub.Close() })
	err := pub.Publish(ctx, gateway.IdentityTopic,
		kafkax.NewEvent(identityapi.TokenRevoked, "", res.TokenID, map[string]string{"id": res.TokenID}), // neither hash nor user
		kafkax.NewEvent(identityapi.TokenRevoked, "", res.TokenID, map[string]string{"id": res.TokenID, "user": user, "hash": gateway.TokenHash(token)}))
	if err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the revoked token to leave the cache", 20*time.Second, func() bool { return !cached(token) })
	if !cached(other) {
		t.Error("another user's token left the cache")
	}
}

// TestForgetDuringResolution: a token dropped while identity is resolving
// it is not cached with that answer, which may predate the revocation or the
// role change; resolutions that start after the drop are cached again.
func TestForgetDuringResolution(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := newHarness(t, options{holdResolutions: true})
	get := func(token string) <-chan int {
		status := make(chan int, 1)
		go func() {
			req, _ := http.NewRequest(http.MethodGet, h.srv.URL+"/v1/spaces/s1", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			resp, err := h.srv.Client().Do(req)
			if err != nil {
				status <- 0
				return
			}
			_ = resp.Body.Close()
			status <- resp.StatusCode
		}()
		return status
	}
	cached := func(token string) bool {
		n, err := h.rdb.Exists(ctx, "gateway:token:"+gateway.TokenHash(token)).Result()
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	for _, tc := range []struct {
		name   string
		forget func(user, token string) error
	}{
		{"token", func(_, token string) error { return h.gw.Forget(ctx, gateway.TokenHash(token)) }},
		{"user", func(user, _ string) error { return h.gw.ForgetUser(ctx, user) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			user := randomID("user")
			token, _ := h.identity.add(user, map[string]string{"o1": "admin"})
			status := get(token)
			release := <-h.identity.hold // identity is answering
			if err := tc.forget(user, token); err != nil {
				t.Fatal(err)
			}
			close(release)
			if got := <-status; got != http.StatusOK {
				t.Fatalf("status = %d, want 200", got)
			}
			if cached(token) {
				t.Fatal("the answer of a resolution that began before the drop was cached")
			}
			status = get(token)
			close(<-h.identity.hold)
			if got := <-status; got != http.StatusOK {
				t.Fatalf("status = %d, want 200", got)
			}
			if !cached(token) {
				t.Error("a resolution that began after the drop was not cached")
			}
		})
	}
}
