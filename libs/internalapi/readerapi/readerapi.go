// Package readerapi is the contract between the gateway and the sites
// service's reader (GET and HEAD of /reader/<path>, a published site's
// readers' requests the gateway forwards): two response headers that never
// leave the platform (the gateway drops every X-Internal- header before
// answering the reader).
//
//   - ViewHeader: the answer is a read to record in the site's insights
//     (a View, as JSON). The gateway records it, and every later answer of
//     the same page from its cache, and sets the reader's visitor and
//     session cookies: sites sets no cookie of insights.
//   - TagsHeader: the answer is the same for every reader without cookies
//     of access (a public site's, Cache-Control public) and may be kept by
//     the gateway's page cache under the tags it lists (space-separated
//     Tag values), which a write through the gateway purges.
//   - ImpersonalHeader (value Impersonal): sites built the answer from
//     nothing of the reader's: no cookie, claim, share key or token. The
//     gateway's page cache keeps only answers so marked (and tagged); it
//     reads the header from sites' answers only, never from a client's
//     request (it drops every X-Internal- header a client sends).
package readerapi

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"strings"
	"time"
)

// Headers of a reader's answer, internal to the platform.
const (
	ViewHeader       = "X-Internal-Reader-View"
	TagsHeader       = "X-Internal-Reader-Tags"
	ImpersonalHeader = "X-Internal-Reader-Impersonal"
)

// GzipLevel is the level of Gzip: the default, a page 16 % smaller than
// at BestSpeed and within 1 % of gzip -9, paid once per page rendered or
// kept.
const GzipLevel = gzip.DefaultCompression

// Gzip is b gzipped as sites gzips the pages it renders and the gateway's
// page cache an answer sites sent as is (GzipLevel, no name or time in the
// header), so that a page gzipped by either is the same bytes under the
// same validator ("<digest>-gzip").
func Gzip(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, GzipLevel)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Impersonal is ImpersonalHeader's one value.
const Impersonal = "1"

// MaxViewHeader bounds the view header the gateway reads (claims included).
const MaxViewHeader = 8 << 10

// View is a read to record as an insights event of the site: what was
// read and where (never a share key or a token), and where the reader's
// cookies apply.
type View struct {
	// Type is the insights event type: page_view, page_markdown_request
	// or llms_request (with LLMS standard or full).
	Type         string `json:"type"`
	LLMS         string `json:"llms,omitempty"`
	Organization string `json:"organization"`
	Site         string `json:"site"`
	SiteSection  string `json:"siteSection,omitempty"`
	SiteSpace    string `json:"siteSpace,omitempty"`
	Space        string `json:"space,omitempty"`
	Revision     string `json:"revision,omitempty"`
	Page         string `json:"page,omitempty"`
	// URL is the absolute URL read.
	URL string `json:"url"`
	// Claims are the visitor's signed claims, if any.
	Claims map[string]any `json:"claims,omitempty"`
	// CookiePath is the site's path, where the reader's cookies apply;
	// Secure says the site is published over https.
	CookiePath string `json:"cookiePath"`
	Secure     bool   `json:"secure,omitempty"`
}

// Encode is v as the header's value.
func (v View) Encode() string {
	b, _ := json.Marshal(v)
	return string(b)
}

// ParseView reads a view header's value: false when it is empty, too
// long or not a view of a site.
func ParseView(s string) (View, bool) {
	var v View
	if s == "" || len(s) > MaxViewHeader || json.Unmarshal([]byte(s), &v) != nil ||
		v.Type == "" || v.Organization == "" || v.Site == "" {
		return View{}, false
	}
	return v, true
}

// SiteTTL is how long a sites replica uses a site's cached structure: a
// change made through another replica shows there within it (at once when
// its event arrives first). The gateway purges an event's answers again
// after it, so that a page refilled from a replica that had not seen the
// change yet is not kept.
const SiteTTL = time.Second

// MaxSpaceTags is the most space tags an answer carries: a site showing
// more spaces is tagged by organization and site alone.
const MaxSpaceTags = 64

// Tags of a cached answer: what a write purges it by.
func OrgTag(id string) string   { return "org:" + id }
func SiteTag(id string) string  { return "site:" + id }
func SpaceTag(id string) string { return "space:" + id }

// JoinTags is tags as the header's value.
func JoinTags(tags []string) string { return strings.Join(tags, " ") }

// SplitTags reads the header's value.
func SplitTags(s string) []string { return strings.Fields(s) }
