package sitesapi

import "github.com/docspub/platform/libs/envelope"

// Topic is where sites publishes its events (the envelope of
// libs/envelope, keyed by subject).
const Topic = "sites.events"

// Sites' event types, <resource>.<verb>.
const (
	SiteCreated     = "site.created"
	SiteUpdated     = "site.updated"
	SiteDeleted     = "site.deleted"
	SitePublished   = "site.published"
	SiteUnpublished = "site.unpublished"

	SiteSpaceCreated = "site_space.created"
	SiteSpaceUpdated = "site_space.updated"
	SiteSpaceDeleted = "site_space.deleted"

	SiteSectionCreated = "site_section.created"
	SiteSectionUpdated = "site_section.updated"
	SiteSectionDeleted = "site_section.deleted"
	SiteSectionMoved   = "site_section.moved"

	SiteSectionGroupCreated = "site_section_group.created"
	SiteSectionGroupUpdated = "site_section_group.updated"
	SiteSectionGroupDeleted = "site_section_group.deleted"
	SiteSectionGroupMoved   = "site_section_group.moved"

	ShareLinkCreated = "share_link.created"
	ShareLinkUpdated = "share_link.updated"
	ShareLinkDeleted = "share_link.deleted"

	SiteAdaptiveSchemaUpdated = "site_adaptive_schema.updated"

	SitePublishingAuthUpdated = "site_publishing_auth.updated"
)

// Schema versions of the payloads sites writes now. Bump one when its
// payload changes incompatibly (a field removed, renamed or retyped), keep
// the previous version's golden (testdata/events) and give the schema a
// Previous decoder; consumers read the current and the previous version.
const (
	SiteVersion               = 1
	SiteSpaceVersion          = 1
	SiteSectionVersion        = 1
	SiteSectionGroupVersion   = 1
	ShareLinkVersion          = 1
	SiteAdaptiveSchemaVersion = 1
	SitePublishingAuthVersion = 1
)

// Events is the catalogue of sites' event types and their versions.
var Events = envelope.Catalogue{
	SiteCreated: SiteVersion, SiteUpdated: SiteVersion, SiteDeleted: SiteVersion, SitePublished: SiteVersion, SiteUnpublished: SiteVersion,
	SiteSpaceCreated: SiteSpaceVersion, SiteSpaceUpdated: SiteSpaceVersion, SiteSpaceDeleted: SiteSpaceVersion,
	SiteSectionCreated: SiteSectionVersion, SiteSectionUpdated: SiteSectionVersion, SiteSectionDeleted: SiteSectionVersion, SiteSectionMoved: SiteSectionVersion,
	SiteSectionGroupCreated: SiteSectionGroupVersion, SiteSectionGroupUpdated: SiteSectionGroupVersion, SiteSectionGroupDeleted: SiteSectionGroupVersion, SiteSectionGroupMoved: SiteSectionGroupVersion,
	ShareLinkCreated: ShareLinkVersion, ShareLinkUpdated: ShareLinkVersion, ShareLinkDeleted: ShareLinkVersion,
	SiteAdaptiveSchemaUpdated: SiteAdaptiveSchemaVersion,
	SitePublishingAuthUpdated: SitePublishingAuthVersion,
}

func newEvent(typ, org, subject string, data any) envelope.Event {
	return envelope.NewVersion(typ, Events[typ], org, subject, data)
}

// Site events carry the site as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the site.
func NewSiteCreated(org, subject string, data any) envelope.Event {
	return newEvent(SiteCreated, org, subject, data)
}
func NewSiteUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SiteUpdated, org, subject, data)
}
func NewSiteDeleted(org, subject string, data any) envelope.Event {
	return newEvent(SiteDeleted, org, subject, data)
}
func NewSitePublished(org, subject string, data any) envelope.Event {
	return newEvent(SitePublished, org, subject, data)
}
func NewSiteUnpublished(org, subject string, data any) envelope.Event {
	return newEvent(SiteUnpublished, org, subject, data)
}

// Site space events carry the site space (its space embedded without permissions) as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the site space.
func NewSiteSpaceCreated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSpaceCreated, org, subject, data)
}
func NewSiteSpaceUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSpaceUpdated, org, subject, data)
}
func NewSiteSpaceDeleted(org, subject string, data any) envelope.Event {
	return newEvent(SiteSpaceDeleted, org, subject, data)
}

// Section events carry the site section as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the section.
func NewSiteSectionCreated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionCreated, org, subject, data)
}
func NewSiteSectionUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionUpdated, org, subject, data)
}
func NewSiteSectionDeleted(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionDeleted, org, subject, data)
}
func NewSiteSectionMoved(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionMoved, org, subject, data)
}

// Section group events carry the section group as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the group.
func NewSiteSectionGroupCreated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionGroupCreated, org, subject, data)
}
func NewSiteSectionGroupUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionGroupUpdated, org, subject, data)
}
func NewSiteSectionGroupDeleted(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionGroupDeleted, org, subject, data)
}
func NewSiteSectionGroupMoved(org, subject string, data any) envelope.Event {
	return newEvent(SiteSectionGroupMoved, org, subject, data)
}

// Share link events carry the share link with its site (never its key) as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the link.
func NewShareLinkCreated(org, subject string, data any) envelope.Event {
	return newEvent(ShareLinkCreated, org, subject, data)
}
func NewShareLinkUpdated(org, subject string, data any) envelope.Event {
	return newEvent(ShareLinkUpdated, org, subject, data)
}
func NewShareLinkDeleted(org, subject string, data any) envelope.Event {
	return newEvent(ShareLinkDeleted, org, subject, data)
}

// Adaptive schema events carry the site's adaptive content schema as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the site.
func NewSiteAdaptiveSchemaUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SiteAdaptiveSchemaUpdated, org, subject, data)
}

// Publishing auth events carry the site's publishing authentication (never its private key) as the API returns it (never a secret); the
// payload is not typed here yet (no service reads its data): data is the
// producer's view. org is its organization, subject the site.
func NewSitePublishingAuthUpdated(org, subject string, data any) envelope.Event {
	return newEvent(SitePublishingAuthUpdated, org, subject, data)
}
