package content_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// running is a content service started in-process on a database, serving
// HTTP on loopback, with its background work (relay, operations worker).
type running struct {
	app    *content.App
	srv    *httptest.Server
	cancel context.CancelFunc
}

func start(t *testing.T, cfg content.Config) *running {
	t.Helper()
	app, err := content.New(context.Background(), cfg, logx.ForTest(t), content.WithOperationLease(time.Second), content.WithMigrations(false))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	app.RunBackground(ctx)
	return &running{app: app, srv: httptest.NewServer(app.Handler()), cancel: cancel}
}

// crash stops the service as a dying process would: its database connection
// goes first, so nothing is handed back or finished; then everything stops.
func (r *running) crash() {
	_ = r.app.Close(context.Background())
	r.cancel()
	r.srv.Close()
}

func (r *running) stop() {
	r.cancel()
	r.srv.Close()
	_ = r.app.Close(context.Background())
}

type tokenCaller struct {
	t   *testing.T
	tok string
}

func (c tokenCaller) do(ctx context.Context, base, method, path, body string) (int, string, error) {
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set(internaltoken.Header, c.tok)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

func (c tokenCaller) must(base, method, path, body string, status int) string {
	c.t.Helper()
	got, b, err := c.do(context.Background(), base, method, path, body)
	if err != nil || got != status {
		c.t.Fatalf("%s %s = %d %s %v; want %d", method, path, got, b, err, status)
	}
	return b
}

func idOf(t *testing.T, body string) string {
	t.Helper()
	var v struct {
		ID string `json:"id"`
	}
	if err := bson.UnmarshalExtJSON([]byte(body), false, &v); err != nil || v.ID == "" {
		t.Fatalf("no id in %s: %v", body, err)
	}
	return v.ID
}

type placed struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Parent       string `bson:"parent"`
	Version      int64  `bson:"version"`
}

