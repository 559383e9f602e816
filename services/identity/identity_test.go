package identity_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/identity"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

const secret = "0123456789abcdef0123456789abcdef-test"

func TestConfigValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  identity.Config
		want []string
	}{
		{"valid", identity.Config{Base: service.Base{MongoURI: "m", Kafka: kafkax.Config{Brokers: []string{"k"}}, InternalTokenSecret: secret, LogLevel: "info"},
			URLs: service.URLs{PublicURL: "http://x", AppURL: "http://x/app"},
			Addr: ":1", Database: "d"}, nil},
		{"everything wrong", identity.Config{Base: service.Base{InternalTokenSecret: "short", LogLevel: "loud"},
			URLs: service.URLs{PublicURL: "nope"}},
			[]string{"IDENTITY_ADDR", "MONGO_URI", "IDENTITY_DB", "KAFKA_BROKERS", "INTERNAL_TOKEN_SECRET", "PUBLIC_URL", "APP_URL", "LOG_LEVEL"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if (err != nil) != (len(tc.want) > 0) {
				t.Fatalf("Validate() = %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %s", err, w)
				}
			}
		})
	}
}

// newApp wires identity on a fresh database of the package's server, with
// Kafka at brokers; the database is dropped at the end.
func newApp(t *testing.T, brokers []string) *identity.App {
	t.Helper()
	cfg := identity.Config{Base: service.Base{MongoURI: mongotest.URI(t), Kafka: kafkax.Config{Brokers: brokers}, InternalTokenSecret: secret, LogLevel: "info"},
		URLs: service.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: mongotest.DatabaseName()}
	app, err := identity.New(context.Background(), cfg, logx.ForTest(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = app.Database().Drop(context.Background())
		_ = app.Close(context.Background())
	})
	return app
}

// TestRelayDeliversMemberUpdated changes a member through the API of a
// running service and reads member.updated back from Kafka.
func TestRelayDeliversMemberUpdated(t *testing.T) {
	k := kafkatest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	app := newApp(t, k.Brokers)

	admin, err := identity.Bootstrap(ctx, app.Database(), identity.BootstrapInput{OrganizationTitle: "Acme", UserDisplayName: "Ada", UserEmail: "ada@acme.test", Role: roles.Admin})
	if err != nil {
		t.Fatal(err)
	}
	rex, err := identity.Bootstrap(ctx, app.Database(), identity.BootstrapInput{OrganizationID: admin.OrganizationID, UserDisplayName: "Rex", UserEmail: "rex@acme.test", Role: roles.Read})
	if err != nil {
		t.Fatal(err)
	}
	app.RunBackground(ctx)

	signer, err := internaltoken.NewSigner("gateway", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := signer.Mint(identity.Name, internaltoken.Principal{UserID: admin.UserID})
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest("PATCH", "/v1/orgs/"+admin.OrganizationID+"/members/"+rex.UserID, strings.NewReader(`{"role":"edit"}`))
	req.Header.Set(internaltoken.Header, tok)
	w := httptest.NewRecorder()
	app.Handler().ServeHTTP(w, req)
	if w.Code != http.StatusOK {
		t.Fatalf("patch member: %d %s", w.Code, w.Body)
	}

	// Bootstrap: organization.created, user.created, member.created,
	// token.created; then user.created, member.created, token.created; then
	// the API change: member.updated.
	events := kafkatest.ReadN(t, k.Brokers, identity.Topic, 8, 20*time.Second)
	var found bool
	for _, ev := range events {
		if ev.Type != identityapi.MemberUpdated {
			continue
		}
		var m struct {
			ID   string `json:"id"`
			Role string `json:"role"`
		}
		if err := json.Unmarshal(ev.Data, &m); err != nil {
			t.Fatal(err)
		}
		if ev.Subject != rex.UserID || ev.Organization != admin.OrganizationID || m.ID != rex.UserID || m.Role != "edit" {
			t.Errorf("member.updated = %+v, data %s", ev, ev.Data)
		}
		found = true
	}
	if !found {
		var types []string
		for _, ev := range events {
			types = append(types, ev.Type)
		}
		t.Fatalf("no member.updated among %v", types)
	}
}

// TestTokensForIdentityOnly: identity's routes, token resolution included,
// accept only internal tokens minted for identity.
func TestTokensForIdentityOnly(t *testing.T) {
	ctx := context.Background()
	app := newApp(t, []string{"127.0.0.1:1"})
	admin, err := identity.Bootstrap(ctx, app.Database(), identity.BootstrapInput{OrganizationTitle: "Acme", UserDisplayName: "Ada", UserEmail: "ada@acme.test", Role: roles.Admin})
	if err != nil {
		t.Fatal(err)
	}
	gateway, err := internaltoken.NewSigner("gateway", secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	do := func(aud string, p internaltoken.Principal, method, path, body string) int {
		t.Helper()
		tok, err := gateway.Mint(aud, p)
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set(internaltoken.Header, tok)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		app.Handler().ServeHTTP(w, req)
		return w.Code
	}
	resolve := `{"token":"` + admin.Token + `"}`
	asGateway := internaltoken.Principal{Service: "gateway"}
	asAdmin := internaltoken.Principal{UserID: admin.UserID}
	for _, tc := range []struct {
		name, aud    string
		p            internaltoken.Principal
		method, path string
		body         string
		want         int
	}{
		{"resolve, for identity", identity.Name, asGateway, "POST", "/internal/v1/tokens/resolve", resolve, http.StatusOK},
		{"resolve, for content", "content", asGateway, "POST", "/internal/v1/tokens/resolve", resolve, http.StatusUnauthorized},
		{"resolve, for sites", "sites", asGateway, "POST", "/internal/v1/tokens/resolve", resolve, http.StatusUnauthorized},
		{"resolve, from sites", identity.Name, internaltoken.Principal{Service: "sites"}, "POST", "/internal/v1/tokens/resolve", resolve, http.StatusForbidden},
		{"resolve, for a user", identity.Name, asAdmin, "POST", "/internal/v1/tokens/resolve", resolve, http.StatusForbidden},
		{"api, for identity", identity.Name, asAdmin, "GET", "/v1/user", "", http.StatusOK},
		{"api, for content", "content", asAdmin, "GET", "/v1/user", "", http.StatusUnauthorized},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := do(tc.aud, tc.p, tc.method, tc.path, tc.body); got != tc.want {
				t.Errorf("%s %s with a token for %s: %d, want %d", tc.method, tc.path, tc.aud, got, tc.want)
			}
		})
	}
}
