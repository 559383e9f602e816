// Package section is the sites service's structure of a site: its sections
// (each holding site spaces, the variants of the section), the section groups
// that gather sections, their order, the site's default section, and the
// structure the published view renders (Service.Structure).
//
// Site spaces themselves belong to the site context: this package asks it to
// add, list and remove them through SiteAccess, which also decides who may do
// what on a site (Enter).
package section

import "time"

// Section is a stored site section.
type Section struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Site         string `bson:"site"`
	Title        string `bson:"title"`
	Path         string `bson:"path"` // unique within the site
	Description  string `bson:"description,omitempty"`
	Condition    string `bson:"condition,omitempty"`
	Icon         string `bson:"icon,omitempty"`
	// Group is the id of the section group holding the section; "" when ungrouped.
	Group   string `bson:"group"`
	Default bool   `bson:"default"`
	// DefaultSiteSpace is the site space a PATCH made the section's default;
	// "" (or one removed since): the site context's default, else the first.
	DefaultSiteSpace string    `bson:"defaultSiteSpace,omitempty"`
	Position         int64     `bson:"position"`
	CreatedAt        time.Time `bson:"createdAt"`
	UpdatedAt        time.Time `bson:"updatedAt"`
}

// Group is a stored section group. Groups sit at the top level of a site,
// among the ungrouped sections.
type Group struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Site         string    `bson:"site"`
	Title        string    `bson:"title"`
	Icon         string    `bson:"icon,omitempty"`
	Position     int64     `bson:"position"`
	CreatedAt    time.Time `bson:"createdAt"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// DefaultTitle is the title of a section whose space has too short a title.
const DefaultTitle = "Untitled section"

// Kinds of ordered items, as position pointers name them.
const (
	KindSection = "site-section"
	KindGroup   = "site-section-group"
)

// Node is a section or a group in the order of a site: at the top level
// (Parent "") or inside a group (Parent is the group id; sections only).
type Node struct {
	Kind     string
	ID       string
	Parent   string
	Position int64
}

// Ref points at an item of the site: a section or a group.
type Ref struct {
	Kind string
	ID   string
}

// Position asks for a place: right before an item, right after one, or
// between two adjacent ones. Neither: at the end.
type Position struct {
	Before, After *Ref
}
