package route

import "net/http"

// Services that own public routes. The names are the ones discovery resolves.
const (
	Identity     = "identity"
	Content      = "content"
	Sites        = "sites"
	Insights     = "insights"
	Integrations = "integrations"
	// Gateway answers its own routes (GatewayRoutes) itself.
	Gateway = "gateway"
)

// GatewayRoutes are the public routes the gateway answers itself, without a
// token: the API document (libs/apidoc) and its reference page.
var GatewayRoutes = []Route{
	{Method: http.MethodGet, Pattern: "/v1/openapi.json", Service: Gateway},
	{Method: http.MethodGet, Pattern: "/v1/docs", Service: Gateway},
}

// Routes is the one table that maps every public path to the service that owns
// it. Every route is an operation of the API document (libs/apidoc/openapi.json)
// and every operation of it is a route here or one of GatewayRoutes, with the
// service its x-service names (route_test.go proves both ways). The rows of the
// API contract come first; the routes of the public spec beyond it follow.
var Routes = []Route{
	// Collections
	{Method: http.MethodGet, Pattern: "/v1/collections/{collectionId}", Service: Content},
	{Method: http.MethodDelete, Pattern: "/v1/collections/{collectionId}", Service: Content},
	{Method: http.MethodPatch, Pattern: "/v1/collections/{collectionId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/collections/{collectionId}/spaces", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/collections/{collectionId}/move", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/collections/{collectionId}/transfer", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/collections", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/collections", Service: Content},

	// Spaces
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}", Service: Content},
	{Method: http.MethodDelete, Pattern: "/v1/spaces/{spaceId}", Service: Content},
	{Method: http.MethodPatch, Pattern: "/v1/spaces/{spaceId}", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/duplicate", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/restore", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/move", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/transfer", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/links", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/custom-fields", Service: Content},
	{Method: http.MethodPatch, Pattern: "/v1/spaces/{spaceId}/custom-fields", Service: Content},

	// Space comments
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/comments", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/comments", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}", Service: Content},
	{Method: http.MethodPut, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}", Service: Content},
	{Method: http.MethodDelete, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}/replies", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}/replies", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}", Service: Content},
	{Method: http.MethodPut, Pattern: "/v1/spaces/{spaceId}/comments/{commentId}/replies/{commentReplyId}", Service: Content},

	// Change request comments
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}", Service: Content},
	{Method: http.MethodPut, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}", Service: Content},
	{Method: http.MethodDelete, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}", Service: Content},

	// Change requests
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}", Service: Content},
	{Method: http.MethodPatch, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/merge", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/update", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf", Service: Content},

	// Change request content
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/import", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/pages", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/files/{fileId}/backlinks", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/content/page/{pageId}/links", Service: Content},

	// Sites
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites", Service: Sites},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}", Service: Sites},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema", Service: Sites},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/adaptive-schema", Service: Sites},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/published", Service: Sites},

	// Site sections
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/sections", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/sections", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/sections/{siteSectionId}/move", Service: Sites},

	// Site section groups
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/sections/{siteSectionId}", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/section-groups/{siteSectionGroupId}/move", Service: Sites},

	// Site share links
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/share-links", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/share-links", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/share-links/{shareLinkId}", Service: Sites},

	// Site insights
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/insights/events", Service: Insights},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/insights/events/aggregate", Service: Insights},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/insights/visitor-segments", Service: Insights},

	// Organizations, search, invites
	{Method: http.MethodGet, Pattern: "/v1/orgs", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}", Service: Identity},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/link-invites/{inviteId}", Service: Identity},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/link-invites/{inviteId}", Service: Identity},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/link-invites/{inviteId}", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/search", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/email-domains/{emailDomain}/orgs", Service: Identity},

	// Organization members
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/members", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/members/{userId}", Service: Identity},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/members/{userId}", Service: Identity},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/members/{userId}", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/ping", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/members/{userId}/sso", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/members/{userId}/spaces", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/members/{userId}/teams", Service: Identity},

	// Teams and team members
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/teams", Service: Identity},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/teams", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}", Service: Identity},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}", Service: Identity},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}/members", Service: Identity},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}/members", Service: Identity},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}/members/{userId}", Service: Identity},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/teams/{teamId}/members/{userId}", Service: Identity},

	// SSO
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/saml", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/saml", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/saml/{samlProviderId}", Service: Identity},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/saml/{samlProviderId}", Service: Identity},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/saml/{samlProviderId}", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sso", Service: Identity},

	// OpenAPI specs
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi", Service: Integrations},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/openapi", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}", Service: Integrations},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}", Service: Integrations},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}", Service: Integrations},
	// The public spec's PATCH and versions rows (issue 10), beyond the first contract.
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}/versions", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/openapi/{specSlug}/versions/{versionId}/content/raw", Service: Integrations},

	// Translations
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/translations", Service: Integrations},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/translations", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/translations/{translationSettingsId}", Service: Integrations},
	{Method: http.MethodPut, Pattern: "/v1/orgs/{organizationId}/translations/{translationSettingsId}", Service: Integrations},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/translations/{translationSettingsId}", Service: Integrations},

	// Custom fields (organization level)
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/custom-fields", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/custom-fields", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/custom-fields/{fieldName}", Service: Content},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/custom-fields/{fieldName}", Service: Content},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/custom-fields/{fieldName}", Service: Content},

	// Git
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/git/import", Service: Integrations},
	{Method: http.MethodPost, Pattern: "/v1/spaces/{spaceId}/git/export", Service: Integrations},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/git/info", Service: Integrations},

	// Routes of the public spec beyond the first contract.
	{Method: http.MethodGet, Pattern: "/v1/user", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/invites", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/invites/{inviteId}", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/link-invites", Service: Identity},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/link-invites", Service: Identity},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/spaces", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/spaces", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/pages", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/page/{pageId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/page/{pageId}/links", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/path/{pagePath...}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/files", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/files/{fileId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/content/files/{fileId}/backlinks", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/revisions/{revisionId}", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/revisions/{revisionId}/files/{fileId}/download", Service: Content},
	{Method: http.MethodGet, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/pdf/download", Service: Content},
	{Method: http.MethodPut, Pattern: "/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments/{commentId}/replies/{commentReplyId}", Service: Content},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/publish", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/unpublish", Service: Sites},
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/site-spaces", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/site-spaces", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}", Service: Sites},
	{Method: http.MethodDelete, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/site-spaces/{siteSpaceId}", Service: Sites},
	// The public spec's site-publishing-auth rows (the visitor key of visitor-auth sites).
	{Method: http.MethodGet, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/publishing/auth", Service: Sites},
	{Method: http.MethodPatch, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/publishing/auth", Service: Sites},
	{Method: http.MethodPost, Pattern: "/v1/orgs/{organizationId}/sites/{siteId}/publishing/auth/regenerate", Service: Sites},
}
