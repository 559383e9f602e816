// Package space is content's tree of collections and spaces: creating,
// changing, ordering, moving and transferring them, soft deletion with a
// seven-day restore window and purge, duplication, and the access every other
// part of content asks for before it touches a space (Service.Enter).
package space

import (
	"time"

	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
)

// Space is a stored space.
type Space struct {
	ID           string              `bson:"_id"`
	Organization string              `bson:"organization"`
	Title        string              `bson:"title"`
	Emoji        string              `bson:"emoji"`
	Visibility   string              `bson:"visibility"`
	EditMode     string              `bson:"editMode"`
	Parent       string              `bson:"parent"` // collection id; "" at the top
	Position     int64               `bson:"position"`
	DefaultLevel access.DefaultLevel `bson:"defaultLevel"`
	Revision     string              `bson:"revision"`
	CreatedAt    time.Time           `bson:"createdAt"`
	UpdatedAt    time.Time           `bson:"updatedAt"`
	Deleted      bool                `bson:"deleted"` // indexed twin of DeletedAt
	DeletedAt    *time.Time          `bson:"deletedAt,omitempty"`
	GitSync      *GitSync            `bson:"gitSync,omitempty"` // set by the integrations service
	Settings     `bson:",inline"`
	// Merging names the change request whose merge moved the space to its
	// revision and is not finished yet (see changerequest); while it is set
	// no other merge advances the space.
	Merging string `bson:"merging,omitempty"`
	// PendingIndex says the space changed organization and its search index
	// still has to follow (a transfer resumes it).
	PendingIndex bool `bson:"pendingIndex,omitempty"`
}

// Collection is a stored collection.
type Collection struct {
	ID           string              `bson:"_id"`
	Organization string              `bson:"organization"`
	Title        string              `bson:"title"`
	Description  string              `bson:"description,omitempty"`
	Parent       string              `bson:"parent"`
	Position     int64               `bson:"position"`
	DefaultLevel access.DefaultLevel `bson:"defaultLevel"`
	CreatedAt    time.Time           `bson:"createdAt"`
	UpdatedAt    time.Time           `bson:"updatedAt"`
}

// Revision is the stored head of a space's content. This issue keeps only
// its identity; the content model fills it.
type Revision struct {
	ID           string    `bson:"_id"`
	Space        string    `bson:"space"`
	Organization string    `bson:"organization"`
	Type         string    `bson:"type"`
	Parents      []string  `bson:"parents"`
	CreatedAt    time.Time `bson:"createdAt"`
}

// Space visibilities.
const (
	VisibilityPublic       = "public"
	VisibilityUnlisted     = "unlisted"
	VisibilityShareLink    = "share-link"
	VisibilityVisitorAuth  = "visitor-auth"
	VisibilityInCollection = "in-collection"
	VisibilityPrivate      = "private"
)

// Visibilities lists every visibility.
var Visibilities = []string{VisibilityPublic, VisibilityUnlisted, VisibilityShareLink, VisibilityVisitorAuth, VisibilityInCollection, VisibilityPrivate}

// Edit modes.
const (
	EditLive   = "live"
	EditLocked = "locked"
)

// Limits (package limits).
const (
	MaxTitle       = limits.SpaceTitle
	MaxDescription = limits.SpaceDescription
	MaxEmoji       = limits.SpaceEmoji
	// RestoreWindow is how long a deleted space can be restored; after it the
	// purge job removes the space for good.
	RestoreWindow = 7 * 24 * time.Hour
)

// Counts are a space's exact counters.
type Counts struct {
	Comments            int
	ChangeRequests      int
	ChangeRequestsOpen  int
	ChangeRequestsDraft int
}

// Node is a space or a collection in the tree, for positions.
type Node struct {
	Kind     string // "space" or "collection"
	ID       string
	Parent   string
	Position int64
}
