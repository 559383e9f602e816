// Package organization is identity's organizations: the tenants, their
// settings and who may change them, and the caller of a request within one
// (Enter: the organization and the caller's role, briefly cached). The
// contexts built on it (member, team, invite, saml) start their operations
// from a Caller. It knows neither gin nor the MongoDB driver: it talks to
// storage through Store and to memberships through Members.
package organization

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

// Change is what an update of an organization sets; nil fields stay as
// they are.
type Change struct {
	Title        *string
	EmailDomains *[]string
	Hostname     *string // "" removes it
	DefaultRole  *roles.Role
	// DefaultContent is set when SetDefaultContent is; nil removes it.
	SetDefaultContent bool
	DefaultContent    *DefaultContent
	Logo              *string // "" removes it
	SSO               *bool
	AI                *bool
	InviteLinks       *bool
}

// Empty reports whether the change sets nothing.
func (c Change) Empty() bool { return c == Change{} }
