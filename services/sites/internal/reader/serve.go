package reader

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/readerapi"
	"github.com/docspub/platform/services/sites/internal/site"
)

// read is one request being served: the site it names, where the site's
// URLs start, what the reader may see.
type read struct {
	ctx  context.Context
	req  Request
	snap *snapshot
	site *site.Site
	// base is the site's path on this host ("" for a custom hostname).
	base string
	// origin is the scheme and host readers use ("https://docs.example.com").
	origin  string
	visitor visitor
	st      *structure
	resp    *Response // cookies and flags gathered on the way
	// partial says a page was rendered short of time (formulas left their
	// source): its rendering is not kept.
	partial bool
}

// Serve answers a reader's request.
func (r *Reader) Serve(ctx context.Context, req Request) *Response {
	rd := &read{ctx: ctx, req: req, resp: &Response{Secure: r.scheme == "https"}}
	rest, err := r.findSite(ctx, rd)
	if err != nil {
		return r.failed(rd, err)
	}
	rd.resp.CookiePath = rd.cookiePath()
	if rd.site == nil || !rd.site.Published {
		return r.notFound(rd, "There is no published site here.")
	}
	if stop := r.admit(ctx, rd); stop != nil {
		return stop
	}
	rd.resp.NoIndex = rd.site.Visibility != site.VisibilityPublic
	rd.resp.Public = rd.site.Visibility == site.VisibilityPublic
	rd.resp.Restricted = rd.site.Visibility == site.VisibilityShareLink || rd.site.Visibility == site.VisibilityVisitorAuth
	rd.resp.Varies = rd.site.AdaptiveContent
	for _, rt := range routes {
		if rt.match(rest) {
			resp := rt.serve(r, ctx, rd, rest)
			if resp.Public {
				resp.Tags, resp.Impersonal = rd.tags(), rd.impersonal()
			}
			return resp
		}
	}
	return r.notFound(rd, "This page does not exist.") // (the page route takes every path)
}

// impersonal tells whether the answer was built from nothing of the
// reader's: no cookie sites reads (even an empty one), no share key,
// token or claims in the query, no claims, no cookie set.
func (rd *read) impersonal() bool {
	if len(rd.req.Cookies) > 0 || len(rd.resp.Cookies) > 0 || rd.visitor.signed != nil || rd.visitor.claims != nil {
		return false
	}
	for key := range rd.req.Query {
		if key == "shareKey" || key == "jwt_token" || strings.HasPrefix(key, "visitor.") {
			return false
		}
	}
	return true
}

// tags are what a cached answer of the site is kept under: its
// organization, the site and the spaces it shows, so that a change of
// any of them drops the answer. A site of more than readerapi.MaxSpaceTags
// spaces is tagged by organization and site alone (a change of one of its
// spaces shows when the cached answer expires), which bounds the header
// and what a purge compares.
func (rd *read) tags() []string {
	tags := []string{readerapi.OrgTag(rd.site.Organization), readerapi.SiteTag(rd.site.ID)}
	if rd.st == nil {
		return tags
	}
	spaces := make([]string, 0, readerapi.MaxSpaceTags)
	for _, sec := range rd.st.all {
		for _, v := range sec.variants {
			if len(spaces) == readerapi.MaxSpaceTags {
				return tags
			}
			spaces = append(spaces, readerapi.SpaceTag(v.ss.Space))
		}
	}
	return append(tags, spaces...)
}

// Route is an address form of a published site, under the site's URL:
// Path is fixed, or holds placeholders ({variant}: a site space's path,
// "" for a section's root; {page}: a page's path; {siteSpace},
// {revision}, {file}: ids; {query}: search words).
type Route struct {
	Name, Path string
}

// route is a Route with what matches it (the path's segments under the
// site) and serves it.
type route struct {
	Route
	match func(rest []string) bool
	serve func(r *Reader, ctx context.Context, rd *read, rest []string) *Response
}

