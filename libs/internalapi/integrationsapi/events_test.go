package integrationsapi_test

import (
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
)

var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Integrations' payloads are not typed yet: these stand for the producer's views.
var (
	settings = map[string]any{"object": "translation-settings", "id": "ts1", "source": "s1", "target": "s2", "language": "fr"}
	spec     = map[string]any{"object": "openapi-spec", "id": "a1", "slug": "petstore", "processingState": "ready", "updatedAt": t0}
	sync     = map[string]any{"space": "s1", "repoName": "acme/docs", "operation": map[string]any{"direction": "import", "state": "success"}}
)

func events() []envelope.Event {
	return []envelope.Event{
		integrationsapi.NewTranslationSettingsCreated("o1", "ts1", settings),
		integrationsapi.NewTranslationSettingsUpdated("o1", "ts1", settings),
		integrationsapi.NewTranslationSettingsDeleted("o1", "ts1", settings),
		integrationsapi.NewOpenAPISpecCreated("o1", "a1", spec), integrationsapi.NewOpenAPISpecUpdated("o1", "a1", spec),
		integrationsapi.NewOpenAPISpecDeleted("o1", "a1", spec), integrationsapi.NewOpenAPISpecProcessed("o1", "a1", spec),
		integrationsapi.NewGitSyncStarted("o1", "s1", sync), integrationsapi.NewGitSyncImported("o1", "s1", sync),
		integrationsapi.NewGitSyncExported("o1", "s1", sync), integrationsapi.NewGitSyncFailed("o1", "s1", sync),
	}
}

func TestGoldenEvents(t *testing.T) {
	t.Parallel()
	evs := events()
	if len(evs) != len(integrationsapi.Events) {
		t.Errorf("%d events built, %d types declared", len(evs), len(integrationsapi.Events))
	}
	eventtest.Golden(t, evs...)
	eventtest.Catalogue(t, integrationsapi.Events, integrationsapi.Goldens())
}
