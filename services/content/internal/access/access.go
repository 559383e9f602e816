// Package access is content's one permission table: what each level allows
// on collections, spaces and comments, how a member's level on a piece of
// content follows from their organization role and the content's
// defaultLevel chain, and the permissions objects the API reports.
package access

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
)

// Action is something a caller does to content.
type Action string

// The actions. The README's permission table lists them per level.
const (
	View      Action = "view"      // read a space or collection, its lists, comments and custom field values
	Comment   Action = "comment"   // post comments and replies, react, resolve comments
	Edit      Action = "edit"      // change title and emoji, content, custom field values
	Review    Action = "review"    // review change requests
	Merge     Action = "merge"     // merge change requests
	Create    Action = "create"    // create spaces and collections (in an organization or a collection), duplicate a space
	Admin     Action = "admin"     // delete, restore, move, transfer; set editMode, visibility, defaultLevel; delete others' comments
	Configure Action = "configure" // organization level: define custom fields
)

// allowed is the permission table: the actions each level allows.
var allowed = map[roles.Role][]Action{
	roles.Read:    {View},
	roles.Comment: {View, Comment},
	roles.Edit:    {View, Comment, Edit},
	roles.Review:  {View, Comment, Edit, Review, Merge},
	roles.Create:  {View, Comment, Edit, Review, Merge, Create},
	roles.Admin:   {View, Comment, Edit, Review, Merge, Create, Admin, Configure},
}

// Actions are every action, in the table's order.
var Actions = []Action{View, Comment, Edit, Review, Merge, Create, Admin, Configure}

// Allows reports whether a level allows an action. The empty level (no
// access) allows nothing.
func Allows(level roles.Role, a Action) bool { return slices.Contains(allowed[level], a) }

// MinLevel is the lowest level that allows an action.
func MinLevel(a Action) roles.Role {
	for i := len(roles.All) - 1; i >= 0; i-- {
		if Allows(roles.All[i], a) {
			return roles.All[i]
		}
	}
	return roles.Admin
}

// Caller is the calling user and their role in each organization they
// belong to (see roles.Caller).
type Caller = roles.Caller

// DefaultLevel is the level organization members get on a piece of content:
// Inherit (from the parent collection, and at the top from their
// organization role), a role, or NoAccess (null: only admins and explicit
// grants; JSON null).
type DefaultLevel string

// The special default levels.
const (
	Inherit  DefaultLevel = "inherit"
	NoAccess DefaultLevel = ""
)

// ParseDefaultLevel reads a default level: "inherit", a role name, or null
// (given as ok=false by the caller's JSON decoding, see MarshalJSON).
func ParseDefaultLevel(s string) (DefaultLevel, error) {
	if s == string(Inherit) || roles.Valid(roles.Role(s)) {
		return DefaultLevel(s), nil
	}
	return "", fmt.Errorf("must be inherit, null or one of %v", roles.Names)
}

// MarshalJSON renders NoAccess as null.
func (d DefaultLevel) MarshalJSON() ([]byte, error) {
	if d == NoAccess {
		return []byte("null"), nil
	}
	return json.Marshal(string(d))
}

// UnmarshalJSON reads null as NoAccess and refuses unknown values.
func (d *DefaultLevel) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*d = NoAccess
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("must be a string or null")
	}
	v, err := ParseDefaultLevel(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// Level is a member's level on a piece of content. chain holds the
// defaultLevel of the content, then of its parent collection, and so on up
// to the top. Admins always have admin. Otherwise the first level in the
// chain that is not Inherit applies, capped by the member's role: a default
// level never raises a member above their organization role. When every
// level inherits, the role applies. NoAccess, a guest and a non-member get
// no access (the empty role).
func Level(role roles.Role, member bool, chain []DefaultLevel) roles.Role {
	if !member || !roles.Valid(role) {
		return roles.Guest
	}
	if role == roles.Admin {
		return roles.Admin
	}
	for _, d := range chain {
		switch d {
		case Inherit:
			continue
		case NoAccess:
			return roles.Guest
		default:
			return lower(role, roles.Role(d))
		}
	}
	return role
}

func lower(a, b roles.Role) roles.Role {
	if roles.Max(a, b) == a {
		return b
	}
	return a
}

// SpacePermissions is a space's permissions object for one caller (the
// wire type is contentapi's: sites renders it on the spaces it embeds).
type SpacePermissions = contentapi.SpacePermissions

// ForSpace is the permissions object of a space on which the caller has
// level. A locked space allows no content edits.
func ForSpace(level roles.Role, locked bool) SpacePermissions {
	edit := Allows(level, Edit) && !locked
	return SpacePermissions{
		View: Allows(level, View), Access: Allows(level, View),
		Admin: Allows(level, Admin), ViewInviteLinks: Allows(level, Admin),
		Edit: edit, TriggerGitSync: edit,
		Comment: Allows(level, Comment), Merge: Allows(level, Merge) && !locked,
		Review: Allows(level, Review), InstallIntegration: Allows(level, Admin),
	}
}

// CollectionPermissions is a collection's permissions object.
type CollectionPermissions struct {
	View            bool `json:"view"`
	Admin           bool `json:"admin"`
	ViewInviteLinks bool `json:"viewInviteLinks"`
	Create          bool `json:"create"`
}

// ForCollection is the permissions object of a collection on which the
// caller has level.
func ForCollection(level roles.Role) CollectionPermissions {
	return CollectionPermissions{
		View: Allows(level, View), Admin: Allows(level, Admin),
		ViewInviteLinks: Allows(level, Admin), Create: Allows(level, Create),
	}
}

// CommentPermissions is a comment's or reply's permissions object.
type CommentPermissions struct {
	View   bool `json:"view"`
	Edit   bool `json:"edit"`
	Reply  bool `json:"reply"`
	Delete bool `json:"delete"`
}

// ForComment is the permissions object of a comment posted by author on
// content where the caller has level: only the author edits the body; the
// author or an admin deletes it.
func ForComment(level roles.Role, caller, author string) CommentPermissions {
	mine := caller != "" && caller == author
	return CommentPermissions{
		View:   Allows(level, View),
		Edit:   mine && Allows(level, Comment),
		Reply:  Allows(level, Comment),
		Delete: (mine && Allows(level, Comment)) || Allows(level, Admin),
	}
}
