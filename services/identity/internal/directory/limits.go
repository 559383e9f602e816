package directory

import (
	"github.com/docspub/platform/libs/apierr"
)

// The limits of identity's requests, in characters unless said otherwise (the
// README's Limits table lists them). Single-line texts are also refused when
// they hold control characters, NUL or invisible format characters
// (apierr.Problems.Text).
const (
	MinOrganizationTitle = 2
	MaxOrganizationTitle = 255
	MinHostname          = 3
	MaxHostname          = 32
	MaxEmailDomain       = 253 // bytes, one domain
	MaxEmailDomains      = 100 // domains of an organization
	MaxURL               = 2048
	MaxSiteID            = 64 // defaultContent.site
	MaxTeamTitle         = 64
	MaxTeamMembers       = 1000 // user references in one team request (members, add, remove, memberships)
	MaxEmail             = 254  // bytes
	MaxInvites           = 1000 // e-mails in one POST ORG/invites
	MaxDisplayName       = 255
	MaxFilter            = 255 // the search and title filters of lists
)

// checkFilter checks a list filter (search, title): single-line text of at
// most MaxFilter characters.
func checkFilter(name, s string) error {
	var pr apierr.Problems
	pr.Text(name, s, 0, MaxFilter)
	return pr.Err()
}

// checkRefs checks the count of a team request's user references.
func checkRefs(pr *apierr.Problems, name string, n int) {
	if n > MaxTeamMembers {
		pr.Add(name, "must list at most %d users", MaxTeamMembers)
	}
}
