// Package integrationsapi is the contract of what the integrations service
// publishes: its events on integrations.events (no service consumes them
// yet; outside consumers may).
package integrationsapi

import "github.com/docspub/platform/libs/envelope"

// Topic is where integrations publishes its events (the envelope of
// libs/envelope, keyed by subject).
const Topic = "integrations.events"

// Integrations' event types, <resource>.<verb>.
const (
	TranslationSettingsCreated = "translation_settings.created"
	TranslationSettingsUpdated = "translation_settings.updated"
	TranslationSettingsDeleted = "translation_settings.deleted"

	OpenAPISpecCreated   = "openapi_spec.created"
	OpenAPISpecUpdated   = "openapi_spec.updated"
	OpenAPISpecDeleted   = "openapi_spec.deleted"
	OpenAPISpecProcessed = "openapi_spec.processed"

	GitSyncStarted  = "git_sync.started"
	GitSyncImported = "git_sync.imported"
	GitSyncExported = "git_sync.exported"
	GitSyncFailed   = "git_sync.failed"
)

// Schema versions of the payloads integrations writes now. Bump one when its
// payload changes incompatibly (a field removed, renamed or retyped), keep
// the previous version's golden (testdata/events) and give the schema a
// Previous decoder; consumers read the current and the previous version.
const (
	TranslationSettingsVersion = 1
	OpenAPISpecVersion         = 1
	GitSyncVersion             = 1
)

// Events is the catalogue of integrations' event types and their versions.
var Events = envelope.Catalogue{
	TranslationSettingsCreated: TranslationSettingsVersion, TranslationSettingsUpdated: TranslationSettingsVersion, TranslationSettingsDeleted: TranslationSettingsVersion,
	OpenAPISpecCreated: OpenAPISpecVersion, OpenAPISpecUpdated: OpenAPISpecVersion, OpenAPISpecDeleted: OpenAPISpecVersion, OpenAPISpecProcessed: OpenAPISpecVersion,
	GitSyncStarted: GitSyncVersion, GitSyncImported: GitSyncVersion, GitSyncExported: GitSyncVersion, GitSyncFailed: GitSyncVersion,
}

func newEvent(typ, org, subject string, data any) envelope.Event {
	return envelope.NewVersion(typ, Events[typ], org, subject, data)
}

// Translation settings events carry the translation settings as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the settings.
func NewTranslationSettingsCreated(org, subject string, data any) envelope.Event {
	return newEvent(TranslationSettingsCreated, org, subject, data)
}
func NewTranslationSettingsUpdated(org, subject string, data any) envelope.Event {
	return newEvent(TranslationSettingsUpdated, org, subject, data)
}
func NewTranslationSettingsDeleted(org, subject string, data any) envelope.Event {
	return newEvent(TranslationSettingsDeleted, org, subject, data)
}

// OpenAPI spec events carry the spec (its processing state) as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the spec.
func NewOpenAPISpecCreated(org, subject string, data any) envelope.Event {
	return newEvent(OpenAPISpecCreated, org, subject, data)
}
func NewOpenAPISpecUpdated(org, subject string, data any) envelope.Event {
	return newEvent(OpenAPISpecUpdated, org, subject, data)
}
func NewOpenAPISpecDeleted(org, subject string, data any) envelope.Event {
	return newEvent(OpenAPISpecDeleted, org, subject, data)
}
func NewOpenAPISpecProcessed(org, subject string, data any) envelope.Event {
	return newEvent(OpenAPISpecProcessed, org, subject, data)
}

// Git sync events carry the space's Git sync state and operation (never credentials) as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the space's Git sync state.
func NewGitSyncStarted(org, subject string, data any) envelope.Event {
	return newEvent(GitSyncStarted, org, subject, data)
}
func NewGitSyncImported(org, subject string, data any) envelope.Event {
	return newEvent(GitSyncImported, org, subject, data)
}
func NewGitSyncExported(org, subject string, data any) envelope.Event {
	return newEvent(GitSyncExported, org, subject, data)
}
func NewGitSyncFailed(org, subject string, data any) envelope.Event {
	return newEvent(GitSyncFailed, org, subject, data)
}
