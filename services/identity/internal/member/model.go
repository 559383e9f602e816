// Package member is identity's users and their memberships of
// organizations: listing and changing members (the last admin stays),
// adding them by e-mail, the current user, ping's visitor claims, joining
// (for invite links and SSO), and Bootstrap. It knows neither gin nor the
// MongoDB driver: it talks to storage through Store and to teams through
// Teams.
package member

import (
	"time"

	"github.com/docspub/platform/libs/roles"
)

// The limits of members' requests, in characters unless said otherwise
// (the README's Limits table lists them).
const (
	MaxEmail       = 254  // bytes
	MaxInvites     = 1000 // e-mails in one POST ORG/invites
	MaxDisplayName = 255
)

// User is a person who may belong to organizations.
type User struct {
	ID          string    `bson:"_id"`
	DisplayName string    `bson:"displayName"`
	Email       string    `bson:"email"`
	EmailKey    string    `bson:"emailKey"` // lower-cased e-mail, unique
	PhotoURL    string    `bson:"photoURL,omitempty"`
	CreatedAt   time.Time `bson:"createdAt"`
}

// Member is a user's membership of an organization.
type Member struct {
	ID           string     `bson:"_id"`
	Key          string     `bson:"key"` // organization/user, unique while live
	Organization string     `bson:"organization"`
	User         string     `bson:"user"`
	Role         roles.Role `bson:"role"` // "" = guest
	JoinedAt     time.Time  `bson:"joinedAt"`
	LastSeenAt   *time.Time `bson:"lastSeenAt,omitempty"`
	SSO          bool       `bson:"sso"`
	Disabled     bool       `bson:"disabled"`
	// Name and Email copy the user's display name and e-mail, lower-cased,
	// for sorting and searching members.
	Name  string `bson:"name"`
	Email string `bson:"email"`
}

// Key is the unique key of a live membership.
func Key(org, user string) string { return org + "/" + user }

// Change is what an update of a membership sets; nil fields stay as they are.
type Change struct {
	Role       *roles.Role
	SSO        *bool
	LastSeenAt *time.Time
}
