package section

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
)

// Store is what sections and groups need from storage. Every write records
// its event with the change (the outbox); reads of one missing item return an
// apierr not-found error; a path used by another live section of the site is
// an apierr conflict.
type Store interface {
	InsertSection(ctx context.Context, s Section, ev envelope.Event) error
	// UpdateSection applies change to the live section id of site and
	// stores what it changed with the event change returns, as a
	// compare-and-set: a change that lost a race with another runs again on
	// the section as it now is, and after a few lost races the update is a
	// conflict; one that changes nothing writes nothing. It returns the
	// section as stored.
	UpdateSection(ctx context.Context, site, id string, change func(*Section) (envelope.Event, error)) (Section, error)
	RemoveSection(ctx context.Context, site, id string, ev envelope.Event) error
	Section(ctx context.Context, site, id string) (Section, error)
	// Sections returns a page of a site's sections by position then id, and
	// the count of all of them.
	Sections(ctx context.Context, q Query) ([]Section, int, error)
	// SiteSections returns every section of a site by position then id.
	SiteSections(ctx context.Context, site string) ([]Section, error)

	InsertGroup(ctx context.Context, g Group, ev envelope.Event) error
	// UpdateGroup changes a group as UpdateSection changes a section.
	UpdateGroup(ctx context.Context, site, id string, change func(*Group) (envelope.Event, error)) (Group, error)
	RemoveGroup(ctx context.Context, site, id string, ev envelope.Event) error
	Group(ctx context.Context, site, id string) (Group, error)
	Groups(ctx context.Context, q Query) ([]Group, int, error)
	SiteGroups(ctx context.Context, site string) ([]Group, error)

	// SetPosition stores a new position without an event (renumbering keeps
	// the order, so nothing a reader sees changes).
	SetPosition(ctx context.Context, site string, n Node, position int64) error
}

// Query selects a page of a site's sections or groups by position.
type Query struct {
	Site          string
	AfterPosition int64
	AfterID       string // "" for the first page
	Limit         int
}