// routes are what Serve answers, the first that matches: the table is the
// dispatch, so that Routes (and the tests reading it) cannot miss one.
var routes = []route{
	{Route{"robots.txt", "/robots.txt"}, named("robots.txt"),
		func(r *Reader, _ context.Context, rd *read, _ []string) *Response { return r.robots(rd) }},
	{Route{"sitemap.xml", "/sitemap.xml"}, named("sitemap.xml"),
		func(r *Reader, ctx context.Context, rd *read, _ []string) *Response { return r.sitemap(ctx, rd) }},
	{Route{"llms.txt", "/llms.txt"}, named("llms.txt"),
		func(r *Reader, ctx context.Context, rd *read, _ []string) *Response { return r.llms(ctx, rd, false) }},
	{Route{"llms-full.txt", "/llms-full.txt"}, named("llms-full.txt"),
		func(r *Reader, ctx context.Context, rd *read, _ []string) *Response { return r.llms(ctx, rd, true) }},
	{Route{"search", "/~search?q={query}"}, named("~search"),
		func(r *Reader, ctx context.Context, rd *read, _ []string) *Response { return r.search(ctx, rd) }},
	{Route{"file", "/~files/{siteSpace}/{revision}/{file}"},
		func(rest []string) bool { return len(rest) == 4 && rest[0] == "~files" },
		func(r *Reader, ctx context.Context, rd *read, rest []string) *Response {
			return r.file(ctx, rd, rest[1], rest[2], rest[3])
		}},
	{Route{"static", "/~static/{asset}"},
		func(rest []string) bool { return len(rest) >= 2 && rest[0] == "~static" },
		func(r *Reader, _ context.Context, rd *read, rest []string) *Response {
			return r.static(rd, strings.Join(rest[1:], "/"))
		}},
	{Route{"page markdown", "{variant}/{page}.md"},
		func(rest []string) bool {
			n := len(rest)
			return n > 0 && strings.HasSuffix(rest[n-1], ".md") && len(rest[n-1]) > len(".md")
		},
		func(r *Reader, ctx context.Context, rd *read, rest []string) *Response {
			rest[len(rest)-1] = strings.TrimSuffix(rest[len(rest)-1], ".md")
			return r.page(ctx, rd, rest, true)
		}},
	{Route{"page", "{variant}/{page}"}, func([]string) bool { return true },
		func(r *Reader, ctx context.Context, rd *read, rest []string) *Response {
			return r.page(ctx, rd, rest, false)
		}},
}

// named matches the site's document at one path.
func named(name string) func([]string) bool {
	return func(rest []string) bool { return len(rest) == 1 && rest[0] == name }
}

// Routes are every address form the reader serves (its dispatch table):
// tests read them to check each one.
func Routes() []Route {
	out := make([]Route, len(routes))
	for i, rt := range routes {
		out[i] = rt.Route
	}
	return out
}

// page answers a page of a site space the reader sees (rest: the path's
// segments under the site), as HTML or as its markdown.
func (r *Reader) page(ctx context.Context, rd *read, rest []string, markdown bool) *Response {
	sec, v, pagePath, ok := rd.st.resolve(rest)
	if !ok {
		return r.notFound(rd, "This site has nothing to show yet.")
	}
	if v.ss.Hidden {
		// A hidden site space is read at its address only: never indexed.
		rd.resp.NoIndex = true
	}
	t, err := r.revision(ctx, rd.snap, rd.site.Organization, v.ss.Space)
	if err != nil {
		return r.failed(rd, err)
	}
	path := strings.Join(pagePath, "/")
	p, ok := t.find(path)
	if !ok || !p.document() {
		if to := t.redirect(path); to != nil {
			return redirected(rd, v, t, to, markdown)
		}
		return r.notFound(rd, "This page does not exist.")
	}
	if markdown {
		return r.pageMarkdown(rd, sec, v, t, p)
	}
	return r.pageHTML(rd, sec, v, t, p)
}

