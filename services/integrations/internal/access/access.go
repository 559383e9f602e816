// Package access is the integrations service's permission table: what each
// organization role allows on translation settings, OpenAPI specs and Git
// sync. Git sync asks content about the space itself (see contentclient).
package access

import (
	"slices"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/roles"
)

// Action is something a caller does to an organization's integrations.
type Action string

// The actions.
const (
	View   Action = "view"   // read translation settings and OpenAPI specs
	Edit   Action = "edit"   // create, replace and delete OpenAPI specs
	Manage Action = "manage" // create, change and delete translation settings
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

// Enter checks that the caller is a member of org (what is not theirs is
// answered as notFound, like a resource of another tenant) whose role
// allows a (403 otherwise), and returns the role.
func Enter(c Caller, org string, a Action, notFound error, what string) (roles.Role, error) {
	role, ok := c.Role(org)
	if !ok || !roles.Valid(role) { // a guest has no role here
		return "", notFound
	}
	if !Allows(role, a) {
		return role, apierr.Forbidden("your role in this organization does not allow you to %s", what)
	}
	return role, nil
}
