// Package openapi is the organization's OpenAPI specs: a spec is a slug and
// a source (a URL or a text); creating or replacing it starts its
// processing, a job (libs/jobs) that fetches the source through the URL
// guard, parses it (3.1, 3.0 and Swagger 2.0, JSON or YAML, $refs resolved)
// and, when the content changed, records a new immutable version.
package openapi

import (
	"context"
	"io"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/paging"
)

// Processing states.
const (
	StatePending  = "pending"
	StateProgress = "progress"
	StateComplete = "complete"
)

// Processing error codes.
const (
	ErrFetchTimeout = "FETCH_TIMEOUT"
	ErrFetch        = "FETCH_ERROR"
	ErrParse        = "PARSE_ERROR"
)

// Visibilities.
const (
	VisibilityPrivate = "private"
	VisibilityPublic  = "public"
)

// Limits.
const (
	MaxSlug      = 100
	MaxSourceURL = 2048
	// MaxTextBytes bounds a text source (inside the 1 MiB JSON body every
	// service reads; larger specs come by URL). It is stored in a document
	// of its own.
	MaxTextBytes = 1_000_000
	// MaxSpecBytes bounds a fetched spec; a larger body is a FETCH_ERROR.
	MaxSpecBytes = 32 << 20
	// MaxErrors bounds the processing errors a spec keeps.
	MaxErrors = 20
	// MaxPendingPerOrg bounds an organization's specs waiting for or in
	// processing: beyond it a create or replace is a 429, so that one
	// organization cannot fill the queue that every organization shares.
	MaxPendingPerOrg = 20
)

// Errors.
var (
	ErrNotFound        = apierr.NotFound("OpenAPI spec not found")
	ErrVersionNotFound = apierr.NotFound("OpenAPI spec version not found")
	ErrSlugTaken       = apierr.Conflict("slug: an OpenAPI spec with this slug already exists")
	ErrChanged         = apierr.Conflict("the OpenAPI spec changed meanwhile; try again")
)

// Spec is a stored spec.
type Spec struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Slug         string `bson:"slug"`
	// SlugKey is unique per organization while the spec lives; a removed
	// spec frees it.
	SlugKey    string `bson:"slugKey"`
	SourceURL  string `bson:"sourceURL,omitempty"`
	Visibility string `bson:"visibility"`
	State      string `bson:"processingState"`
	// Generation counts the sources the spec had; processing writes its
	// result only for the generation it read (compare-and-set).
	Generation      int64         `bson:"generation"`
	Processed       int64         `bson:"processed"` // the generation last processed
	LastVersion     string        `bson:"lastVersion,omitempty"`
	LastDigest      string        `bson:"lastDigest,omitempty"`
	LastProcessedAt *time.Time    `bson:"lastProcessedAt,omitempty"`
	LastErrorCode   string        `bson:"lastProcessErrorCode,omitempty"`
	LastErrors      []ErrorObject `bson:"lastProcessedErrors,omitempty"`
	CreatedAt       time.Time     `bson:"createdAt"`
	UpdatedAt       time.Time     `bson:"updatedAt"`
}

// ErrorObject is one processing error (OpenAPIErrorObject).
type ErrorObject struct {
	Message string `bson:"message" json:"message"`
	Code    string `bson:"code,omitempty" json:"code,omitempty"`
}

// Version is an immutable processed content of a spec.
type Version struct {
	ID           string `bson:"_id"`
	Spec         string `bson:"spec"`
	Organization string `bson:"organization"`
	Digest       string `bson:"digest"` // SHA-256 of the content
	Format       string `bson:"format"` // json or yaml
	SourceURL    string `bson:"sourceURL,omitempty"`
	Size         int64  `bson:"size"`
	Blob         string `bson:"blob"`
	// JSONBlob holds the JSON rendering of a YAML version, made when the
	// version was (a JSON version is its own rendering).
	JSONBlob  string    `bson:"jsonBlob,omitempty"`
	CreatedAt time.Time `bson:"createdAt"`
}

// Result is how one processing of a generation ended.
type Result struct {
	Generation  int64
	ProcessedAt time.Time
	ErrorCode   string // "" on success
	Errors      []ErrorObject
	Version     *Version // a new version, when the content changed
	Digest      string
}

// Store keeps specs, their text sources and versions. Reads of a missing
// item are apierr not-found errors; a write whose condition no longer holds
// is a not-found error too (the caller reads again to tell why).
type Store interface {
	// Insert stores a new spec and, when text is not empty, its text; a
	// taken slug is an apierr conflict.
	Insert(ctx context.Context, sp Spec, text []byte, ev envelope.Event) error
	BySlug(ctx context.Context, org, slug string) (Spec, error)
	// BySourceURL returns org's first live spec (by id) whose source is the URL.
	BySourceURL(ctx context.Context, org, u string) (Spec, error)
	ByID(ctx context.Context, id string) (Spec, error)
	List(ctx context.Context, org string, p paging.Request) ([]Spec, int, error)
	// SetSource stores sp's new source (generation sp.Generation, the one
	// before it being sp.Generation-1) and state pending.
	SetSource(ctx context.Context, sp Spec, text []byte, ev envelope.Event) error
	SetVisibility(ctx context.Context, sp Spec, ev envelope.Event) error
	Remove(ctx context.Context, sp Spec, ev envelope.Event) error
	// Text returns the text source of a generation.
	Text(ctx context.Context, spec string, generation int64) ([]byte, error)
	// SetState sets the processing state while generation is current.
	SetState(ctx context.Context, id string, generation int64, state string) error
	// Finish records a result while its generation is current, with the new
	// version (already stored) and the event.
	Finish(ctx context.Context, id string, r Result, ev envelope.Event) error
	// InsertVersion stores a version, its content and, when not nil, its
	// JSON rendering; the same id twice is not an error (a resumed job).
	InsertVersion(ctx context.Context, v Version, content, rendered []byte) error
	Versions(ctx context.Context, spec string, p paging.Request) ([]Version, int, error)
	Version(ctx context.Context, spec, id string) (Version, error)
	Content(ctx context.Context, v Version) ([]byte, error)
	// OpenContent streams a version's content, or its JSON rendering, and
	// says its size.
	OpenContent(ctx context.Context, v Version, rendered bool) (io.ReadCloser, int64, error)
	// Pending counts org's live specs waiting for or in processing.
	Pending(ctx context.Context, org string) (int, error)
	// Unprocessed lists up to limit live specs whose generation was not
	// processed and that last changed before t.
	Unprocessed(ctx context.Context, before time.Time, limit int) ([]Spec, error)
}
