// Package spaceview is the sites service's projection of content's spaces:
// the Space objects its site spaces embed, kept current from content.events
// (space.created/updated/moved/transferred/restored replace the view with
// the space as it now is, its organization included; space.deleted and a
// view with deletedAt hide it; space.purged leaves a deleted tombstone).
// Views are ordered by the space's updatedAt, which content sets on every
// change of the space (the event's time when a view has none): an older
// view never overwrites a newer one, whatever order events and content's
// answers arrive in, so redelivery and replays are harmless and a
// transferred or purged space never comes back from a late event. A view
// carries the space's current revision: a merge (space.updated) reaches
// the reader through the projection, with no call to content per page.
//
// This package is the view and what the domains read; spaceviewmongo
// stores it and applies content's events.
package spaceview

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/internalapi/contentapi"
)

// Space is a projected space.
type Space struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Title        string `bson:"title"`
	Deleted      bool   `bson:"deleted"`
	// Revision is the space's current revision as the view says it: the
	// reader serves it without asking content ("" for a view stored before
	// views carried it: the reader asks content then).
	Revision string `bson:"revision,omitempty"`
	// GitBookSpaceID is the GitBook space the space was migrated from
	// (its view's gitbookSpaceId): links to app.gitbook.com/s/<id>/ are
	// its pages.
	GitBookSpaceID string    `bson:"gitbookSpaceId,omitempty"`
	View           string    `bson:"view"` // the Space as content's event carried it (JSON)
	At             time.Time `bson:"at"`   // the view's version: its updatedAt (else the event's time)
}

// Reader reads the projection.
type Reader interface {
	// Get returns the projected spaces with the ids (deleted ones too;
	// unknown ones are left out).
	Get(ctx context.Context, ids []string) (map[string]Space, error)
}

// ErrBadView is a space view that cannot be read (no id, not JSON).
var ErrBadView = errors.New("space view without an id")

// Parse reads a space view (from content's answer when a site first
// embeds the space) as it is projected (see Project).
func Parse(view json.RawMessage, deleted bool, at time.Time) (Space, error) {
	var v contentapi.Space
	if err := json.Unmarshal(view, &v); err != nil {
		return Space{}, fmt.Errorf("%w: %v", ErrBadView, err)
	}
	return Project(v, view, deleted, at)
}

// Project is the projection of space v, whose JSON is view (kept as it
// came, for the site spaces that embed it): its version is its updatedAt,
// else at; deleted (or a deletedAt in the view) hides it.
func Project(v contentapi.Space, view json.RawMessage, deleted bool, at time.Time) (Space, error) {
	if v.ID == "" {
		return Space{}, fmt.Errorf("%w: no id", ErrBadView)
	}
	if !v.UpdatedAt.IsZero() {
		at = v.UpdatedAt.UTC()
	}
	return Space{ID: v.ID, Organization: v.Organization, Title: v.Title, Deleted: deleted || v.DeletedAt != nil,
		Revision: v.Revision, GitBookSpaceID: v.GitBookSpaceID, View: string(view), At: at}, nil
}
