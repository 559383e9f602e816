// Package limits holds every limit of the sites service in one place: the
// lengths of its fields, the counts of what a site may hold, the bounds of
// an adaptive schema and of its compilation, and the size of a question to
// content. The README's Limits table ("### sites") lists each of them with
// the answer a request over it gets.
package limits

import "time"

// Sites.
const (
	SiteTitleMin = 2   // characters; 400 naming title
	SiteTitleMax = 128 // characters; 400 naming title
	Basename     = 100 // characters, one path segment; 400 naming basename
	Proxy        = 512 // characters; 400 naming proxy
	// SpacesPerCreate is the most spaces one site creation adds; 400 naming spaces.
	SpacesPerCreate = 100
)

// Site spaces.
const (
	SiteSpacePath = 100 // characters, one path segment; 400 naming path
	Condition     = 1024
	// SiteSpacesPerSite is the most site spaces a site holds (site level and
	// sections together); one more is a 400 naming spaceId. It is also the
	// most spaces sites asks content about in one call (ContentAccessBatch).
	SiteSpacesPerSite = 1000
)

// Sections and section groups.
const (
	SectionTitleMin       = 2
	SectionTitleMax       = 128 // on update
	SectionCreateTitleMax = 64  // on create
	SectionPath           = 100 // characters, one path segment
	SectionDescription    = 256
	Icon                  = 50
	GroupTitleMax         = 100
	SectionsPerSite       = 100 // one more is a 400 naming spaceId
	GroupsPerSite         = 50  // one more is a 400 naming title
)

// Share links.
const (
	ShareLinkName     = 50  // characters
	ShareLinksPerSite = 100 // one more is a 400 naming name
)

// Adaptive schemas: checked on the raw JSON before anything compiles it.
const (
	// AdaptiveSchemaBytes bounds the jsonSchema as sent and as stored
	// (normalized); a larger one is a 413. It also bounds the
	// site_adaptive_schema.updated event: even with every character escaped
	// six times over it stays far below kafkax.MaxEventBytes.
	AdaptiveSchemaBytes = 32 << 10
	// AdaptiveSchemaBody bounds the whole PUT body (the schema and the
	// object around it); a larger body is a 413.
	AdaptiveSchemaBody = AdaptiveSchemaBytes + 1024
	// AdaptiveSchemaDepth bounds the nesting of objects and arrays.
	AdaptiveSchemaDepth = 16
	// AdaptiveSchemaProperties bounds the properties (claims and groups of
	// claims) of the whole schema.
	AdaptiveSchemaProperties = 256
	// AdaptiveSchemaMembers bounds the members of all its objects together
	// (keywords included), so that no other keyword multiplies the work of
	// compiling it.
	AdaptiveSchemaMembers = 2048
	// AdaptiveSchemaCompile is the deadline of one compilation; a schema
	// still compiling after it is a 400.
	AdaptiveSchemaCompile = 2 * time.Second
	// AdaptiveSchemaCompilesPerOrg compilations of one organization run at
	// once, AdaptiveSchemaCompileQueue more wait (at most
	// AdaptiveSchemaCompileWait); beyond that a 429 with Retry-After.
	AdaptiveSchemaCompilesPerOrg = 1
	AdaptiveSchemaCompileQueue   = 2
	AdaptiveSchemaCompileWait    = 5 * time.Second
	// AdaptiveSchemaCompiles bounds the compilations of all organizations
	// running at once.
	AdaptiveSchemaCompiles = 4
)

// Content.
const (
	// ContentAccessBatch is the most spaces one question to content's
	// POST /internal/v1/spaces/access names (content's own bound).
	ContentAccessBatch = 1000
	// ContentTimeout bounds one call to content; past it the request is a 503.
	ContentTimeout = 10 * time.Second
)
