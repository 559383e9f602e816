package organization

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/roles"
)

// Store keeps organizations. Every write records its event on the written
// document in the same update (the outbox). A read of a missing
// organization is an apierr not-found error.
type Store interface {
	Insert(ctx context.Context, o Organization, ev envelope.Event) error
	// Update applies ch to the organization id.
	Update(ctx context.Context, id string, ch Change, ev envelope.Event) error

	Organization(ctx context.Context, id string) (Organization, error)
	// OrganizationsByID returns the organizations with the ids, by id.
	OrganizationsByID(ctx context.Context, ids []string) ([]Organization, error)
	// OrganizationsByEmailDomain returns the organizations whose e-mail
	// domains contain domain, by id.
	OrganizationsByEmailDomain(ctx context.Context, domain string) ([]Organization, error)
	// HostnameTaken reports whether an organization other than exceptOrg
	// uses hostname.
	HostnameTaken(ctx context.Context, hostname, exceptOrg string) (bool, error)
}

// Members tells what organizations need of memberships (package member's
// Lookup): a user's role in one organization (an apierr not-found error
// when not a member), in each of their organizations, and their e-mail.
type Members interface {
	Role(ctx context.Context, org, user string) (roles.Role, error)
	Roles(ctx context.Context, user string) (map[string]string, error)
	Email(ctx context.Context, user string) (string, error)
}
