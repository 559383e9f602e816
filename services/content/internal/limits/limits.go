// Package limits is the one place where content's bounds live: every size,
// count, depth, pixel count, output size, wall time and per-organization
// quota that bounds a request's work before it starts. The packages that
// enforce a bound name it from here, and the README's Limits table under
// "### content" lists each one with its value and answer.
package limits

import (
	"time"

	"github.com/docspub/platform/libs/quota"
)

// Spaces and collections.
const (
	SpaceTitle       = 50  // characters of a space's or collection's title (400)
	SpaceDescription = 100 // characters of a collection's description (400)
	SpaceEmoji       = 50  // characters of a space's emoji (400)
)

// Guarded writes and operations of the tree and of merges.
const (
	TransferCollections = 500              // collections moved by one collection transfer (400)
	TransferSpaces      = 10000            // spaces moved by one collection transfer (400)
	TreeLease           = 30 * time.Second // life of an organization's tree lock without renewal
	TreeWait            = 10 * time.Second // wait for an organization's tree lock (409 + Retry-After)
	OperationWait       = 25 * time.Second // a request's wait for its operation (503 + Retry-After)
	OperationWorkers    = 4                // operations one replica runs at once (queued beyond)
	MergeLease          = time.Minute      // an unfinished merge's claim (409 meanwhile, undone after)
)

// Change requests.
const (
	ChangeRequestSubject = 100  // characters of a subject (400)
	ImportURL            = 2048 // characters of an import's url (400)
)

// Custom fields.
const (
	FieldName        = 50  // characters of a name (400)
	FieldTitle       = 100 // characters of a title (400)
	FieldDescription = 200 // characters of a description (400)
	FieldPlaceholder = 100 // characters of a placeholder (400)
	FieldOptions     = 50  // options of a select field (400)
	FieldOption      = 100 // characters of one option (400)
	FieldText        = 256 // characters of a text value (400)
)

// Comments and replies.
const (
	CommentMarkdown = 100000 // characters of a body (400)
	CommentRefID    = 128    // characters of a node or page id (400)
	CommentAuthors  = 100    // user ids in the authors filter (400)
	// ReactionEmoji is the length of one reaction in characters (400).
	ReactionEmoji = 50
	// ReactionsPerRequest bounds addedReactions, and removedReactions, of one request (400).
	ReactionsPerRequest = 50
	// ReactionKinds is how many distinct emoji one comment or reply holds (400).
	ReactionKinds = 50
	// ReactionsPerUser is how many reactions one user puts on one comment or reply (400).
	ReactionsPerUser = 20
	// Reactions is how many reactions one comment or reply holds in all (400).
	Reactions = 1000
)

// Revisions: a revision document keeps the page tree and references; page
// bodies and file bytes live in documents of their own.
const (
	RevisionPages = 2000 // pages of one revision (413)
	RevisionFiles = 2000 // files of one revision (413)
	// RevisionMarkdown is the markdown of one revision's pages and reusable
	// contents together, in bytes (413).
	RevisionMarkdown = 48 << 20
	// RevisionDocument is the largest stored revision document (the tree
	// without the bodies), far below MongoDB's 16 MiB (413).
	RevisionDocument = 8 << 20
	// RevisionCacheBytes and RevisionCacheEntries bound the revision
	// documents (trees and references, no markdown) a content replica keeps
	// in memory: revisions never change, so a kept one is never stale.
	RevisionCacheBytes   = 64 << 20
	RevisionCacheEntries = 1000
	// RevisionRedirects bounds a revision's redirects (a Git import's, from
	// .gitbook.yaml: 400 on import, 413 on store) and RedirectPath the
	// bytes of a redirect's old path (GitBook's site redirects: 512), so
	// that they take at most about 600 KiB of the revision document.
	RevisionRedirects = 1000
	RedirectPath      = 512
	// BodyChunk is the largest page-body document's markdown: a longer page
	// is stored as several chunks.
	BodyChunk = 1 << 20
	PageTitle = 256 // characters of a page title; imported titles are cut to it
	PageSlug  = 100 // characters of a slug
	FileName  = 255 // characters of a file name; imported names are cut to it
	// FileBytes is the largest file (an imported image), in bytes; a larger
	// one is not imported.
	FileBytes = 10 << 20
)

