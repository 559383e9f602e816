// Package pagecache is the gateway's cache of published sites' public
// answers: what sites built from nothing of the reader's and answers every
// reader the same way (readerapi.ImpersonalHeader and TagsHeader,
// Cache-Control public) is kept for a short time (TTL) and answered by the gateway itself, with no hop to sites.
//
// What it may serve is decided before it is kept: only a GET or HEAD
// without a query (but a reader's search's lone q, kept under it too:
// searchQuery), a Range or a cookie other than insights' (on any of
// its Cookie lines) is looked up (a share key, a visitor's token or claims
// always reach sites), and only a 200 sites marks impersonal
// (readerapi.ImpersonalHeader: built from no cookie, claim, share key or
// token) whose headers say it is public, set no cookie and vary by
// nothing but Accept-Encoding is kept, under its host and path, without
// the claims of its read. A page (an answer that varies by
// Accept-Encoding) is kept as is, gzipped and in brotli, coded once when
// kept, and each reader gets the encoding their Accept-Encoding prefers
// (Entry.Choose), with header values made once (Entry.SetHeader). A write
// through the gateway purges the answers tagged with what it changed (its
// organization or space) before the writer has its answer, so a site made
// restricted is never served from here once the change is acknowledged; a
// fill that started before a purge of one of its tags is not kept. A purge
// costs the same however many answers are kept, and drops the answers of
// its tags alone (libs/generations: each answer records its tags'
// generations, and Lookup serves it only while they hold). Changes that
// do not pass through this gateway (Git sync, another replica) purge it
// when their events reach it (the gateway reads content's and sites'
// events on every replica), the TTL a backstop.
package pagecache

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/docspub/platform/libs/generations"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/libs/sizedcache"
)

// Entry is an answer kept: its status, headers (without cookies, Date,
// internal headers, or the ones each encoding has its own: Content-Length,
// Content-Encoding, ETag, Vary), its body in each encoding it is served
// in, the read it records, and its tags.
type Entry struct {
	Status int
	// Header is what every encoding of the answer shares.
	Header http.Header
	// Body is the body as is (no content coding).
	Body []byte
	// View is the read each answer of it records (nil: none).
	View *readerapi.View
	// fields are Header as a list, to write on every answer without
	// ranging over a map.
	fields []field
	// plain, gzip and br are the body in each encoding (gzip and br nil
	// when the answer does not vary by encoding or coding makes it no
	// smaller).
	plain, gzip, br *Variant
	// varies says the answer varies by Accept-Encoding (a page; a file
	// does not).
	varies bool
	// stamp is its tags' generations when its fill began.
	stamp generations.Stamp
	at    time.Time
}

// field is a header kept: its canonical name and values (shared by every
// answer: an Add to them copies, since their capacity is their length).
type field struct {
	name   string
	values []string
}

// Variant is one encoding of a kept body, with the header values that
// answer with it prebuilt (set by direct assignment, so a hit copies no
// header and formats no length).
type Variant struct {
	// Encoding is its content coding: "" (none), "gzip" or "br".
	Encoding string
	Body     []byte
	// ETag is its validator, quoted ("" when the answer had none).
	ETag                     string
	etag, length, contentEnc []string
}

// varyEncoding is the Vary of every answer that varies by encoding.
var varyEncoding = []string{"Accept-Encoding"}

// Key names an answer: its host and path, and a search's query.
type Key struct {
	host, path string
	// search is the query of a reader's search (searchQuery), "" for
	// any other answer.
	search string
}

// size is what k takes in memory.
func (k Key) size() int64 { return int64(len(k.host) + len(k.path) + len(k.search)) }

// Cache keeps answers; it is safe for concurrent use.
type Cache struct {
	entries *sizedcache.Cache[Key, *Entry]
	// searches keep readers' searches apart, in a share of the bytes:
	// queries any reader makes up never push pages out.
	searches *sizedcache.Cache[Key, *Entry]
	ttl      time.Duration
	maxEntry int64
	// tags are the generations of tags, which a purge bumps: an answer
	// is served while its tags' are what they were when its fill began.
	tags    generations.Counters
	refills refills
	now     func() time.Time
}

// maxEntries bounds the pages kept; maxSearches the searches, in one
// searchShare-th of the bytes.
const (
	maxEntries  = 10_000
	maxSearches = 2_000
	searchShare = 8
)

