// Package links builds the URLs that content's resources report.
package links

import "strings"

// URLs are the bases of resource URLs.
type URLs struct {
	Public string // the gateway: base of urls.location (Public + "/v1/...")
	App    string // the web app: base of urls.app
}

// New trims trailing slashes off the bases.
func New(public, app string) URLs {
	return URLs{Public: strings.TrimRight(public, "/"), App: strings.TrimRight(app, "/")}
}

// Location is the API URL of a path under /v1 ("/spaces/x").
func (u URLs) Location(path string) string { return u.Public + "/v1" + path }

// InApp is the web app URL of a path ("/s/x").
func (u URLs) InApp(path string) string { return u.App + path }
