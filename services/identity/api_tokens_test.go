package identity

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/token"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestTokens(t *testing.T) {
	e := newEnv(t)
	org, admin, raw := e.seed("", "ada@acme.test", roles.Admin)
	org2, _, _ := e.seed("", "bob@acme.test", roles.Admin)
	// Bootstrap reuses a user by e-mail: ada joins the second organization.
	if _, again, _ := e.seed(org2, "ada@acme.test", roles.Read); again != admin {
		t.Fatalf("bootstrap made user %s, want %s reused", again, admin)
	}
	if !strings.HasPrefix(raw, token.Prefix) || len(raw) < 40 {
		t.Fatalf("raw token %q", raw)
	}

	// The raw token is nowhere in the database; its hash is.
	cur, err := e.db.Collection("tokens").Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var docs []bson.M
	if err := cur.All(context.Background(), &docs); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range docs {
		ext, _ := bson.MarshalExtJSON(d, false, false)
		if strings.Contains(string(ext), raw) || strings.Contains(string(ext), strings.TrimPrefix(raw, token.Prefix)) {
			t.Fatalf("raw token stored: %s", ext)
		}
		if d["hash"] == token.Hash(raw) {
			found = true
		}
	}
	if !found {
		t.Fatal("token hash not stored")
	}

	gateway := internaltoken.Principal{Service: "gateway"}
	resolve := func(p internaltoken.Principal, tok string) (int, []byte) {
		r := e.api.Do(p, "POST", "/internal/v1/tokens/resolve", `{"token":"`+tok+`"}`)
		return r.Status, r.Body
	}
	code, b := resolve(gateway, raw)
	if code != http.StatusOK {
		t.Fatalf("resolve: %d %s", code, b)
	}
	res := apitest.Decode[token.Resolved](t, b)
	if res.UserID != admin || res.TokenID == "" || res.Roles[org] != "admin" || res.Roles[org2] != "read" {
		t.Errorf("resolved = %+v", res)
	}
	for _, tc := range []struct {
		name string
		p    internaltoken.Principal
		tok  string
		want int
	}{
		{"unknown token", gateway, "dp_nope", 401},
		{"empty token", gateway, "", 401},
		{"not the gateway", internaltoken.Principal{Service: "content"}, raw, 403},
		{"a user", internaltoken.Principal{UserID: admin}, raw, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, b := resolve(tc.p, tc.tok); code != tc.want {
				t.Errorf("status %d, want %d: %s", code, tc.want, b)
			}
		})
	}

	if err := e.tokens.Revoke(context.Background(), res.TokenID); err != nil {
		t.Fatal(err)
	}
	if code, b := resolve(gateway, raw); code != http.StatusUnauthorized {
		t.Errorf("revoked token: %d %s", code, b)
	}
	var tok bson.M
	if err := e.db.Collection("tokens").FindOne(context.Background(), bson.M{"_id": res.TokenID}).Decode(&tok); err != nil {
		t.Fatal(err)
	}
	var pending struct {
		Outbox []struct {
			Type string `bson:"type"`
		} `bson:"_outbox"`
	}
	raw2, _ := bson.Marshal(tok)
	_ = bson.Unmarshal(raw2, &pending)
	if n := len(pending.Outbox); n == 0 || pending.Outbox[n-1].Type != identityapi.TokenRevoked {
		t.Errorf("revocation event not pending on the token: %+v", pending)
	}
}
