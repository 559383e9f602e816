// Package limits holds every limit of the sites service in one place: the
// lengths of its fields, the counts of what a site may hold, the bounds of
// an adaptive schema and of its compilation, and the size of a question to
// content. The README's Limits table ("### sites") lists each of them with
// the answer a request over it gets.
package limits

import (
	"time"

	"github.com/docspub/platform/libs/internalapi/readerapi"
)

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
	// Condition bounds a condition (of a section or a site space) in
	// characters, ConditionNodes in nodes of its syntax tree; over either
	// is a 400 naming condition (internal/condition).
	Condition      = 1024
	ConditionNodes = 512
	// ConditionOps bounds the instructions of a compiled condition; it only
	// jumps forward, so this bounds the steps of one evaluation too.
	ConditionOps = 1024
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

// Published sites: what one reader's request may cost (internal/reader).
const (
	// ReaderRevisionBytes bounds content's answer with a revision's pages,
	// markdown and files (revisions hold at most 32 MiB; JSON escaping
	// adds to it). A larger answer is a 413 for that space's pages.
	ReaderRevisionBytes = 64 << 20
	// ReaderRevisionTimeout bounds reading one revision from content.
	ReaderRevisionTimeout = 30 * time.Second
	// ReaderRevisionLoads* bound the revisions read from content at once
	// (cold cache): per organization running and waiting (at most
	// ReaderRevisionLoadWait), and in all; beyond, a 429 with Retry-After.
	ReaderRevisionLoadsPerOrg = 2
	ReaderRevisionLoadQueue   = 16
	ReaderRevisionLoads       = 4
	ReaderRevisionLoadWait    = 10 * time.Second
	// ReaderCacheBytes and ReaderCacheEntries bound the cache of revisions
	// and rendered pages (least recently used first out).
	ReaderCacheBytes   = 256 << 20
	ReaderCacheEntries = 20000
	// ReaderSites bounds the sites whose structure is cached at once, and
	// ReaderSiteTTL how long a cached structure is used: changes made
	// through this instance show at once, through another when their
	// event arrives, within it at most.
	ReaderSites   = 10000
	ReaderSiteTTL = readerapi.SiteTTL
	// ReaderPageBytes is the most markdown of one page rendered: the rest
	// is cut, with a note saying so.
	ReaderPageBytes = 1 << 20
	// ReaderNavPages is the most pages in a navigation (and in a sitemap
	// or llms.txt per site space); the rest is left out with a note.
	ReaderNavPages = 5000
	// ReaderTreeDepth is the deepest page nesting shown.
	ReaderTreeDepth = 10
	// ReaderLLMSFullBytes bounds llms-full.txt; the rest is cut with a note.
	ReaderLLMSFullBytes = 10 << 20
	// ReaderSitemapURLs is the sitemap protocol's bound of one sitemap.
	ReaderSitemapURLs = 50000
	// ReaderFileBytes is the largest file streamed to a reader (content's
	// own bound); ReaderCachedFileBytes the largest kept in the cache.
	ReaderFileBytes       = 50 << 20
	ReaderCachedFileBytes = 1 << 20
	// ReaderSpecTTL is how long a stored OpenAPI spec (integrations'),
	// and the pages showing it, are used without asking integrations
	// again: its events (openapi_spec.*) drop them at once, this is the
	// backstop; ReaderSpecRetry is how long a spec integrations could not
	// give is shown as a card before it is asked again.
	ReaderSpecTTL   = 5 * time.Minute
	ReaderSpecRetry = 15 * time.Second
	// ReaderVisitorToken bounds a visitor's JWT (query or cookie); a longer
	// one is not read.
	ReaderVisitorToken = 8 << 10
	// ReaderUnsignedClaims bounds the unsigned claims a visitor sets
	// (query parameters visitor.<name> and their cookie).
	ReaderUnsignedClaims      = 64
	ReaderUnsignedCookieBytes = 2 << 10
	// ConditionMemory is the expr memory budget of evaluating one
	// condition (elements of lists it builds); past it the condition is
	// false. ReaderConditions bounds the compiled conditions kept (by
	// their text; a refused one is kept as refused).
	ConditionMemory  = 10000
	ReaderConditions = 4096
	// ReaderSearchQuery bounds a search query (characters); ReaderSearchResults
	// the spaces answered. Searches per organization: ReaderSearchesPerOrg
	// running, ReaderSearchQueue waiting (ReaderSearchWait), ReaderSearches
	// in all; beyond, a 429 with Retry-After.
	ReaderSearchQuery    = 256
	ReaderSearchResults  = 10
	ReaderSearchesPerOrg = 4
	ReaderSearchQueue    = 16
	ReaderSearches       = 16
	ReaderSearchWait     = 5 * time.Second
	// ReaderSearchConditionalPages bounds the pages holding {% if %} blocks
	// one search reads in their rendered text (content's index leaves their
	// conditional text out); pages past it are not found by that text.
	ReaderSearchConditionalPages = 200
	// ReaderHostname bounds a custom hostname (SiteHostname).
	ReaderHostname = 512
	// PublishingURL bounds a publishing auth fallbackURL or logoutURL.
	PublishingURL = 2048
)

