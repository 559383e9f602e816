// Package access is the sites service's permission table: what each
// organization role allows on sites, their sections, site spaces and share
// links.
package access

import (
	"slices"

	"github.com/docspub/platform/libs/roles"
)

// Action is something a caller does to a site.
type Action string

// The actions.
const (
	View   Action = "view"   // read sites, sections, site spaces, the published view of unpublished sites
	Edit   Action = "edit"   // create and change sites, sections, section groups, site spaces; publish
	Manage Action = "manage" // delete sites; create, see and revoke share links; the adaptive schema
)

var allowed = map[roles.Role][]Action{
	roles.Read:    {View},
	roles.Comment: {View},
	roles.Edit:    {View},
	roles.Review:  {View},
	roles.Create:  {View, Edit},
	roles.Admin:   {View, Edit, Manage},
}

// Allows reports whether a role allows an action; no role allows nothing.
func Allows(r roles.Role, a Action) bool { return slices.Contains(allowed[r], a) }

// Caller is the calling user and their role in each organization they
// belong to (see roles.Caller).
type Caller = roles.Caller