// New returns a cache of maxBytes bytes (an eighth of them for
// searches) whose answers live ttl.
func New(maxBytes int64, ttl time.Duration) *Cache {
	return &Cache{entries: sizedcache.New[Key, *Entry](maxEntries, maxBytes-maxBytes/searchShare).Observe("gateway.pages"),
		searches: sizedcache.New[Key, *Entry](maxSearches, maxBytes/searchShare).Observe("gateway.searches"),
		ttl:      ttl, maxEntry: min(maxBytes/64, 1<<20), now: time.Now}
}

// of is where the answer of k is kept: a search's apart.
func (c *Cache) of(k Key) *sizedcache.Cache[Key, *Entry] {
	if k.search != "" {
		return c.searches
	}
	return c.entries
}

// Lookup tells whether r may be answered from the cache and, if so, its
// key, the fill mark to pass to Keep, and the fresh answer kept (nil if
// none: none kept, past its TTL, or one of its tags purged since).
func (c *Cache) Lookup(r *http.Request) (k Key, mark uint64, e *Entry, ok bool) {
	if c == nil || !Eligible(r) {
		return Key{}, 0, nil, false
	}
	q, _ := searchQuery(r)
	k = Key{host: strings.ToLower(r.Host), path: r.URL.EscapedPath(), search: q}
	mark = c.tags.Now()
	return k, mark, c.get(k), true
}

// Hit is the fresh answer kept for a read of path (escaped, as
// url.URL.EscapedPath writes it) on host without a query, nil if none:
// Lookup for a server other than net/http, whose caller has found the
// request Eligible (by the same rules) and fills the cache through
// Lookup on a miss.
func (c *Cache) Hit(host, path string) *Entry {
	if c == nil {
		return nil
	}
	return c.get(Key{host: strings.ToLower(host), path: path})
}

// get is the answer kept under k while it is usable, nil if none.
func (c *Cache) get(k Key) *Entry {
	if e, found := c.of(k).Get(k); found && c.usable(e) {
		return e
	}
	return nil
}

// Eligible tells whether the answer to r is the same for every reader
// sending it: a GET or HEAD without a query (but a reader's search's, see
// searchQuery), a range or cookies but insights' visitor and session ids.
//
// Every Cookie line is read, as sites reads them (an empty first line
// hides none of the others), and every name on them, whether or not it
// parses as a cookie.
func Eligible(r *http.Request) bool {
	if (r.Method != http.MethodGet && r.Method != http.MethodHead) || len(r.Header.Values("Range")) > 0 {
		return false
	}
	if _, ok := searchQuery(r); r.URL.RawQuery != "" && !ok {
		return false
	}
	return OnlyInsightsCookies(r.Header.Values("Cookie"))
}

// OnlyInsightsCookies tells whether a request's Cookie lines name no
// cookie but insights' visitor and session ids (see Eligible).
func OnlyInsightsCookies(lines []string) bool {
	for _, line := range lines {
		for line != "" {
			var part string
			part, line, _ = strings.Cut(line, ";")
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			name, _, _ := strings.Cut(part, "=")
			if name = strings.TrimSpace(name); name != "docspub_vid" && name != "docspub_sid" {
				return false
			}
		}
	}
	return true
}

// Keepable tells whether resp (sites' answer) may be kept for every
// reader, and under which tags (tagsHeader: its readerapi.TagsHeader;
// impersonal: its readerapi.ImpersonalHeader).
func Keepable(resp *http.Response, tagsHeader, impersonal string) ([]string, bool) {
	h := resp.Header
	if impersonal != readerapi.Impersonal ||
		resp.StatusCode != http.StatusOK || !strings.HasPrefix(h.Get("Cache-Control"), "public") ||
		len(h.Values("Set-Cookie")) > 0 || resp.ContentLength < 0 {
		return nil, false
	}
	for _, v := range h.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			if n := strings.TrimSpace(name); n != "" && !strings.EqualFold(n, "Accept-Encoding") {
				return nil, false
			}
		}
	}
	tags := readerapi.SplitTags(tagsHeader)
	return tags, len(tags) > 0
}

// Fits tells whether an answer of n bytes may be kept.
func (c *Cache) Fits(n int64) bool { return n >= 0 && n <= c.maxEntry }

