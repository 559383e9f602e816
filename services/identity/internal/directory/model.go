// Package directory is identity's domain: organizations, users, members,
// teams and e-mail invites (invite links, SAML providers and API tokens
// are packages invite, saml and token), who may change them (through
// package access) and the events their changes publish. It knows neither gin
// nor the MongoDB driver: it talks to storage through Store.
package directory

import (
	"time"

	"github.com/docspub/platform/libs/roles"
)

// Defaults of a new organization.
const (
	DefaultOrganizationType = "business"
	DefaultPlan             = "free_2024"
)

// Organization is a tenant.
type Organization struct {
	ID             string          `bson:"_id"`
	Title          string          `bson:"title"`
	CreatedAt      time.Time       `bson:"createdAt"`
	EmailDomains   []string        `bson:"emailDomains"`
	Hostname       string          `bson:"hostname,omitempty"`
	Type           string          `bson:"type"`
	Plan           string          `bson:"plan"`
	DefaultRole    roles.Role      `bson:"defaultRole"` // "" = guest
	DefaultContent *DefaultContent `bson:"defaultContent,omitempty"`
	Logo           string          `bson:"logo,omitempty"`
	SSO            bool            `bson:"sso"`
	AI             bool            `bson:"ai"`
	InviteLinks    bool            `bson:"inviteLinks"`
}

// DefaultContent points at the content shown by default.
type DefaultContent struct {
	Type string `bson:"type" json:"type"`
	Site string `bson:"site" json:"site"`
}

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

// MemberKey is the unique key of a live membership.
func MemberKey(org, user string) string { return org + "/" + user }

// Team groups members of an organization.
type Team struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Title        string    `bson:"title"`
	CreatedAt    time.Time `bson:"createdAt"`
}

// Team roles.
const (
	TeamOwner  = "owner"
	TeamMember = "member"
)

// TeamMembership is a user's membership of a team.
type TeamMembership struct {
	ID           string    `bson:"_id"`
	Key          string    `bson:"key"` // team/user, unique while live
	Organization string    `bson:"organization"`
	Team         string    `bson:"team"`
	User         string    `bson:"user"`
	Role         string    `bson:"role"` // TeamOwner or TeamMember
	AddedAt      time.Time `bson:"addedAt"`
}

// TeamMembershipKey is the unique key of a live team membership.
func TeamMembershipKey(team, user string) string { return team + "/" + user }
