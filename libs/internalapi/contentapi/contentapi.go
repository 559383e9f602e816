// Package contentapi is the contract of the content service's internal
// API, under /internal/v1: the types content answers and accepts, shared
// by content (the provider) and its callers, and the paths; and of its
// events (events.go: types, versions, payloads, constructors). Two groups,
// each for the services named:
//
// Readers (the sites service serving a published site's readers, who
// hold no token; a token of the service alone):
//
//	GET  /internal/v1/spaces/{spaceId}/current                  Current (404 missing, 409 deleted)
//	GET  /internal/v1/spaces/{spaceId}/content                  Content: the current revision whole
//	GET  /internal/v1/spaces/{spaceId}/files/{revisionId}/{fileId}  a file's bytes (ETag, If-None-Match, Range)
//	POST /internal/v1/orgs/{organizationId}/search              SearchRequest → SearchAnswer
//	GET  /internal/v1/orgs/{organizationId}/storage             what the organization stores
//
// Git sync (the integrations service):
//
//	GET  /internal/v1/spaces/{spaceId}/git/access           GitAccess, for the user the token names
//	GET  /internal/v1/spaces/{spaceId}/git/current          Current
//	GET  /internal/v1/spaces/{spaceId}/git/content          Content
//	POST /internal/v1/spaces/{spaceId}/git/files/{revisionId}  FilesRequest → a tar stream, an entry per file
//	POST /internal/v1/spaces/{spaceId}/git/blobs            file bytes → Blob
//	POST /internal/v1/spaces/{spaceId}/git/blobs/batch      multipart files → Blobs
//	POST /internal/v1/spaces/{spaceId}/git/revisions        Import → Imported (409: parent is not current)
//	PUT  /internal/v1/spaces/{spaceId}/git/sync             GitSync
//
// Members' access (the sites service, for a user):
//
//	POST /internal/v1/spaces/access                         AccessQuestion → AccessAnswer
package contentapi

import (
	"errors"
	"io"
	"net/url"
	"time"
)

// Service is content's name in discovery and the audience of its tokens.
const Service = "content"

// Callers of the groups.
const (
	Sites        = "sites"
	Integrations = "integrations"
)

// SpacePath is the path of a space's internal resources ("" for the space).
func SpacePath(spaceID, rest string) string {
	return "/internal/v1/spaces/" + url.PathEscape(spaceID) + rest
}

// OrgPath is the path of an organization's internal resources.
func OrgPath(org, rest string) string {
	return "/internal/v1/orgs/" + url.PathEscape(org) + rest
}

// Current is a space's current revision: small enough to ask on every
// page view.
type Current struct {
	Space        string `json:"space"`
	Organization string `json:"organization"`
	Revision     string `json:"revision"`
	Deleted      bool   `json:"deleted,omitempty"`
}

// Page is a page of a revision's tree (document, group or link) with its
// markdown. An imported page's id is matched by its path in the parent
// revision; the id sent is ignored.
type Page struct {
	ID          string `json:"id,omitempty"`
	Kind        string `json:"kind"` // document, group or link
	Title       string `json:"title"`
	Slug        string `json:"slug"`
	Description string `json:"description,omitempty"`
	Emoji       string `json:"emoji,omitempty"`
	Icon        string `json:"icon,omitempty"`
	Hidden      bool   `json:"hidden,omitempty"`
	Markdown    string `json:"markdown"`
	// Href is a link page's destination, as the repository's SUMMARY.md
	// wrote it (a page file with an anchor, relative to the docs root, or
	// a URL).
	Href string `json:"href,omitempty"`
	// Layout and Cover are a document's layout options and cover, from
	// its front matter (nil: GitBook's defaults, no cover).
	Layout *Layout `json:"layout,omitempty"`
	Cover  *Cover  `json:"cover,omitempty"`
	Pages  []Page  `json:"pages"`
}

// Layout is a document's layout options (GitBook's
// RevisionPageLayoutOptions): what of the page readers see.
type Layout struct {
	Width           string `json:"width"`     // default or wide
	Cover           bool   `json:"cover"`     // the cover is shown
	CoverSize       string `json:"coverSize"` // hero, full or background
	Title           bool   `json:"title"`
	Description     bool   `json:"description"`
	TableOfContents bool   `json:"tableOfContents"`
	Outline         bool   `json:"outline"`
	Pagination      bool   `json:"pagination"`
}

