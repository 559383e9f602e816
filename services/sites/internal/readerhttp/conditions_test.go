package readerhttp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/contentclient/contenttest"
	"github.com/docspub/platform/services/sites/internal/sitemongo"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestStoredConditionIsNeverRun: a condition stored before conditions
// were checked (written here straight into the database: the API refuses
// it) is checked again when the reader compiles it; refused, it matches no
// visitor, is logged, and is never run: the page answers at once.
func TestStoredConditionIsNeverRun(t *testing.T) {
	e := newEnv(t)
	e.content.AddSpace("sp1", "acme", "Stable", contenttest.Doc("p1", "Stable", "stable", "Stable docs."))
	e.content.AddSpace("sp2", "acme", "Preview", contenttest.Doc("p2", "Preview", "preview", "Preview docs."))
	id, url := e.site(`{"title":"Docs","spaces":["sp1","sp2"]}`)
	sitePath := "/v1/orgs/acme/sites/" + id
	var preview map[string]any
	for _, ss := range e.call("ada", "GET", sitePath+"/site-spaces", "", 200)["items"].([]any) {
		if m := ss.(map[string]any); str(m, "space", "id") == "sp2" {
			preview = m
		}
	}
	e.call("ada", "PUT", sitePath+"/adaptive-schema", `{"jsonSchema":{"type":"object","properties":{
		"unsigned":{"type":"object","properties":{"preview":{"type":"boolean"}},"additionalProperties":false}},"additionalProperties":false}}`, 200)
	e.call("ada", "PATCH", sitePath, `{"adaptiveContent":{"enabled":true}}`, 200)
	const loops = `let r = 1..1000; visitor.claims.unsigned.preview == true && all(r, {all(r, {all(r, {true})})})`
	e.call("ada", "PATCH", sitePath+"/site-spaces/"+str(preview, "id"), `{"condition":"`+loops+`"}`, 400)
	if _, err := e.db.Collection(sitemongo.SiteSpaces).UpdateOne(context.Background(), bson.M{"_id": str(preview, "id")},
		bson.M{"$set": bson.M{"condition": loops}}); err != nil {
		t.Fatal(err)
	}
	e.call("ada", "PATCH", sitePath, `{"title":"Docs again"}`, 200) // drops the cached structure

	start := time.Now()
	p := e.want(url+"?visitor.preview=true", 200)
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the page took %s", took)
	}
	if strings.Contains(p.body, ">Preview</a>") {
		t.Errorf("a refused condition matched: %s", p.body)
	}
	e.want(str(preview, "urls", "published")+"?visitor.preview=true", 404)
	if log := e.readerLog.String(); !strings.Contains(log, "condition refused") || !strings.Contains(log, "declares a variable") {
		t.Errorf("reader log %q: want the refused condition", log)
	}
}