// redirected sends the reader to page p of the variant (as HTML, or as
// its markdown), where a redirect of its revision says the path asked for
// went, with the query they asked with: a 308, permanent, as a redirect
// of .gitbook.yaml says a page moved (search engines move the old URL's
// standing to the new one), and keeping the method. It is cached as an
// answer that is not a page is ("private, no-cache", never by the
// gateway's page cache): a page later made at the old path is shown there
// at once.
func redirected(rd *read, v *variant, t *tree, p *page, markdown bool) *Response {
	loc := rd.pageURL(v, t, p)
	if markdown {
		loc = rd.base + v.path + "/" + p.path + ".md"
	}
	if len(rd.req.Query) > 0 {
		loc += "?" + rd.req.Query.Encode()
	}
	rd.resp.Status, rd.resp.Location = http.StatusPermanentRedirect, loc
	return rd.resp
}

// findSite finds the site the request names: a site whose custom hostname
// is the request's host, else, under the published prefix, the site
// <org>/<basename or id>. It returns the path's segments under the site.
//
// The origin of every absolute URL the reader writes (canonical links,
// sitemap.xml, llms.txt, robots.txt) is configuration's (PublishedURL) or
// the site's own hostname as stored, never the Host the request carries:
// a forged Host is reflected nowhere, and every Host a site is reached by
// shares its cache entries.
func (r *Reader) findSite(ctx context.Context, rd *read) ([]string, error) {
	host := strings.TrimSuffix(hostOnly(rd.req.Host), ".")
	segs := segments(rd.req.Path)
	if host != "" && host != hostOnly(r.host) && hostnamePattern(host) {
		snap, err := r.sites.get(ctx, siteKey{host: host})
		if err != nil {
			return nil, err
		}
		if snap.site != nil && snap.site.Hostname != "" {
			rd.snap, rd.site, rd.origin = snap, snap.site, r.scheme+"://"+snap.site.Hostname
			return segs, nil
		}
	}
	rd.origin = r.scheme + "://" + r.host
	prefix := segments(r.prefix)
	if len(segs) < len(prefix)+2 {
		return nil, nil
	}
	for i, p := range prefix {
		if unescaped(p) != segs[i] {
			return nil, nil
		}
	}
	org, name := segs[len(prefix)], segs[len(prefix)+1]
	snap, err := r.sites.get(ctx, siteKey{org: org, name: name})
	if err != nil {
		return nil, err
	}
	rd.snap, rd.site = snap, snap.site
	rd.base = r.prefix + "/" + url.PathEscape(org) + "/" + url.PathEscape(name)
	return segs[len(prefix)+2:], nil
}

// segments splits a path into its non-empty segments.
func segments(path string) []string {
	var out []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func unescaped(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return strings.ToLower(h)
	}
	return strings.ToLower(hostport)
}

// hostnamePattern tells whether host could be a custom hostname (three
// labels or more, not an IP address): only those are looked up.
func hostnamePattern(host string) bool {
	return net.ParseIP(host) == nil && strings.Count(host, ".") >= 2 && len(host) <= 512
}

// failed answers an error: a space content no longer has is a missing
// page; a 4xx or 503 keeps its status (and Retry-After, in readerhttp);
// anything else is a 500 whose cause is logged by readerhttp.
func (r *Reader) failed(rd *read, err error) *Response {
	if errors.Is(err, contentapi.ErrNoSpace) {
		return r.notFound(rd, "This page does not exist.")
	}
	var e *apierr.Error
	status := http.StatusInternalServerError
	if errors.As(err, &e) {
		status = e.Status
	}
	msg := "Something went wrong on our side. Try again in a moment."
	switch status {
	case http.StatusServiceUnavailable, http.StatusTooManyRequests:
		msg = "This site is busy right now. Try again in a moment."
	case http.StatusRequestEntityTooLarge:
		msg = "This content is too large to show."
	}
	resp := r.message(rd, status, "Unavailable", msg)
	resp.Err = err
	return resp
}
