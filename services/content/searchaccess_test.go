package content_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
)

// Search answers from the spaces the caller can read as they are at the
// moment of the query: a space or collection closed to readers leaves a
// reader's results at the next query (an admin's stay), reopening it
// brings it back, a rename shows at once, and a member of another
// organization finds nothing of it.
func TestSearchFollowsAccessAtOnce(t *testing.T) {
	cfg, _, _ := searchConfig(t)
	signer, err := internaltoken.NewSigner("gateway", secret, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	caller := func(p internaltoken.Principal) tokenCaller {
		tok, err := signer.Mint("content", p)
		if err != nil {
			t.Fatal(err)
		}
		return tokenCaller{t: t, tok: tok}
	}
	ada := caller(internaltoken.Principal{UserID: "ada", Roles: map[string]string{"org1": "admin"}})
	rex := caller(internaltoken.Principal{UserID: "rex", Roles: map[string]string{"org1": "read"}})
	eve := caller(internaltoken.Principal{UserID: "eve", Roles: map[string]string{"org2": "admin"}})
	integrations := caller(internaltoken.Principal{Service: "integrations"})
	base := start(t, cfg).srv.URL

	col := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/collections", `{"title":"Team"}`, http.StatusCreated))
	open := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/spaces", `{"title":"Handbook"}`, http.StatusCreated))
	inCol := idOf(t, ada.must(base, "POST", "/v1/orgs/org1/spaces", `{"title":"Team notes","parent":"`+col+`"}`, http.StatusCreated))
	for _, sp := range []string{open, inCol} {
		var head struct {
			Revision string `json:"revision"`
		}
		if err := json.Unmarshal([]byte(integrations.must(base, "GET", "/internal/v1/spaces/"+sp+"/git/content", "", http.StatusOK)), &head); err != nil {
			t.Fatal(err)
		}
		integrations.must(base, "POST", "/internal/v1/spaces/"+sp+"/git/revisions", `{"parent":"`+head.Revision+`","pages":[
			{"kind":"document","title":"Wildlife","slug":"wildlife","markdown":"The quokka lives on Rottnest Island.\n","pages":[]}],
			"files":[],"git":{"oid":"0123456789abcdef0123456789abcdef01234567","message":"import"}}`, http.StatusCreated)
	}
	found := func(c tokenCaller) []string {
		t.Helper()
		var ids []string
		for id := range searchHits(t, c, base, "org1", "quokka") {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		return ids
	}
	both := []string{open, inCol}
	slices.Sort(both)
	check := func(what string, c tokenCaller, want []string) {
		t.Helper()
		if got := found(c); !slices.Equal(got, want) {
			t.Fatalf("%s: found %v, want %v", what, got, want)
		}
	}

	check("a reader, all open", rex, both)
	ada.must(base, "PATCH", "/v1/spaces/"+open, `{"defaultLevel":null}`, http.StatusOK)
	check("a reader, the space closed", rex, []string{inCol})
	check("the admin, the space closed", ada, both)
	ada.must(base, "PATCH", "/v1/collections/"+col, `{"defaultLevel":null}`, http.StatusOK)
	check("a reader, the collection closed too", rex, nil)
	check("the admin, both closed", ada, both)
	ada.must(base, "PATCH", "/v1/spaces/"+open, `{"defaultLevel":"read"}`, http.StatusOK)
	ada.must(base, "PATCH", "/v1/collections/"+col, `{"defaultLevel":"read"}`, http.StatusOK)
	check("a reader, both reopened", rex, both)

	ada.must(base, "PATCH", "/v1/spaces/"+open, `{"title":"Field guide"}`, http.StatusOK)
	var res struct {
		Items []struct{ ID, Title string }
	}
	if err := json.Unmarshal([]byte(rex.must(base, "GET", "/v1/orgs/org1/search?query=quokka", "", http.StatusOK)), &res); err != nil {
		t.Fatal(err)
	}
	titles := map[string]string{}
	for _, it := range res.Items {
		titles[it.ID] = it.Title
	}
	if titles[open] != "Field guide" || titles[inCol] != "Team notes" {
		t.Fatalf("titles %v after a rename", titles)
	}

	eve.must(base, "GET", "/v1/orgs/org1/search?query=quokka", "", http.StatusNotFound)
	if got := searchHits(t, eve, base, "org2", "quokka"); len(got) != 0 {
		t.Fatalf("a member of another organization found %v", got)
	}
}