// DefaultLayout shows everything at the default width.
var DefaultLayout = Layout{Width: "default", CoverSize: "hero", Title: true, Description: true,
	TableOfContents: true, Outline: true, Pagination: true}

// Cover is a document's cover image: Src and SrcDark (for dark themes)
// are as the front matter wrote them (a file under .gitbook/assets
// relative to the page's file, or a URL); YPos is the vertical offset
// of the image in the cover, in pixels.
type Cover struct {
	Src     string  `json:"src"`
	SrcDark string  `json:"srcDark,omitempty"`
	YPos    float64 `json:"yPos"`
	Height  int     `json:"height,omitempty"` // pixels; 0 for the default
}

// File is a file of a revision, read or imported.
type File struct {
	ID          string `json:"id,omitempty"`
	Name        string `json:"name"`
	ContentType string `json:"contentType"`
	Size        int64  `json:"size"`
	// Blob is the stored bytes (from POST blobs; imported files only).
	Blob string `json:"blob,omitempty"`
	// SHA256 is the hex SHA-256 of the bytes (read only): their ETag.
	SHA256 string `json:"sha256,omitempty"`
}

// Git is the commit of a revision.
type Git struct {
	OID     string `json:"oid"`
	Message string `json:"message"`
	Ref     string `json:"ref,omitempty"`
	URL     string `json:"url,omitempty"`
	// CreatedByService marks a commit the platform made (an export).
	CreatedByService bool `json:"createdByService,omitempty"`
}

// ReusableContent is a block of markdown pages include ({% include %}).
type ReusableContent struct {
	ID       string `json:"id,omitempty"` // read only
	Title    string `json:"title"`
	Markdown string `json:"markdown"`
}

// Content is a space's current revision whole: page tree with markdown,
// files, reusable contents, redirects.
type Content struct {
	Space            string            `json:"space"`
	Organization     string            `json:"organization"`
	Revision         string            `json:"revision"`
	Pages            []Page            `json:"pages"`
	Files            []File            `json:"files"`
	Git              *Git              `json:"git,omitempty"`
	ReusableContents []ReusableContent `json:"reusableContents"`
	Redirects        []Redirect        `json:"redirects,omitempty"`
}

// Redirect is a redirect of a revision (a Git import brings them, from
// .gitbook.yaml): a reader asking for Path, a page's path under the
// space's root (slugs joined by "/", no leading slash) that no page of the
// revision has, is sent to the page whose id is Page, if the revision
// still has it.
type Redirect struct {
	Path string `json:"path"`
	Page string `json:"page"`
}

// ImportRedirect is a redirect of a Git import: Path (as Redirect's) to
// the page at Page in Import.Pages, its index among the top-level pages,
// then among its parent's pages, down to it.
type ImportRedirect struct {
	Path string `json:"path"`
	Page []int  `json:"page"`
}

// GitSync is a space's Git sync state (the API's GitSyncState without its
// operation): never credentials.
type GitSync struct {
	RepoName             string    `json:"repoName,omitempty"`
	InstallationID       string    `json:"installationId"`
	InstallationProvider string    `json:"installationProvider"`
	InstallationStatus   string    `json:"installationStatus"`
	Integration          string    `json:"integration,omitempty"`
	URL                  string    `json:"url,omitempty"`
	UpdatedAt            time.Time `json:"updatedAt"`
}

// GitAccess is the caller's right to sync a space.
type GitAccess struct {
	Space        string   `json:"space"`
	Organization string   `json:"organization"`
	Revision     string   `json:"revision"`
	CanSync      bool     `json:"canSync"`
	Author       Author   `json:"author"`
	GitSync      *GitSync `json:"gitSync,omitempty"`
}

// Author is who a caller's commits are by.
type Author struct {
	Name  string `json:"name"`
	Email string `json:"email"`
}

