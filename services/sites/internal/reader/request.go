package reader

import (
	"io"
	"net/url"
	"time"
)

// Request is a reader's request as the gateway forwarded it.
type Request struct {
	// Host is the host the reader asked for (the gateway's
	// X-Forwarded-Host), with or without a port.
	Host string
	// Path is the URL path the reader asked for, decoded.
	Path  string
	Query url.Values
	// Cookies are the reader's cookies, by name.
	Cookies map[string]string
	// Range and IfNoneMatch are the reader's headers of a file read.
	Range, IfNoneMatch string
	// AcceptsGzip says the reader takes gzip (a vendored asset kept
	// gzipped is answered as is).
	AcceptsGzip bool
}

// Cookie names: each is scoped to its site's path.
const (
	CookieShareKey = "docspub_share"    // a share link's key, kept after the first visit
	CookieVisitor  = "docspub_visitor"  // a visitor's JWT, kept after the first visit
	CookieUnsigned = "docspub_unsigned" // unsigned claims set in a query
)

// Cookie is a cookie to set (MaxAge < 0 removes it).
type Cookie struct {
	Name, Value, Path string
	MaxAge            int
}

// Response is what to answer.
type Response struct {
	Status int
	// Type is the Content-Type of Body or File.
	Type string
	Body []byte
	// Gzip is Body gzipped, when the reader has it at hand (for a file,
	// Gzip alone, to send to a reader who takes gzip).
	Gzip []byte
	// Encodings says a file is answered gzipped to readers who take gzip
	// (Vary: Accept-Encoding).
	Encodings bool
	// File streams a file of Size bytes (closed by whoever writes it);
	// Inline says whether browsers may show it in place.
	File   io.ReadCloser
	Size   int64
	Inline bool
	Name   string
	// ETag is a file's or a page's strong validator (a SHA-256 of its
	// bytes, unquoted), and ContentRange the range File holds in a 206.
	ETag, ContentRange string
	// LastModified is when a page was rendered (zero: not said).
	LastModified time.Time
	// Location is a redirect's target.
	Location string
	// NoIndex asks search engines not to index the answer.
	NoIndex bool
	// Public says the answer may be cached by anyone (a public site);
	// Immutable that it never changes (a file of a revision).
	Public, Immutable bool
	// Restricted says the site is for some readers only (share link,
	// visitor authentication): its answers are stored by no cache.
	// Varies says the answer depends on the reader's claims (adaptive
	// content): only the reader's own cache may keep it.
	Restricted, Varies bool
	Cookies            []Cookie
	// CookiePath is the site's path: where its cookies apply.
	CookiePath string
	// Secure cookies: the site is published over https.
	Secure bool
	// View is what to record in the site's insights, nil for nothing.
	View *View
	// Tags are what a shared cache keeps a public answer under (organization,
	// site, the site's spaces): a change of any drops it.
	Tags []string
	// Impersonal says a public answer was built from nothing of the
	// reader's (no cookie, claim, share key or token): a shared cache may
	// keep it for every reader.
	Impersonal bool
	// Err is the failure behind an error answer: logged when it is a 5xx,
	// its Retry-After sent.
	Err error
}

// View is a read recorded in insights: what was read, where (never a
// share key or a token).
type View struct {
	// Type is the insights event type: page_view, page_markdown_request
	// or llms_request (with LLMS standard or full).
	Type, LLMS                              string
	Organization, Site                      string
	SiteSection, SiteSpace, Space, Revision string
	Page                                    string
	// URL is the absolute URL read.
	URL string
	// Claims are the visitor's signed claims, if any.
	Claims map[string]any
}
