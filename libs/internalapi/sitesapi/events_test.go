package sitesapi_test

import (
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Sites' payloads are not typed yet: these stand for the producer's views.
var (
	site = map[string]any{"object": "site", "id": "w1", "type": "basic", "title": "Docs", "visibility": "public",
		"published": true, "createdAt": t0}
	siteSpace = map[string]any{"object": "site-space", "id": "ss1", "path": "guides",
		"space": map[string]any{"object": "space", "id": "s1", "title": "Guides"}}
	section = map[string]any{"object": "site-section", "id": "sec1", "title": "API", "path": "api"}
	group   = map[string]any{"object": "site-section-group", "id": "g1", "title": "Products"}
	link    = map[string]any{"object": "share-link", "id": "l1", "name": "Partners", "active": true, "createdAt": t0, "site": "w1"}
	schema  = map[string]any{"type": "object", "properties": map[string]any{"plan": map[string]any{"type": "string"}}}
	auth    = map[string]any{"site": "w1", "fallbackURL": "https://example.com/login", "rotatedAt": t0}
)

func events() []envelope.Event {
	return []envelope.Event{
		sitesapi.NewSiteCreated("o1", "w1", site), sitesapi.NewSiteUpdated("o1", "w1", site),
		sitesapi.NewSiteDeleted("o1", "w1", site), sitesapi.NewSitePublished("o1", "w1", site),
		sitesapi.NewSiteUnpublished("o1", "w1", site),
		sitesapi.NewSiteSpaceCreated("o1", "ss1", siteSpace), sitesapi.NewSiteSpaceUpdated("o1", "ss1", siteSpace),
		sitesapi.NewSiteSpaceDeleted("o1", "ss1", siteSpace),
		sitesapi.NewSiteSectionCreated("o1", "sec1", section), sitesapi.NewSiteSectionUpdated("o1", "sec1", section),
		sitesapi.NewSiteSectionDeleted("o1", "sec1", section), sitesapi.NewSiteSectionMoved("o1", "sec1", section),
		sitesapi.NewSiteSectionGroupCreated("o1", "g1", group), sitesapi.NewSiteSectionGroupUpdated("o1", "g1", group),
		sitesapi.NewSiteSectionGroupDeleted("o1", "g1", group), sitesapi.NewSiteSectionGroupMoved("o1", "g1", group),
		sitesapi.NewShareLinkCreated("o1", "l1", link), sitesapi.NewShareLinkUpdated("o1", "l1", link),
		sitesapi.NewShareLinkDeleted("o1", "l1", link),
		sitesapi.NewSiteAdaptiveSchemaUpdated("o1", "w1", schema),
		sitesapi.NewSitePublishingAuthUpdated("o1", "w1", auth),
	}
}

func TestGoldenEvents(t *testing.T) {
	t.Parallel()
	evs := events()
	if len(evs) != len(sitesapi.Events) {
		t.Errorf("%d events built, %d types declared", len(evs), len(sitesapi.Events))
	}
	eventtest.Golden(t, evs...)
	eventtest.Catalogue(t, sitesapi.Events, sitesapi.Goldens())
}
