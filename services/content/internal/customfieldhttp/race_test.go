package customfieldhttp_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apitest"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/racetest"
	"github.com/docspub/platform/services/content/internal/customfieldmongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The race suite of custom fields: two requests that change one definition
// or one space's values at once never lose a change, and the last event
// says what is stored.

// drain empties the outbox of the definitions and values (no relay runs
// here), so that the documents do not grow with every repetition.
func (e *env) drain() {
	e.t.Helper()
	for _, coll := range []string{customfieldmongo.Fields, customfieldmongo.SpaceValues} {
		if _, err := e.db.Collection(coll).UpdateMany(context.Background(), bson.M{}, bson.M{"$unset": bson.M{"_outbox": ""}}); err != nil {
			e.t.Fatal(err)
		}
	}
}

func (e *env) do(user, method, path, body string) apitest.Response {
	e.t.Helper()
	return e.api.Do(as(user), method, path, body)
}

// Two PATCHes of one definition (its title, its description): when both
// answer 200, both changes are stored.
func TestRaceFieldPatches(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"tier","type":"select","options":["free","pro"]}`)
	const path = "/v1/orgs/o1/custom-fields/tier"
	var title, desc apitest.Response
	racetest.Run(t, func(int) { e.drain() }, func(i int) {
		title = e.do("admin", "PATCH", path, fmt.Sprintf(`{"title":"T%d"}`, i))
	}, func(i int) {
		desc = e.do("admin", "PATCH", path, fmt.Sprintf(`{"description":"D%d"}`, i))
	}, func(i int) {
		got := apitest.Decode[struct {
			Title       string `json:"title"`
			Description string `json:"description"`
		}](t, e.must(200, "admin", "GET", path, ""))
		if title.Status == 200 && got.Title != fmt.Sprintf("T%d", i) {
			t.Errorf("title change answered 200 but the title is %q", got.Title)
		}
		if desc.Status == 200 && got.Description != fmt.Sprintf("D%d", i) {
			t.Errorf("description change answered 200 but the description is %q", got.Description)
		}
		for _, r := range []apitest.Response{title, desc} {
			if r.Status != 200 && r.Status != 409 {
				t.Errorf("PATCH answered %d %s", r.Status, r.Body)
			}
		}
	})
}

// Two PATCHes of one space's values (each a different field): the last
// event of the values carries every value stored.
func TestRaceValuePatches(t *testing.T) {
	e := newEnv(t)
	e.define(`{"name":"a","type":"text"}`)
	e.define(`{"name":"b","type":"text"}`)
	const path = "/v1/spaces/s1/custom-fields"
	racetest.Run(t, func(int) { e.drain() }, func(i int) {
		e.do("editor", "PATCH", path, fmt.Sprintf(`{"values":{"a":{"value":"a%d"}}}`, i))
	}, func(i int) {
		e.do("editor", "PATCH", path, fmt.Sprintf(`{"values":{"b":{"value":"b%d"}}}`, i))
	}, func(int) {
		stored := e.values("reader", "s1", "a", "b")
		var doc struct {
			Outbox []kafkax.Event `bson:"_outbox"`
		}
		if err := e.db.Collection(customfieldmongo.SpaceValues).FindOne(context.Background(), bson.M{"_id": "s1"}).Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Outbox) == 0 {
			return
		}
		last := string(doc.Outbox[len(doc.Outbox)-1].Data)
		for name, v := range stored {
			if v != "" && !strings.Contains(last, v) {
				t.Errorf("stored %s = %s, the last event says %s", name, v, last)
			}
		}
	})
}