func all(t *testing.T, db *mongo.Database, coll string) []placed {
	t.Helper()
	cur, err := db.Collection(coll).Find(context.Background(), bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	var out []placed
	if err := cur.All(context.Background(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A transfer of a 250-space collection tree to another organization, with
// the service killed half-way and started again on the same database: the
// operation resumes, every space ends in the target organization exactly
// once under its parent, every space and collection published its
// transferred event with the new organization, and repeating the request
// answers 200 and changes nothing.
func TestTransferResumesAfterCrash(t *testing.T) {
	k := kafkatest.Start(t)
	cfg := content.Config{Base: libservice.Base{MongoURI: mongotest.URI(t), Kafka: kafkax.Config{Brokers: k.Brokers}, InternalTokenSecret: secret, LogLevel: "error"},
		URLs: libservice.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: mongotest.DatabaseName(), PurgeInterval: time.Hour, BlobURL: blobtest.Dir(t)}
	signer, err := internaltoken.NewSigner("gateway", secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	tok, err := signer.Mint("content", internaltoken.Principal{UserID: "ada", Roles: map[string]string{"org1": "admin", "org2": "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	ada := tokenCaller{t: t, tok: tok}

	first := start(t, cfg)
	// The test reads the database through its own client: the service's
	// goes away with the crash.
	db := mongotest.Client(t).Database(cfg.Database)
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	began := time.Now()
	base := first.srv.URL
	// The tree: root ─ a ─ a1, root ─ b ─ b1; 50 spaces in each.
	root := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"Root"}`, 201))
	a := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"A","parent":"`+root+`"}`, 201))
	b := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"B","parent":"`+root+`"}`, 201))
	a1 := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"A1","parent":"`+a+`"}`, 201))
	b1 := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"B1","parent":"`+b+`"}`, 201))
	parentOf := map[string]string{root: "", a: root, b: root, a1: a, b1: b}
	spaceParent := map[string]string{}
	for _, col := range []string{root, a, b, a1, b1} {
		for i := range 50 {
			id := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/spaces", fmt.Sprintf(`{"title":"S%d","parent":"%s"}`, i, col), 201))
			spaceParent[id] = col
		}
	}

	t.Logf("tree created in %v", time.Since(began))
	// The client asks for the transfer and gives up after a moment; the
	// service dies once some spaces moved.
	moved := func() int64 {
		n, err := db.Collection("spaces").CountDocuments(context.Background(), bson.M{"organization": "org2"})
		if err != nil {
			return -1
		}
		return n
	}
	reqCtx, giveUp := context.WithCancel(context.Background())
	answered := make(chan int, 1)
	go func() {
		status, _, _ := ada.do(reqCtx, base, "POST", "/v1/collections/"+root+"/transfer", `{"organization":"org2"}`)
		answered <- status
	}()
	waittest.Until(t, "the transfer to move some spaces", 60*time.Second, func() bool { return moved() >= 20 })
	giveUp()
	first.crash()
	atCrash := moved()
	if atCrash >= 250 {
		t.Fatalf("the transfer finished (%d spaces) before the crash; nothing to resume", atCrash)
	}
	t.Logf("crashed with %d of 250 spaces moved", atCrash)
	if status := <-answered; status == http.StatusOK {
		t.Fatalf("the interrupted request answered 200")
	}

	second := start(t, cfg)
	defer second.stop()
	began = time.Now()
	// Resuming takes about 20-30 s on an idle 2-core machine; the deadline
	// leaves room for a CI machine running other packages at once.
	waittest.Until(t, "the resumed transfer to finish", 4*time.Minute, func() bool {
		var c placed
		err := db.Collection("collections").FindOne(context.Background(), bson.M{"_id": root}).Decode(&c)
		return err == nil && c.Organization == "org2"
	})

	t.Logf("resumed and finished in %v", time.Since(began))
	spaces := all(t, db, "spaces")
	if len(spaces) != 250 {
		t.Errorf("%d spaces stored, want 250", len(spaces))
	}
	seen := map[string]bool{}
	for _, sp := range spaces {
		if seen[sp.ID] {
			t.Errorf("space %s stored twice", sp.ID)
		}
		seen[sp.ID] = true
		if sp.Organization != "org2" || sp.Parent != spaceParent[sp.ID] {
			t.Errorf("space %s in %s under %q, want org2 under %q", sp.ID, sp.Organization, sp.Parent, spaceParent[sp.ID])
		}
	}
	for _, c := range all(t, db, "collections") {
		if c.Organization != "org2" || c.Parent != parentOf[c.ID] {
			t.Errorf("collection %s in %s under %q, want org2 under %q", c.ID, c.Organization, c.Parent, parentOf[c.ID])
		}
	}
	waittest.Until(t, "the transfer operation to be done", 30*time.Second, func() bool {
		n, err := db.Collection("operations").CountDocuments(context.Background(), bson.M{"kind": "collection.transfer", "state": "done"})
		return err == nil && n == 1
	})
	if n, _ := db.Collection("operations").CountDocuments(context.Background(), bson.M{}); n != 1 {
		t.Errorf("%d operations recorded, want the one transfer", n)
	}

	// Repeating the request answers 200 and changes nothing.
	ada.must(second.srv.URL, "POST", "/v1/collections/"+root+"/transfer", `{"organization":"org2"}`, 200)
	again := all(t, db, "spaces")
	versions := map[string]int64{}
	for _, sp := range spaces {
		versions[sp.ID] = sp.Version
	}
	for _, sp := range again {
		if sp.Version != versions[sp.ID] || sp.Organization != "org2" {
			t.Errorf("space %s changed by the repeated transfer", sp.ID)
		}
	}

	// Every space and collection published its transfer with the new organization.
	waittest.Until(t, "the outbox to drain", 30*time.Second, func() bool {
		n, err := db.Collection("spaces").CountDocuments(context.Background(), bson.M{"_outbox.0": bson.M{"$exists": true}})
		return err == nil && n == 0
	})
	want := 255 + 255 // created, then transferred
	transferred := map[string]bool{}
	for range 3 {
		transferred = map[string]bool{}
		for _, ev := range kafkatest.ReadN(t, k.Brokers, content.Topic, want, 30*time.Second) {
			if strings.HasSuffix(ev.Type, ".transferred") && ev.Organization == "org2" {
				transferred[ev.Subject] = true
			}
		}
		if len(transferred) == 255 {
			break
		}
		want += 255 - len(transferred) // duplicates (at-least-once) came first
	}
	if len(transferred) != 255 {
		t.Errorf("%d spaces and collections published their transfer to org2, want 255", len(transferred))
	}
}