// Blob collection: page bodies and blobs (file bytes) no revision refers to are
// removed once they are older than BlobGrace, which protects what an import
// still in progress has written but not yet referenced (an import ends
// within ImportTime, far less).
const BlobGrace = time.Hour

// BlobURLTTL is how long a presigned download URL (BLOB_REDIRECT) serves.
const BlobURLTTL = 5 * time.Minute

// Website import.
const (
	ImportDepth = 2  // links followed from the start page
	ImportPages = 50 // pages imported by one import
	// ImportFetches is how many pages one import requests, failed ones included.
	ImportFetches = 2 * ImportPages
	// ImportPathDepth is how many levels an imported page's path has; the
	// segments of a deeper URL path join its last level.
	ImportPathDepth = 10
	// ImportImages is how many images one import stores; later ones stay links.
	ImportImages = 200
	// ImportFileBytes is the bytes of images one import stores; later ones stay links.
	ImportFileBytes = 100 << 20
	// PageHTML is the HTML read of one page, in bytes; the rest is not read.
	PageHTML = 2 << 20
	// HTMLDepth is how deeply elements nest in what the converter is given:
	// deeper elements are unwrapped (their content kept, their nesting cut).
	HTMLDepth = 64
	// HTMLQuoteDepth is how deeply quotes and lists nest before conversion;
	// deeper ones are unwrapped (each level prefixes every line of markdown).
	HTMLQuoteDepth = 8
	// PageMarkdown is the markdown of one imported page, in bytes; a page
	// that converts to more is not imported.
	PageMarkdown = 1 << 20
	// ImportMarkdown is the markdown of one import, in bytes; pages past it
	// are not imported (a 413 when not even the first fits).
	ImportMarkdown = 32 << 20
	// ImportTime bounds a crawl: pages not fetched by then are not imported.
	// It stays below the gateway's UPSTREAM_TIMEOUT (30 s).
	ImportTime = 20 * time.Second
)

// PDF.
const (
	PDFPages = 1000 // pages of one PDF (413)
	// PDFBytes is the largest PDF, in bytes (413).
	PDFBytes = 64 << 20
	// PDFImageBytes is the bytes of images one PDF embeds; later images
	// print as placeholders.
	PDFImageBytes = 32 << 20
	// ImagePixels is the largest image (width × height) a PDF decodes; a
	// larger one prints as a placeholder, its header read but never its pixels.
	ImagePixels = 8 << 20
	// MarkdownPiece is the most markdown the PDF's parser reads at once: a
	// page is parsed in pieces cut at blank lines (the parser's cost grows
	// with the square of some constructs' length).
	MarkdownPiece = 4 << 10
	// PDFNesting is how deeply quotes and lists nest in a PDF: deeper
	// markers of a line are dropped before parsing, deeper levels print at
	// that indent.
	PDFNesting = 8
	// PDFTime bounds a render (413: print fewer pages).
	PDFTime = 20 * time.Second
)

// Quotas of expensive operations per organization (libs/quota): each
// organization runs PerKey at once and queues Queue more (429 with
// Retry-After beyond, or after MaxWait in the queue); the service runs Total
// at once, so the others keep their turns while one organization floods.
// A wait and a run together stay below the gateway's UPSTREAM_TIMEOUT (30 s).
var (
	ImportQuota = quota.Limits{PerKey: 1, Queue: 2, Total: 4, MaxWait: 5 * time.Second}
	PDFQuota    = quota.Limits{PerKey: 1, Queue: 2, Total: 4, MaxWait: 5 * time.Second}
	// RevisionReadQuota bounds the reads of whole large revisions (every
	// page's markdown: GET content, pages, links, backlinks) of one
	// organization running at once (429 beyond the queue).
	RevisionReadQuota = quota.Limits{PerKey: 2, Queue: 16, MaxWait: 10 * time.Second}
)

// Whole reads of revisions of more than RevisionReadFree bytes of markdown
// take a turn of RevisionReadQuota and RevisionReadCost times their
// markdown (its bodies read, the revision's strings, the answer) out of
// RevisionReadBytes shared by all organizations, waiting at most
// RevisionReadQuota.MaxWait (429), so that their memory stays bounded
// whatever their number.
const (
	RevisionReadFree  = 1 << 20
	RevisionReadCost  = 3
	RevisionReadBytes = 256 << 20
)
