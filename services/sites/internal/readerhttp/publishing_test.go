package readerhttp_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestPublishingAuthRows: SITE/publishing/auth is for the site's managers;
// its key is made once, even when first asked for by several at once;
// fallbackURL and logoutURL are set and unset; regenerate gives a new
// key; no event carries a key.
func TestPublishingAuthRows(t *testing.T) {
	e := newEnv(t)
	id, _ := e.site(`{"title":"Docs"}`)
	path := "/v1/orgs/acme/sites/" + id + "/publishing/auth"

	keys := make([]string, 5)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i] = str(e.call("ada", "GET", path, "", 200), "privateKey")
		}()
	}
	wg.Wait()
	for _, k := range keys {
		if k != keys[0] || len(k) != 43 {
			t.Fatalf("first keys %v, want one 43-character key", keys)
		}
	}
	e.call("rex", "GET", path, "", 403)
	e.call("rex", "PATCH", path, `{"logoutURL":"https://a.test/out"}`, 403)
	e.call("rex", "POST", path+"/regenerate", "", 403)
	e.call("eve", "GET", path, "", 404)
	e.call("ada", "GET", "/v1/orgs/acme/sites/nope/publishing/auth", "", 404)

	got := e.call("ada", "PATCH", path, `{"fallbackURL":"https://login.test/in","logoutURL":"https://login.test/out","backend":"custom"}`, 200)
	if str(got, "fallbackURL") != "https://login.test/in" || str(got, "logoutURL") != "https://login.test/out" || str(got, "privateKey") != keys[0] {
		t.Errorf("patched: %v", got)
	}
	got = e.call("ada", "PATCH", path, `{"fallbackURL":null}`, 200)
	if _, set := got["fallbackURL"]; set || str(got, "logoutURL") != "https://login.test/out" {
		t.Errorf("fallbackURL null: %v", got)
	}
	for body, field := range map[string]string{`{"backend":"ldap"}`: "backend", `{"logoutURL":"ftp://x.test"}`: "logoutURL",
		`{"fallbackURL":"/relative"}`: "fallbackURL", `{"fallbackURL":7}`: "fallbackURL"} {
		r := e.api.Do(as("ada"), "PATCH", path, body)
		if r.Status != 400 || !strings.Contains(string(r.Body), field) {
			t.Errorf("PATCH %s = %d %s, want a 400 naming %s", body, r.Status, r.Body, field)
		}
	}
	next := str(e.call("ada", "POST", path+"/regenerate", "", 200), "privateKey")
	if next == keys[0] || len(next) != 43 {
		t.Errorf("regenerated key %q (was %q)", next, keys[0])
	}

	var doc struct {
		Outbox []kafkax.Event `bson:"_outbox"`
	}
	if err := e.db.Collection(sitemongo.PublishingAuths).FindOne(context.Background(), bson.M{"_id": id}).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Outbox) == 0 {
		t.Fatal("no events")
	}
	for _, ev := range doc.Outbox {
		if ev.Type != sitesapi.SitePublishingAuthUpdated || strings.Contains(string(ev.Data), keys[0]) || strings.Contains(string(ev.Data), next) {
			t.Errorf("event %s carries a key: %s", ev.Type, ev.Data)
		}
	}
}