// Keep stores an answer under k, unless a purge of one of its tags came
// after mark (the answer may predate it; another tag's purge does not
// matter). header is kept as given: the caller passes a
// copy it no longer changes. The read kept is view without claims: every
// reader answered from here is recorded as themselves.
//
// An answer that varies by Accept-Encoding (a page) is kept in each
// encoding it is served in, made here once: as is, gzipped and in
// brotli, whichever encoding sites sent it in (a gzipped body is
// inflated once). An answer that does not vary (a file) is kept and
// served as it came. A body equal to the one kept before under k reuses
// its encodings rather than coding it again (a page kept again after its
// TTL). It returns the entry kept, nil when none was.
func (c *Cache) Keep(k Key, mark uint64, status int, header http.Header, body []byte, view *readerapi.View, tags []string) *Entry {
	stamp, current := c.tags.Stamp(mark, tags...)
	if !current || !c.Fits(int64(len(body))) {
		return nil
	}
	if view != nil {
		v := *view
		v.Claims = nil
		view = &v
	}
	for _, name := range []string{"Set-Cookie", "Date", "X-Request-Id"} {
		header.Del(name)
	}
	for name := range header {
		if strings.HasPrefix(name, "X-Internal-") {
			header.Del(name)
		}
	}
	prev, _ := c.of(k).Peek(k)
	e, ok := c.entry(status, header, body, prev)
	if !ok {
		return nil
	}
	// A purge after the stamp leaves it unserved (Lookup checks it).
	e.View, e.stamp, e.at = view, stamp, c.now()
	c.of(k).Set(k, e, e.size()+k.size())
	return e
}

// entry makes the entry of an answer (header without the internal ones),
// reusing the encodings of prev when its body is the same. It is false
// for an answer it cannot keep: in a content coding other than gzip, or
// one whose body does not inflate within the size an entry may have.
func (c *Cache) entry(status int, header http.Header, body []byte, prev *Entry) (*Entry, bool) {
	coding := header.Values("Content-Encoding")
	etag := header.Get("ETag")
	varies := variesByEncoding(header)
	for _, name := range []string{"Content-Length", "Content-Encoding", "ETag", "Vary"} {
		header.Del(name)
	}
	e := &Entry{Status: status, Header: header, varies: varies}
	for name, values := range header {
		e.fields = append(e.fields, field{name: name, values: values[:len(values):len(values)]})
	}
	switch {
	case len(coding) == 0 && !varies:
		// A file: the same bytes for every reader, as they came.
		e.plain = newVariant("", body, etag)
	case len(coding) == 0:
		e.plain = newVariant("", body, etag)
		c.encode(e, prev, etag, nil)
	case len(coding) == 1 && strings.EqualFold(coding[0], "gzip") && varies:
		// Sites' own gzip: kept as it came, with its validator; the body
		// as is inflated once (or taken from prev when it had the same).
		gz := newVariant("gzip", body, etag)
		base := plainETag(etag)
		if prev != nil && prev.gzip != nil && bytes.Equal(prev.gzip.Body, body) {
			e.plain = newVariant("", prev.Body, base)
		} else {
			plain, err := c.inflate(body)
			if err != nil {
				return nil, false
			}
			e.plain = newVariant("", plain, base)
		}
		c.encode(e, prev, base, gz)
	default:
		return nil, false
	}
	e.Body = e.plain.Body
	return e, true
}

// encode sets e's gzip (gz when sites sent it, else made here) and brotli
// bodies from its plain one, or takes them from prev when its plain body
// is the same. An encoding that makes the body no smaller is not kept.
func (c *Cache) encode(e *Entry, prev *Entry, base string, gz *Variant) {
	same := prev != nil && bytes.Equal(prev.Body, e.plain.Body)
	if gz == nil {
		if same && prev.gzip != nil {
			gz = newVariant("gzip", prev.gzip.Body, codedETag(base, "gzip"))
		} else if b, err := readerapi.Gzip(e.plain.Body); err == nil {
			gz = newVariant("gzip", b, codedETag(base, "gzip"))
		}
	}
	if gz != nil && len(gz.Body) < len(e.plain.Body) {
		e.gzip = gz
	}
	var br []byte
	if same && prev.br != nil {
		br = prev.br.Body
	} else if b, err := brotlied(e.plain.Body); err == nil {
		br = b
	}
	if br != nil && len(br) < len(e.plain.Body) {
		e.br = newVariant("br", br, codedETag(base, "br"))
	}
}

