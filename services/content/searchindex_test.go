package content_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/docspub/platform/libs/kafkax"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/kafkatest"
	"github.com/docspub/platform/libs/mongotest"
	libservice "github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/content/internal/searchmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// searchHits asks GET /v1/orgs/{org}/search for query and returns the ids
// of the spaces found and, by space, the titles of their pages.
func searchHits(t *testing.T, c tokenCaller, base, org, query string) map[string][]string {
	t.Helper()
	body := c.must(base, "GET", "/v1/orgs/"+org+"/search?query="+url.QueryEscape(query), "", http.StatusOK)
	contracttest.ValidateOperation(t, "searchOrganizationContent", http.StatusOK, []byte(body))
	var res struct {
		Items []struct {
			ID    string `json:"id"`
			Pages []struct {
				Title string `json:"title"`
			} `json:"pages"`
		} `json:"items"`
	}
	if err := json.Unmarshal([]byte(body), &res); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, it := range res.Items {
		for _, p := range it.Pages {
			out[it.ID] = append(out[it.ID], p.Title)
		}
	}
	return out
}

// searchConfig configures a content service on databases of its own, its
// database and its search database, both dropped after the test.
func searchConfig(t *testing.T) (cfg content.Config, db, searchDB *mongo.Database) {
	k := kafkatest.Start(t)
	cfg = content.Config{Base: libservice.Base{MongoURI: mongotest.URI(t), Kafka: kafkax.Config{Brokers: k.Brokers}, InternalTokenSecret: secret, LogLevel: "error"},
		URLs: libservice.URLs{PublicURL: "http://gw.test", AppURL: "http://gw.test/app"},
		Addr: "127.0.0.1:0", Database: mongotest.DatabaseName(), PurgeInterval: time.Hour, BlobURL: blobtest.Dir(t)}
	client := mongotest.Client(t)
	db = client.Database(cfg.Database)
	searchDB = client.Database(cfg.Database + searchmongo.DatabaseSuffix)
	t.Cleanup(func() {
		_ = db.Drop(context.Background())
		_ = searchDB.Drop(context.Background())
	})
	return cfg, db, searchDB
}

// Content that arrives through Git sync is found by the API search: the
// import indexes the space (and a duplicate of it its copy) through the
// one reindex operation; and a space whose index went missing (an
// installation that synced it before imports were indexed) is reindexed by
// the catch-up at the next start.
func TestGitImportIsSearchable(t *testing.T) {
	cfg, db, searchDB := searchConfig(t)
	signer, err := internaltoken.NewSigner("gateway", secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	userTok, err := signer.Mint("content", internaltoken.Principal{UserID: "ada", Roles: map[string]string{"org1": "admin"}})
	if err != nil {
		t.Fatal(err)
	}
	svcTok, err := signer.Mint("content", internaltoken.Principal{Service: "integrations"})
	if err != nil {
		t.Fatal(err)
	}
	ada, integrations := tokenCaller{t: t, tok: userTok}, tokenCaller{t: t, tok: svcTok}

	first := start(t, cfg)
	base := first.srv.URL
	sp := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/spaces", `{"title":"Handbook"}`, http.StatusCreated))
	var head struct {
		Revision string `json:"revision"`
	}
	if err := json.Unmarshal([]byte(integrations.must(base, "GET", "/internal/v1/spaces/"+sp+"/git/content", "", http.StatusOK)), &head); err != nil {
		t.Fatal(err)
	}
	// What a Git import hands content: the pages of the repository.
	rev := `{"parent":"` + head.Revision + `","pages":[
		{"kind":"document","title":"Wildlife","slug":"wildlife","markdown":"# Wildlife\n\nThe quokka lives on Rottnest Island.\n\n## Diet\n\nMostly leaves of shrubs.\n","pages":[]},
		{"kind":"document","title":"Setup","slug":"setup","markdown":"Install the toolkit first.\n","pages":[]}],
		"files":[],"git":{"oid":"0123456789abcdef0123456789abcdef01234567","message":"import"}}`
	integrations.must(base, "POST", "/internal/v1/spaces/"+sp+"/git/revisions", rev, http.StatusCreated)

	hits := searchHits(t, ada, base, "org1", "quokka")
	if got := hits[sp]; len(got) != 1 || got[0] != "Wildlife" {
		t.Fatalf("search quokka after the Git import = %v, want the page Wildlife of %s", hits, sp)
	}
	if hits := searchHits(t, ada, base, "org1", "toolkit"); len(hits[sp]) != 1 {
		t.Fatalf("search toolkit = %v, want the page Setup", hits)
	}

	// A duplicate is searchable as soon as it exists.
	cp := idOf(t, ada.must(base, "POST", "/v1/spaces/"+sp+"/duplicate", "", http.StatusCreated))
	waittest.Until(t, "the duplicate to be found", 30*time.Second, func() bool {
		return len(searchHits(t, ada, base, "org1", "quokka")[cp]) == 1
	})
	first.stop()

	// An installation that synced the space before imports were indexed:
	// no index of it. The catch-up at start indexes it, once.
	store := searchmongo.NewStore(searchDB)
	if err := store.RemoveSpace(context.Background(), sp); err != nil {
		t.Fatal(err)
	}
	second := start(t, cfg)
	defer second.stop()
	waittest.Until(t, "the catch-up to index the space again", 30*time.Second, func() bool {
		return len(searchHits(t, ada, second.srv.URL, "org1", "quokka")[sp]) == 1
	})
	// The index records the revision it was built from: the space's. Its
	// entries are found while the catch-up finishes the record, so the
	// record is waited for.
	var space, indexed struct {
		Revision string `bson:"revision"`
	}
	if err := db.Collection("spaces").FindOne(context.Background(), bson.M{"_id": sp}).Decode(&space); err != nil {
		t.Fatal(err)
	}
	waittest.Until(t, "the index to record the space's revision "+space.Revision, 30*time.Second, func() bool {
		err := searchDB.Collection(searchmongo.Spaces).FindOne(context.Background(), bson.M{"_id": sp}).Decode(&indexed)
		return err == nil && indexed.Revision == space.Revision && space.Revision != ""
	})
}