// Custom hostnames and their verification (internal/site/hostname.go).
const (
	// HostnameClaimTTL is how long a hostname claim may stay unverified
	// by default (HOSTNAME_CLAIM_TTL); then it fails.
	HostnameClaimTTL = 7 * 24 * time.Hour
	// HostnameRecheck is how often a pending claim is checked by default
	// (HOSTNAME_CHECK_INTERVAL).
	HostnameRecheck = time.Minute
	// HostnameChecksPerRound bounds the claims one round of the checker
	// looks up; HostnameLookups of them at once, each for at most
	// HostnameLookupTimeout.
	HostnameChecksPerRound = 100
	HostnameLookups        = 4
	HostnameLookupTimeout  = 5 * time.Second
)

// GitBook's markdown dialect as the reader renders it (internal/gitbookmd).
const (
	// ReaderBlockDepth is the deepest nesting of {% %} blocks rendered (as
	// deep as pages nest); a block deeper is left out with its content.
	ReaderBlockDepth = ReaderTreeDepth
	// ReaderBlocks is the most {% %} blocks of one page; past it the tags
	// are left out, their content shown as it is.
	ReaderBlocks = 5000
	// ReaderIncludes is the most {% include %} one page resolves, nested
	// includes counted, and ReaderIncludeDepth how deep includes nest.
	ReaderIncludes     = 50
	ReaderIncludeDepth = 3
	// ReaderHighlightBytes is the largest code block highlighted; a larger
	// one is shown plain.
	ReaderHighlightBytes = 64 << 10
	// ReaderBlockLookahead is how far a tag whose end is optional
	// ({% embed %}, {% file %}) looks for its end.
	ReaderBlockLookahead = 64 << 10
	// ReaderFormulaBytes is the longest $$formula$$ typeset, and
	// ReaderFormulas the most formulas of one page typeset; past either a
	// formula is shown as its TeX source.
	ReaderFormulaBytes = 4 << 10
	ReaderFormulas     = 500
	// ReaderFormulaTime bounds the typesetting of one formula (KaTeX in a
	// JavaScript runtime, interrupted past it: shown as its source, as
	// long as the reader's cache remembers it), ReaderFormulasTime that of
	// a page's formulas (the rest shown as their source, the rendering not
	// kept: the next read typesets them, the others being cached).
	ReaderFormulaTime  = time.Second
	ReaderFormulasTime = 3 * time.Second
)

// ReaderLLMSSpaces is the most site spaces llms.txt, llms-full.txt and
// sitemap.xml read (each is a revision to read); the rest is left out with
// a note.
const ReaderLLMSSpaces = 100
