// Package changerequest is content's review flow: change requests with their
// own revision, numbered per space, updated from the space and merged into it
// three ways (package merge), fed by imports, printed as PDF.
package changerequest

import (
	"context"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Statuses.
const (
	StatusDraft    = "draft"
	StatusOpen     = "open"
	StatusArchived = "archived"
	StatusMerged   = "merged"
)

// MaxSubject bounds a subject.
const MaxSubject = limits.ChangeRequestSubject

// ChangeRequest is a stored change request.
type ChangeRequest struct {
	ID                     string     `bson:"_id"`
	Space                  string     `bson:"space"`
	Organization           string     `bson:"organization"`
	Number                 int        `bson:"number"`
	Status                 string     `bson:"status"`
	Subject                string     `bson:"subject"`
	CreatedBy              string     `bson:"createdBy"`
	Contributors           []string   `bson:"contributors"`
	CreatedAt              time.Time  `bson:"createdAt"`
	UpdatedAt              time.Time  `bson:"updatedAt"`
	MergedBy               string     `bson:"mergedBy,omitempty"`
	MergedAt               *time.Time `bson:"mergedAt,omitempty"`
	Revision               string     `bson:"revision"`
	RevisionInitial        string     `bson:"revisionInitial"`
	RevisionMergedAncestor string     `bson:"revisionMergedAncestor"` // the space revision last merged in (the base of the next merge)
	RevisionMerged         string     `bson:"revisionMerged,omitempty"`
	// A merge claims the change request before it moves the space: MergingTo
	// is the revision it moves the space to (from MergingFrom), by
	// MergingBy, and MergingUntil when an unfinished claim may be undone.
	// While it is set nothing else changes the change request.
	MergingTo    string    `bson:"mergingTo,omitempty"`
	MergingFrom  string    `bson:"mergingFrom,omitempty"`
	MergingBy    string    `bson:"mergingBy,omitempty"`
	MergingUntil time.Time `bson:"mergingUntil,omitzero"`
}

// Query selects a page of a space's change requests, newest first.
type Query struct {
	Space       string
	Status      string // "" any
	Contributor string
	Creator     string
	AfterID     string
	Limit       int
}

// Store keeps change requests. Numbers come from a per-space counter that
// never hands out one number twice.
type Store interface {
	NextNumber(ctx context.Context, space string) (int, error)
	Insert(ctx context.Context, cr ChangeRequest, ev envelope.Event) error
	// Update stores what differs from was in now, with the events, provided
	// the stored change request is still as was in what every change
	// depends on (a compare-and-set): its status, its revision, the space
	// revision last merged in and its merge claim (MergingTo). Otherwise it
	// writes nothing and is not found.
	Update(ctx context.Context, was, now ChangeRequest, events ...envelope.Event) error
	// Claimed returns up to limit change requests whose merge claim ended before t.
	Claimed(ctx context.Context, before time.Time, limit int) ([]ChangeRequest, error)
	Get(ctx context.Context, space, id string) (ChangeRequest, error)
	ByNumber(ctx context.Context, space string, number int) (ChangeRequest, error)
	List(ctx context.Context, q Query) ([]ChangeRequest, int, error)
	// OpenComments counts the open comments of each change request.
	OpenComments(ctx context.Context, ids []string) (map[string]int, error)
	DeleteSpace(ctx context.Context, space string) error
}

// Revisions is what change requests need of the content model.
type Revisions interface {
	Get(ctx context.Context, id string) (revision.Revision, error)
	Insert(ctx context.Context, r revision.Revision) error
}

// Spaces moves a space to a new revision for a change request's merge
// (compare-and-set on the revision and on the space's unfinished merge).
type Spaces interface {
	Advance(ctx context.Context, g access.Grant, from, to, changeRequest string) error
	// Head returns the space's revision and its unfinished merge ("" none).
	Head(ctx context.Context, spaceID string) (revision, merging string, err error)
	// Settled clears the space's unfinished merge of changeRequest.
	Settled(ctx context.Context, org, spaceID, changeRequest string) error
}

// Importer fetches outside content into a revision's pages.
type Importer interface {
	// Import returns base's pages and files with the content at url merged in
	// (pages matched by path), and how many resources were imported of how many found.
	Import(ctx context.Context, base revision.Revision, source, url string) (pages []revision.Page, files []revision.File, imported, total int, err error)
}

// Printer renders pages as a PDF.
type Printer interface {
	PDF(ctx context.Context, title string, rev revision.Revision, pageID string) ([]byte, error)
}
