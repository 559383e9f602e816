package organization

import (
	"github.com/docspub/platform/libs/apierr"
)

// The limits of organizations' requests and of the list filters of every
// context, in characters unless said otherwise (the
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
	MaxSiteID            = 64  // defaultContent.site
	MaxFilter            = 255 // the search and title filters of lists
)

// CheckFilter checks a list filter (search, title): single-line text of at
// most MaxFilter characters.
func CheckFilter(name, s string) error {
	var pr apierr.Problems
	pr.Text(name, s, 0, MaxFilter)
	return pr.Err()
}
