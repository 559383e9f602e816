// Package sharelink is the sites service's share links: secret links that
// let anyone holding them read a site published for share-link visitors
// (SITE/share-links). Only callers who may manage the site (access.Manage)
// see, create, change or revoke them. Active answers, at once and without a
// cache, whether a key opens a site; it is what package site consumes as
// its ShareKeys.
//
// The key is a 256-bit random secret. It is stored twice: in clear, because
// managers see it again in urls.published on every list and update (as
// GitBook shows a share link's URL again), and as its SHA-256, the unique
// index Active looks keys up by. Events never carry the key: their data is
// the share link without urls.published. A revoked (deleted) link loses both
// at once.
//
// The package knows neither gin nor the MongoDB driver: it talks to storage
// through Store and to sites through SiteAccess.
package sharelink

import (
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// Object is the object field of a share link.
const Object = "share-link"

// Key sizes: KeyBytes random bytes written as KeyLength base62 characters
// (62^43 > 2^256).
const (
	KeyBytes  = 32
	KeyLength = 43
)

// Link is a stored share link.
type Link struct {
	ID           string `bson:"_id"`
	Organization string `bson:"organization"`
	Site         string `bson:"site"`
	Name         string `bson:"name"`
	Active       bool   `bson:"active"`
	// Key is the secret itself, shown to managers in urls.published.
	Key string `bson:"key"`
	// KeyHash is HashKey(Key), unique: Active finds a key by it.
	KeyHash   string    `bson:"keyHash"`
	CreatedAt time.Time `bson:"createdAt"`
	UpdatedAt time.Time `bson:"updatedAt"`
}

// NewKey returns a fresh secret key.
func NewKey() string { return ids.Random(KeyBytes, KeyLength) }

// HashKey is the hex SHA-256 of a key, the form a key is looked up by.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// View is a share link as the API renders it.
type View struct {
	Object    string    `json:"object"`
	ID        string    `json:"id"`
	CreatedAt time.Time `json:"createdAt"`
	Name      string    `json:"name"`
	Active    bool      `json:"active"`
	URLs      LinkURLs  `json:"urls"`
}

// LinkURLs is a share link's urls object. Published holds the key; it is
// left out of events.
type LinkURLs struct {
	Published string `json:"published,omitempty"`
}

// EventData is the data of share link events: the share link without its
// key (no urls.published), and the site it opens.
type EventData struct {
	View
	Site string `json:"site"`
}

// URLs configures the URLs the service renders.
type URLs struct {
	// Published is the base URL of published sites, such as
	// "https://sites.example.com"; a site is published at <Published>/<org>/<siteId>
	// (the site service's form for a site without a basename).
	Published string
}

// Share is the URL opening site siteID of org with key: <Published>/<org>/<siteId>?shareKey=<key>.
func (u URLs) Share(org, siteID, key string) string {
	return strings.TrimRight(u.Published, "/") + "/" + url.PathEscape(org) + "/" + url.PathEscape(siteID) +
		"?shareKey=" + url.QueryEscape(key)
}

// Render renders a link with its key in urls.published.
func Render(u URLs, l Link) View {
	v := render(l)
	v.URLs.Published = u.Share(l.Organization, l.Site, l.Key)
	return v
}

func render(l Link) View {
	return View{Object: Object, ID: l.ID, CreatedAt: l.CreatedAt, Name: l.Name, Active: l.Active}
}

// eventData is what an event says of a link: never its key.
func eventData(l Link) EventData { return EventData{View: render(l), Site: l.Site} }

// NewLink is the body creating a share link. The name is required (it may
// be empty); a new link is active.
type NewLink struct {
	Name nullable.Field[string] `json:"name"`
}

func (n NewLink) validate() error {
	var p apierr.Problems
	switch {
	case !n.Name.Set:
		p.Add("name", "is required")
	case n.Name.Null:
		p.Add("name", "must be a string")
	default:
		p.Text("name", n.Name.Value, 0, limits.ShareLinkName)
	}
	return p.Err()
}

// Patch is the body changing a share link: its name, whether it is active,
// or both. At least one must be given; neither may be null.
type Patch struct {
	Name   nullable.Field[string] `json:"name"`
	Active nullable.Field[bool]   `json:"active"`
}

// Change is what an update writes: only the fields a patch changed (nil:
// unchanged), so concurrent patches of different fields never undo one
// another (a rename must not re-activate a link deactivated meanwhile).
type Change struct {
	Name      *string
	Active    *bool
	UpdatedAt time.Time
}

// apply validates the patch and applies it to l; the change lists the
// fields whose value differs.
func (p Patch) apply(l *Link) (Change, error) {
	var probs apierr.Problems
	if !p.Name.Set && !p.Active.Set {
		return Change{}, apierr.BadRequest("the body must set name or active")
	}
	if p.Name.Set {
		if p.Name.Null {
			probs.Add("name", "must be a string")
		} else {
			probs.Text("name", p.Name.Value, 0, limits.ShareLinkName)
		}
	}
	if p.Active.Set && p.Active.Null {
		probs.Add("active", "must be a boolean")
	}
	if err := probs.Err(); err != nil {
		return Change{}, err
	}
	var ch Change
	if name := p.Name.Value; p.Name.Set && name != l.Name {
		l.Name, ch.Name = name, &name
	}
	if active := p.Active.Value; p.Active.Set && active != l.Active {
		l.Active, ch.Active = active, &active
	}
	return ch, nil
}

// changed reports whether the change writes anything.
func (c Change) changed() bool { return c.Name != nil || c.Active != nil }

// Page asks for one page of a site's links in creation order: those after
// the link AfterID when it is set, at most Limit of them (0: all).
type Page struct {
	AfterID string
	Limit   int
}