// inflate is a gzipped body as is, if it is no larger than an entry may
// be.
func (c *Cache) inflate(body []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	plain, err := io.ReadAll(io.LimitReader(zr, c.maxEntry+1))
	if err != nil {
		return nil, err
	}
	if int64(len(plain)) > c.maxEntry {
		return nil, errors.New("pagecache: inflated body too large")
	}
	return plain, nil
}

// BrotliQuality is the brotli quality of the bodies kept: a 48 KB page
// takes about 5 ms, once per page kept (11, the best, takes over 100 ms
// for a few percent less).
const BrotliQuality = 5

// brotlied is b in brotli, at BrotliQuality.
func brotlied(b []byte) ([]byte, error) {
	var buf bytes.Buffer
	bw := brotli.NewWriterLevel(&buf, BrotliQuality)
	if _, err := bw.Write(b); err != nil {
		return nil, err
	}
	if err := bw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// plainETag is the validator of the body as is, from the validator sites
// gave its gzipped body ("<digest>-gzip", quoted: readerhttp's), or ""
// when it is not of that form.
func plainETag(gzipETag string) string {
	if base, ok := strings.CutSuffix(gzipETag, `-gzip"`); ok && strings.HasPrefix(base, `"`) && len(base) > 1 {
		return base + `"`
	}
	return ""
}

// codedETag is the validator of a body in coding, from the validator of
// the body as is: "<digest>-<coding>", as sites names its gzipped pages;
// "" when there is none (or it is weak).
func codedETag(base, coding string) string {
	if len(base) < 2 || !strings.HasPrefix(base, `"`) || !strings.HasSuffix(base, `"`) {
		return ""
	}
	return base[:len(base)-1] + "-" + coding + `"`
}

// variesByEncoding tells whether an answer's Vary names Accept-Encoding.
func variesByEncoding(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, name := range strings.Split(v, ",") {
			if strings.EqualFold(strings.TrimSpace(name), "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}

func newVariant(coding string, body []byte, etag string) *Variant {
	v := &Variant{Encoding: coding, Body: body, ETag: etag, length: []string{strconv.Itoa(len(body))}}
	if etag != "" {
		v.etag = []string{etag}
	}
	if coding != "" {
		v.contentEnc = []string{coding}
	}
	return v
}

// size is about the bytes e takes.
func (e *Entry) size() int64 {
	n := int64(len(e.plain.Body)) + 512
	for _, v := range []*Variant{e.gzip, e.br} {
		if v != nil {
			n += int64(len(v.Body))
		}
	}
	return n
}

// Choose is the variant to answer a request with acceptEncoding (its
// Accept-Encoding header) with: of the encodings kept that the client
// takes (a q of 0 refuses one), the one it prefers most, brotli before
// gzip when it takes both alike; else the body as is.
func (e *Entry) Choose(acceptEncoding string) *Variant {
	if acceptEncoding == "" || (e.gzip == nil && e.br == nil) {
		return e.plain
	}
	br, gz := AcceptedCodings(acceptEncoding)
	if e.br == nil {
		br = 0
	}
	if e.gzip == nil {
		gz = 0
	}
	switch {
	case br > 0 && br >= gz:
		return e.br
	case gz > 0:
		return e.gzip
	}
	return e.plain
}

// SetHeader sets the header of answering with v (a variant of e) into h,
// each value by direct assignment of the kept one: what every encoding
// shares, then v's Content-Length, Content-Encoding and ETag, and Vary:
// Accept-Encoding when e varies by encoding (whichever v is). For a 304
// (notModified), neither Content-Type nor Content-Length.
func (e *Entry) SetHeader(h http.Header, v *Variant, notModified bool) {
	if notModified {
		delete(h, "Content-Type")
	}
	e.eachField(v, notModified, func(name string, values []string) { h[name] = values })
}

// EachHeader gives add every header SetHeader sets, one value at a
// time, for a server other than net/http.
func (e *Entry) EachHeader(v *Variant, notModified bool, add func(name, value string)) {
	e.eachField(v, notModified, func(name string, values []string) {
		for _, value := range values {
			add(name, value)
		}
	})
}

// eachField gives f every header of the answer in variant v, its values
// shared (never to be changed): the entry's own, then the variant's; a
// 304 has no Content-Type nor Content-Length.
func (e *Entry) eachField(v *Variant, notModified bool, f func(name string, values []string)) {
	for _, fd := range e.fields {
		if notModified && fd.name == "Content-Type" {
			continue
		}
		f(fd.name, fd.values)
	}
	if e.varies {
		f("Vary", varyEncoding)
	}
	if v.contentEnc != nil {
		f("Content-Encoding", v.contentEnc)
	}
	if v.etag != nil {
		f("Etag", v.etag)
	}
	if !notModified {
		f("Content-Length", v.length)
	}
}

// AcceptedCodings is how much an Accept-Encoding header takes brotli and
// gzip, each a q-value in thousandths (1000: q=1; 0: refused or not
// named). A coding not named takes the q of "*" when there is one.
// A malformed q counts as 1, as one absent.
func AcceptedCodings(header string) (br, gz int) {
	br, gz, star := -1, -1, -1
	for header != "" {
		var part string
		part, header, _ = strings.Cut(header, ",")
		name, params, _ := strings.Cut(part, ";")
		name = strings.TrimSpace(name)
		var q *int
		switch {
		case strings.EqualFold(name, "br"):
			q = &br
		case strings.EqualFold(name, "gzip"):
			q = &gz
		case name == "*":
			q = &star
		default:
			continue
		}
		*q = qValue(params)
	}
	if br < 0 {
		br = max(star, 0)
	}
	if gz < 0 {
		gz = max(star, 0)
	}
	return br, gz
}

// qValue is the q of an Accept-Encoding element's parameters, in
// thousandths; 1000 when absent or malformed.
func qValue(params string) int {
	for params != "" {
		var p string
		p, params, _ = strings.Cut(params, ";")
		key, val, ok := strings.Cut(strings.TrimSpace(p), "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(key), "q") {
			continue
		}
		val = strings.TrimSpace(val)
		// qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
		if val == "" || (val[0] != '0' && val[0] != '1') {
			return 1000
		}
		n := int(val[0]-'0') * 1000
		if len(val) > 1 {
			if val[1] != '.' || len(val) > 5 {
				return 1000
			}
			scale := 100
			for i := 2; i < len(val); i++ {
				if val[i] < '0' || val[i] > '9' {
					return 1000
				}
				n += int(val[i]-'0') * scale
				scale /= 10
			}
		}
		return min(n, 1000)
	}
	return 1000
}

// Purge drops every answer tagged with one of tags, and every fill under
// way of such an answer, at the cost of a few atomic operations per tag,
// however many answers are kept: no answer is looked at. A dropped answer
// is never served again; it stays until replaced or pushed out as least
// recently used.
func (c *Cache) Purge(tags ...string) {
	if c == nil {
		return
	}
	for _, t := range tags {
		c.tags.Bump(t)
	}
}

// PurgeAll drops every answer and every fill under way.
func (c *Cache) PurgeAll() {
	if c == nil {
		return
	}
	c.tags.BumpAll()
}

// Len is how many answers are kept (purged ones not yet replaced or
// pushed out included).
func (c *Cache) Len() int { return c.entries.Len() + c.searches.Len() }

// WriteTags are the tags a successful write to the API path changes: its
// organization (/v1/orgs/{id}/...) or space (/v1/spaces/{id}/...).
func WriteTags(path string) []string {
	rest, ok := strings.CutPrefix(path, "/v1/")
	if !ok {
		return nil
	}
	kind, rest, _ := strings.Cut(rest, "/")
	id, _, _ := strings.Cut(rest, "/")
	if id == "" {
		return nil
	}
	switch kind {
	case "orgs":
		return []string{readerapi.OrgTag(id)}
	case "spaces":
		return []string{readerapi.SpaceTag(id)}
	}
	return nil
}

// searchQuery is the query of a reader's search, <site>/~search?q=...,
// as its key's part: its one parameter q, once, and nothing else (a share
// key, a visitor's token or claims in the query, or any other parameter,
// is never looked up). Sites answers such a search from the site's host,
// path and q alone; whether the answer is the same for every reader (a
// public site, no cookie or claim) is its to say, as for a page
// (Keepable). The TTL bounds how long a kept search lags the index.
func searchQuery(r *http.Request) (string, bool) {
	const maxSearchQuery = 1 << 10 // far past what sites searches for
	if r.URL.RawQuery == "" || !strings.HasSuffix(r.URL.Path, "/~search") {
		return "", false
	}
	if len(r.URL.RawQuery) > maxSearchQuery { // a longer one reaches sites
		return "", false
	}
	vs, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil || len(vs) != 1 || len(vs["q"]) != 1 {
		return "", false
	}
	return "q=" + url.QueryEscape(vs["q"][0]), true
}
