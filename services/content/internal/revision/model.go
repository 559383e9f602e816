// Package revision is content's content model: immutable revisions holding a
// tree of pages (markdown documents and groups), files and reusable
// contents. A space points at its current revision; a change request has its
// own. Every change makes a new revision whose parents name where it came from.
package revision

import (
	"context"
	"io"
	"strings"
	"time"
)

// Revision types (enums.md: edits, merge, rollback, update, computed).
const (
	TypeEdits  = "edits"  // a change made in place (an import into a change request, for example)
	TypeMerge  = "merge"  // a change request merged into the space (MergedFrom names it)
	TypeUpdate = "update" // the space merged into a change request
)

// Page kinds.
const (
	KindDocument = "document"
	KindGroup    = "group"
	KindLink     = "link" // a link in the table of contents (Href), not a document
)

// Revision is an immutable snapshot of a space's content.
type Revision struct {
	ID               string            `bson:"_id"`
	Space            string            `bson:"space"`
	Organization     string            `bson:"organization"`
	Type             string            `bson:"type"`
	Parents          []string          `bson:"parents"`
	MergedFrom       string            `bson:"mergedFrom,omitempty"` // change request id of a merge
	Pages            []Page            `bson:"pages"`
	Files            []File            `bson:"files"`
	ReusableContents []ReusableContent `bson:"reusableContents"`
	CreatedAt        time.Time         `bson:"createdAt"`
	Git              *Git              `bson:"git,omitempty"` // the commit a Git import made it from, or an export pushed
	// Redirects send readers of a path no page has to a page (a Git
	// import's, from .gitbook.yaml); every later revision keeps them.
	Redirects []Redirect
	// MarkdownBytes is how much markdown the pages and reusable contents
	// hold, as Store.Tree knows it before reading any (an upper bound for
	// revisions stored before it was recorded).
	MarkdownBytes int64 `bson:"-" json:"-"`
}

// Page is a page of the tree. Its path is the slugs from the top joined by
// "/"; ids are stable across revisions, so that three-way merges match a
// page with its earlier versions.
type Page struct {
	ID          string `bson:"id"`
	Kind        string `bson:"kind"` // KindDocument or KindGroup
	Title       string `bson:"title"`
	Slug        string `bson:"slug"`
	Emoji       string `bson:"emoji,omitempty"`
	Description string `bson:"description,omitempty"`
	Icon        string `bson:"icon,omitempty"`
	Hidden      bool   `bson:"hidden,omitempty"`
	Markdown    string `bson:"markdown,omitempty"` // document pages
	Href        string `bson:"href,omitempty"`     // link pages: the destination
	// Layout and Cover are a document's layout options and cover image
	// (nil: the default layout, no cover).
	Layout *Layout `bson:"layout,omitempty"`
	Cover  *Cover  `bson:"cover,omitempty"`
	// Body names where Markdown is kept when the page was read without it
	// (Store.Tree); Store.Markdown reads it in.
	Body      []string  `bson:"-" json:"-"`
	Pages     []Page    `bson:"pages"` // children
	CreatedAt time.Time `bson:"createdAt"`
	UpdatedAt time.Time `bson:"updatedAt"`
}

// Cover is a document's cover image: Src and SrcDark as the page's front
// matter wrote them (a file of the revision by its path, or a URL), YPos
// the image's vertical offset.
type Cover struct {
	Src     string  `bson:"src" json:"src"`
	SrcDark string  `bson:"srcDark,omitempty" json:"srcDark,omitempty"`
	YPos    float64 `bson:"yPos" json:"yPos"`
	Height  int     `bson:"height,omitempty" json:"height,omitempty"`
}

// File is a file of a revision; its bytes live in the blob store under Blob.
type File struct {
	ID          string `bson:"id"`
	Name        string `bson:"name"`
	ContentType string `bson:"contentType"`
	Size        int64  `bson:"size"`
	Blob        string `bson:"blob"` // blob store key: orgs/<org>/sha256/<hex>
	Width       int    `bson:"width,omitempty"`
	Height      int    `bson:"height,omitempty"`
}

// SHA256 is the hex SHA-256 of the file's bytes, which its blob key
// ends with ("" for a blob id of another shape): a strong validator of the
// file, which never changes.
func (f File) SHA256() string {
	i := strings.LastIndex(f.Blob, "/sha256/")
	if i < 0 {
		return ""
	}
	sum := f.Blob[i+len("/sha256/"):]
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return ""
	}
	return sum
}

// Redirect sends a reader asking for Path, a page's path under the
// space's root (slugs joined by "/") that no page of the revision has, to
// the page whose id is Page, while the revision has it.
type Redirect struct {
	Path string
	Page string
}

// ReusableContent is a block of markdown reused across pages.
type ReusableContent struct {
	ID       string `bson:"id"`
	Title    string `bson:"title"`
	Markdown string `bson:"markdown"`
}

// Owner is the space (and its organization) that wrote a blob or a page
// body. Blobs and bodies are removed once no revision refers to them.
type Owner struct {
	Space        string
	Organization string
}

// Owner is the revision's space and organization.
func (r Revision) Owner() Owner { return Owner{Space: r.Space, Organization: r.Organization} }

// Blob is a file's bytes to store.
type Blob struct {
	Name        string
	ContentType string
	Data        []byte
}

// Store keeps revisions and file bytes. Revisions are written once and never
// changed; Get of a missing revision is an apierr not-found error. Insert
// refuses a revision over the limits (Check) with a 413.
type Store interface {
	Insert(ctx context.Context, r Revision) error
	Get(ctx context.Context, id string) (Revision, error)
	// Tree is Get without the pages' markdown (pages carry Body instead),
	// for reads that need the tree, the files or a few pages only.
	Tree(ctx context.Context, id string) (Revision, error)
	// Markdown reads the markdown of pages read by Tree.
	Markdown(ctx context.Context, pages []*Page) error
	// PutBlob stores bytes written by owner and returns their blob id.
	PutBlob(ctx context.Context, owner Owner, name, contentType string, r io.Reader) (id string, size int64, err error)
	// OpenBlob opens a blob's bytes for reading and seeking; size is its
	// size when known (a file's), or -1.
	OpenBlob(ctx context.Context, id string, size int64) (io.ReadSeekCloser, error)
}

// Usage is what an organization stores: bytes of files (each distinct
// file once) and of pages' markdown, and its quota (0: none).
type Usage struct {
	Organization string `json:"organization"`
	FileBytes    int64  `json:"fileBytes"`
	PageBytes    int64  `json:"pageBytes"`
	QuotaBytes   int64  `json:"quotaBytes,omitempty"`
}
