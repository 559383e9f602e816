package access

import "github.com/docspub/platform/libs/roles"

// Grant is what one caller may do on one space: the space's identity, the
// caller's level on it and whether it is locked. The space service hands it
// out (after checking that the space exists, is not deleted, and that the
// caller may act); comments, custom field values and change requests work
// within it.
type Grant struct {
	Organization string
	Space        string
	Revision     string // the space's current revision
	Level        roles.Role
	Locked       bool // editMode locked: no content changes
	User         string
}

// Can reports whether the grant allows an action.
func (g Grant) Can(a Action) bool { return Allows(g.Level, a) }
