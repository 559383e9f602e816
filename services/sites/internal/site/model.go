// Package site is the sites service's core: sites (create, change, publish,
// delete), the site spaces that bind content's spaces to a site or to one of
// its sections, the site's adaptive schema and its published view, and the
// access every other part of the service asks for before it touches a site
// (Service.Enter).
package site

import (
	"time"

	"github.com/docspub/platform/libs/paging"
)

// Site is a stored site.
type Site struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Type         string `bson:"type"`
	Title        string `bson:"title"`
	Visibility   string `bson:"visibility"`
	Basename     string `bson:"basename,omitempty"`
	// BasenameKey holds the basename, or the id while the site has none, so
	// that a unique index on (organization, basenameKey) keeps basenames
	// unique per organization.
	BasenameKey string `bson:"basenameKey"`
	Proxy       string `bson:"proxy,omitempty"` // the proxy origin; "" for none
	// Hostname is the site's custom hostname ("" for none): once verified
	// (HostnameClaim), readers whose Host is it read the site at its root.
	// The site_hostnames collection holds each verified hostname once (see
	// Store.VerifyHostname).
	Hostname string `bson:"hostname,omitempty"`
	// HostnameClaim is the verification of Hostname (nil: none yet, for a
	// hostname set before hostnames were verified; the checker starts one).
	HostnameClaim   *HostnameClaim `bson:"hostnameClaim,omitempty"`
	Published       bool           `bson:"published"`
	AdaptiveContent bool           `bson:"adaptiveContent"`
	AgentsContext   string         `bson:"agentsContext"`
	// AdaptiveSchema and AdaptiveSchemaAt are where schemas were kept before
	// they got a document of their own (AdaptiveSchema): read, never written.
	AdaptiveSchema   string     `bson:"adaptiveSchema,omitempty"`
	AdaptiveSchemaAt *time.Time `bson:"adaptiveSchemaAt,omitempty"`
	CreatedAt        time.Time  `bson:"createdAt"`
	UpdatedAt        time.Time  `bson:"updatedAt"`
}

// AdaptiveSchema is a site's stored adaptive schema, a document of its own:
// reading a site never loads it, nor the events of its changes.
type AdaptiveSchema struct {
	Site         string    `bson:"_id"`
	Organization string    `bson:"organization"`
	JSON         string    `bson:"jsonSchema"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// SiteSpace is a stored site space: one space shown on a site, at the site
// level (Section "") or in a section.
type SiteSpace struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Site         string    `bson:"site"`
	Section      string    `bson:"section"`
	Space        string    `bson:"space"`
	Path         string    `bson:"path"` // unique per (site, section) among live site spaces
	Default      bool      `bson:"default"`
	Hidden       bool      `bson:"hidden"`
	Condition    string    `bson:"condition,omitempty"`
	Position     int64     `bson:"position"`
	CreatedAt    time.Time `bson:"createdAt"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// Site types (SiteType).
var Types = []string{"basic", "premium", "ultimate", "sponsored", "legacy-basic", "legacy-premium"}

// Site visibilities (SiteVisibility).
const (
	VisibilityPublic      = "public"
	VisibilityUnlisted    = "unlisted"
	VisibilityShareLink   = "share-link"
	VisibilityVisitorAuth = "visitor-auth"
)

// Visibilities lists every site visibility.
var Visibilities = []string{VisibilityPublic, VisibilityUnlisted, VisibilityShareLink, VisibilityVisitorAuth}

// Agents contexts.
const (
	AgentsExcluded = "excluded"
	AgentsIncluded = "included"
)

// Defaults of a new site.
const (
	DefaultType          = "basic"
	DefaultTitle         = "Untitled site"
	DefaultVisibility    = VisibilityPublic
	DefaultAgentsContext = AgentsIncluded
)

// Page selects one keyset page (by position and id, or by id).
type Page = paging.Request

// List is one page of a list.
type List[T any] = paging.List[T]

func siteKey(st Site) string           { return paging.IDCursor(st.ID) }
func siteSpaceKey(ss SiteSpace) string { return paging.PositionCursor(ss.Position, ss.ID) }