// Import is a Git import: a revision made of a repository's pages and
// files over Parent, the revision the importer read. Unless Standalone the
// space moves to it if it still points at Parent (409 when it moved on),
// and takes GitSync as its Git sync state, in one change.
type Import struct {
	Parent     string `json:"parent"`
	Standalone bool   `json:"standalone,omitempty"`
	Pages      []Page `json:"pages"`
	Files      []File `json:"files"`
	Git        *Git   `json:"git,omitempty"`
	// ReusableContents are added to the parent's, replacing those of the
	// same title; nil keeps the parent's.
	ReusableContents []ReusableContent `json:"reusableContents,omitempty"`
	// GitSync, when set, is the space's Git sync state after the import.
	GitSync *GitSync `json:"gitSync,omitempty"`
	// Redirects replace the parent's (an empty list removes them); nil
	// (null, or absent) keeps the parent's.
	Redirects []ImportRedirect `json:"redirects"`
}

// Imported is the answer to an Import.
type Imported struct {
	Revision string `json:"revision"`
}

// FilesRequest is the body of POST git/files/{revisionId}: the ids of the
// files to read (none: every file of the revision).
type FilesRequest struct {
	IDs []string `json:"ids"`
}

// Blob is a stored file's bytes.
type Blob struct {
	Blob string `json:"blob"`
	Size int64  `json:"size"`
}

// Blobs are the blobs of POST git/blobs/batch, in the order of the parts.
type Blobs struct {
	Blobs []Blob `json:"blobs"`
}

// SearchRequest is the body of POST orgs/{organizationId}/search.
type SearchRequest struct {
	Spaces []string `json:"spaces"`
	Query  string   `json:"query"`
	Limit  int      `json:"limit"`
}

// SearchAnswer is content's search over the spaces asked (its public
// search result's items: SearchSpaceResult).
type SearchAnswer struct {
	Items []SearchResult `json:"items"`
	Count int            `json:"count"`
}

// SearchResult is a space with its pages matching a search.
type SearchResult struct {
	ID    string       `json:"id"`
	Title string       `json:"title"`
	Pages []SearchPage `json:"pages"`
}

// SearchPage is a matching page.
type SearchPage struct {
	ID       string          `json:"id"`
	Title    string          `json:"title"`
	Path     string          `json:"path"`
	Sections []SearchSection `json:"sections"`
}

// SearchSection is a matching section of a page.
type SearchSection struct {
	Title string `json:"title"`
	Path  string `json:"path"`
	Body  string `json:"body"`
}

// AccessQuestion is the body of POST spaces/access: the spaces a user asks about.
type AccessQuestion struct {
	Spaces []string `json:"spaces"`
}

// AccessAnswer is what the user may do on each space asked: nil for one
// they cannot view.
type AccessAnswer struct {
	Spaces map[string]*SpaceAccess `json:"spaces"`
}

// SpaceAccess is a user's access to a space: its organization, the
// user's level there (content's permission table decides it) and whether
// the space is deleted.
type SpaceAccess struct {
	Organization string `json:"organization"`
	Level        string `json:"level"`
	Deleted      bool   `json:"deleted"`
}

// ErrNoSpace is a readers' read of a space content does not have (404) or
// no longer has live (409).
var ErrNoSpace = errors.New("content has no such space")

// FileAsk is what a file read asks beyond the file: the reader's Range
// and If-None-Match, passed on to content ("" for none).
type FileAsk struct {
	Range, IfNoneMatch string
}

// FileAnswer is content's answer to a file read: 200 (whole), 206 (the
// range ContentRange names) or 304 (no Body).
type FileAnswer struct {
	Status       int
	Body         io.ReadCloser // nil for a 304
	Size         int64         // bytes of Body, -1 when unknown
	ETag         string
	ContentRange string
}

// Upload is one file's bytes a Git import stores (a part of POST
// git/blobs/batch).
type Upload struct {
	Name        string
	ContentType string
	Data        []byte
}

// Limits of one POST git/blobs/batch as a caller sends it: content's
// (files and bytes of a batch), the bytes with room for the multipart
// framing; and of the answer of GET git/content (a space's page tree with
// its markdown).
const (
	MaxUploadFiles  = 100
	MaxUploadBytes  = 15 << 20
	MaxContentBytes = 64 << 20
)
