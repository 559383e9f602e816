// Package people is content's view of identity's users and memberships: the
// user objects that comments and reactions show, and members' organization
// roles. Identity owns them; content keeps a projection fed by
// identity.events (see peoplemongo).
package people

import (
	"context"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/links"
)

// User is a user as the API renders it (contentapi.User: change request
// events carry it).
type User = contentapi.User

// UserURL is a user's urls object.
type UserURL = contentapi.LocationURLs

// Profile is what the projection knows of a user.
type Profile struct {
	ID          string `bson:"_id"`
	DisplayName string `bson:"displayName"`
	Email       string `bson:"email,omitempty"`
	PhotoURL    string `bson:"photoURL,omitempty"`
}

// Render renders a profile; a user the projection does not know yet (their
// event is on its way) shows with their id as display name.
func Render(u links.URLs, id string, p Profile, known bool) User {
	if !known {
		p = Profile{ID: id, DisplayName: id}
	}
	return User{Object: "user", ID: id, DisplayName: p.DisplayName, Email: p.Email, PhotoURL: p.PhotoURL,
		URLs: UserURL{Location: u.Location("/users/" + id)}}
}

// Directory answers who users are and which role they hold.
type Directory interface {
	// Users renders the users with the ids (unknown ones too, see Render).
	Users(ctx context.Context, ids []string) (map[string]User, error)
	// Role is the user's role in org and whether they are a member.
	Role(ctx context.Context, org, user string) (roles.Role, bool, error)
}
