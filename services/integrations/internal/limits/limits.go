// Package limits holds the bounds of the integrations service's parsers: an
// OpenAPI document, a repository's SUMMARY.md and its .gitbook.yaml are
// measured against them by a linear pre-pass before the parsing library
// sees them, so that no
// tenant's input can make a job run long or allocate much. The README's
// Limits table ("### integrations") lists each of them with what a job over
// it ends with.
package limits

// OpenAPI documents: checked before the OpenAPI library loads one; over a
// bound the spec's processing ends with PARSE_ERROR naming the bound.
const (
	// SpecNodes bounds the JSON values or YAML nodes of a document, keys
	// included (the OpenAPI library allocates about 1 KiB per node: a
	// million nodes, a 10 MB spec, parse in about 10 s with 1 GiB).
	SpecNodes = 1_000_000
	// SpecYAMLTokens bounds, before a YAML document is decoded, an upper
	// bound of its nodes counted over its bytes: its lines and the
	// indicators after which a node can start ("-:,?[{"). Decoding costs
	// about 250 bytes of memory per token.
	SpecYAMLTokens = 2 * SpecNodes
	// SpecDepth bounds how deeply a document's objects and arrays nest.
	SpecDepth = 128
	// SpecRefs bounds the $ref occurrences of a document.
	SpecRefs = 100_000
	// RefDepth bounds the longest chain of local $refs (a component whose
	// subtree refers to one that refers to another, ...), cycles cut.
	RefDepth = 500
	// RefWork bounds the sum, over every $ref, of the chain length it
	// starts: what resolving each reference without sharing costs.
	RefWork = 4_000_000
	// SpecAliases bounds YAML aliases (*name) in a document.
	SpecAliases = 1000
)

// SUMMARY.md: checked before the markdown parser reads it; over a bound the
// Git import fails naming it, nothing stored.
const (
	// SummaryBytes bounds SUMMARY.md (2,000 pages of about 100 bytes each
	// fit five times; the markdown parser reads 1 MiB of the worst input
	// within the other bounds in about a second).
	SummaryBytes = 1 << 20
	// SummaryIndent bounds the leading columns of a SUMMARY.md line (a tab
	// counts 4): nested lists indent at most 10 levels (gitbook.MaxDepth).
	SummaryIndent = 128
	// SummaryMarkers bounds the container markers (list items, block
	// quotes) that open one line of SUMMARY.md ("- - - * > 1. x").
	SummaryMarkers = 16
	// SummaryLine bounds one line of SUMMARY.md, in bytes, and
	// SummaryParagraph the lines of a paragraph (lines that open no list
	// item or heading): the markdown parser's inline and link-definition
	// work grows faster than linearly within a paragraph.
	SummaryLine      = 1024
	SummaryParagraph = 8
)

// .gitbook.yaml: its size is checked before the YAML decoder reads it (over
// it the Git import fails naming the bound, nothing stored); its redirects
// past these bounds are left out and reported, the import goes on.
const (
	// ConfigBytes bounds .gitbook.yaml (1,000 redirects of a few hundred
	// bytes each fit).
	ConfigBytes = 1 << 20
	// Redirects bounds the redirects of one repository: the first ones of
	// .gitbook.yaml are kept.
	Redirects = 1000
	// RedirectPath bounds a redirect's old path, in bytes (GitBook's site
	// redirects' sources: 512), and RedirectTarget its page file's path.
	RedirectPath   = 512
	RedirectTarget = 1024
	// Problems bounds the problems one import reports (redirects left
	// out, with why): the rest are counted.
	Problems = 20
)
