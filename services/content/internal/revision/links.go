package revision

import (
	"net/url"
	"path"
	"sort"
	"strings"

	"github.com/docspub/platform/services/content/internal/links"
)

// Link statuses.
const (
	StatusOK     = "ok"     // an external URL (not fetched)
	StatusInApp  = "in-app" // a page or file of the revision, or another place of the app
	StatusBroken = "broken" // a relative link whose page or file the revision lacks
)

// Statuses are the link statuses, for validating a filter.
var Statuses = []string{StatusOK, StatusInApp, StatusBroken}

// Target kinds.
const (
	TargetURL  = "url"
	TargetPage = "page"
	TargetFile = "file"
)

// Target is what a link points at once resolved in a revision.
type Target struct {
	Status string
	Kind   string // TargetURL, TargetPage or TargetFile
	URL    string // the href as written (TargetURL, and every broken link)
	Page   string // page id (TargetPage)
	Anchor string // fragment of a page link
	File   string // file id (TargetFile)
}

// key identifies the target within a revision.
func (t Target) key() string {
	switch t.Kind {
	case TargetPage:
		return "page:" + t.Page + "#" + t.Anchor
	case TargetFile:
		return "file:" + t.File
	}
	return "url:" + t.URL
}

// Resolver resolves links written in a revision's pages. Relative links
// resolve like links between markdown files of a Git export: against the
// linking page's parent path first, then against the page's own path; a
// trailing ".md" or "README" (".md") names the page itself. A relative
// link whose last segment is a file's name (or id) is that file, wherever
// its folder (".gitbook/assets/", "../assets/", ...). Absolute URLs on the
// app's base are in-app; those into this space's pages must name an
// existing page. Other URLs (any scheme, or protocol-relative) are external.
type Resolver struct {
	rev       *Revision
	byPath    map[string]Flat
	byID      map[string]Flat
	files     map[string]File
	fileNames map[string]File
	app       string // urls.App, "" when unknown
	spaceApp  string // the space's app URL
}

// NewResolver indexes a revision's pages and files.
func NewResolver(r *Revision, u links.URLs) *Resolver {
	x := &Resolver{
		rev: r, byPath: map[string]Flat{}, byID: map[string]Flat{},
		files: map[string]File{}, fileNames: map[string]File{}, app: u.App,
	}
	if u.App != "" {
		x.spaceApp = u.InApp("/s/" + r.Space)
	}
	for _, f := range Flatten(r.Pages) {
		if _, ok := x.byPath[f.Path]; !ok {
			x.byPath[f.Path] = f
		}
		x.byID[f.Page.ID] = f
	}
	for _, f := range r.Files {
		x.files[f.ID] = f
		if _, ok := x.fileNames[f.Name]; !ok {
			x.fileNames[f.Name] = f
		}
	}
	return x
}

// Resolve classifies href written on the page from.
func (x *Resolver) Resolve(from Flat, href string) Target {
	href = strings.TrimSpace(href)
	raw := Target{URL: href, Kind: TargetURL}
	u, err := url.Parse(href)
	if err != nil {
		// Not a URL Go accepts (a space in a scheme-less path parses; a
		// stray "%" does not): read it as a plain relative path.
		p, frag, _ := strings.Cut(href, "#")
		p, _, _ = strings.Cut(p, "?")
		u = &url.URL{Path: p, Fragment: frag}
	}
	if u.Scheme != "" || strings.HasPrefix(href, "//") {
		return x.absolute(href, raw)
	}
	if u.Path == "" { // "#anchor" (or "?query"): the page itself
		return Target{Status: StatusInApp, Kind: TargetPage, Page: from.Page.ID, Anchor: u.Fragment}
	}
	if f, ok := x.relativePage(from, u.Path); ok {
		return Target{Status: StatusInApp, Kind: TargetPage, Page: f.Page.ID, Anchor: u.Fragment}
	}
	if f, ok := x.file(u.Path); ok {
		return Target{Status: StatusInApp, Kind: TargetFile, File: f.ID}
	}
	raw.Status = StatusBroken
	return raw
}

func (x *Resolver) absolute(href string, raw Target) Target {
	if x.app == "" || !(href == x.app || strings.HasPrefix(href, x.app+"/")) {
		raw.Status = StatusOK
		return raw
	}
	raw.Status = StatusInApp
	rest, ok := strings.CutPrefix(href, x.spaceApp+"/")
	if !ok {
		return raw // elsewhere in the app: not checked
	}
	u, err := url.Parse(rest)
	if err != nil {
		return raw
	}
	p := strings.Trim(u.Path, "/")
	if after, ok := strings.CutPrefix(p, "~/"); ok {
		// ~/revisions/<id>/<path> and ~/changes/<n>/<path>: another version
		// of the space; only the path is checked, against this revision.
		parts := strings.SplitN(after, "/", 3)
		if len(parts) < 3 {
			return raw
		}
		p = parts[2]
	}
	if f, ok := x.byPath[p]; ok {
		return Target{Status: StatusInApp, Kind: TargetPage, Page: f.Page.ID, Anchor: u.Fragment}
	}
	raw.Status = StatusBroken
	return raw
}

// relativePage finds the page a relative path names from the page from.
func (x *Resolver) relativePage(from Flat, p string) (Flat, bool) {
	var candidates []string
	if strings.HasPrefix(p, "/") {
		candidates = []string{p}
	} else {
		candidates = []string{path.Join(path.Dir("/"+from.Path), p), path.Join("/"+from.Path, p)}
	}
	for _, c := range candidates {
		if f, ok := x.byPath[pagePath(c)]; ok {
			return f, true
		}
	}
	return Flat{}, false
}

// pagePath normalises a link path to a page path: cleaned, without
// slashes around, ".md" and a final README.
func pagePath(p string) string {
	p = strings.Trim(path.Clean("/"+p), "/")
	if strings.HasSuffix(strings.ToLower(p), ".md") {
		p = p[:len(p)-3]
	}
	base := path.Base(p)
	if strings.EqualFold(base, "readme") {
		p = strings.TrimSuffix(strings.TrimSuffix(p, base), "/")
	}
	return p
}

func (x *Resolver) file(p string) (File, bool) {
	base := path.Base(strings.TrimRight(p, "/"))
	if f, ok := x.fileNames[base]; ok {
		return f, true
	}
	f, ok := x.files[base]
	return f, ok
}

// Occurrence is one link of one page, resolved.
type Occurrence struct {
	Page     Flat
	Relation string
	Href     string
	Target   Target
}

// Occurrences lists the resolved links of the document pages of a
// revision, in tree and document order; pageID limits them to one page.
func (x *Resolver) Occurrences(pageID string) []Occurrence {
	var out []Occurrence
	for _, f := range Flatten(x.rev.Pages) {
		if f.Page.Kind != KindDocument && f.Page.Kind != "" || (pageID != "" && f.Page.ID != pageID) {
			continue
		}
		for _, l := range ParseLinks(f.Page.Markdown) {
			out = append(out, Occurrence{Page: f, Relation: l.Relation, Href: l.Href, Target: x.Resolve(f, l.Href)})
		}
	}
	return out
}

// VersionContext names the revision a reference lives in.
type VersionContext struct {
	Type     string `json:"type"` // "revision"
	Revision string `json:"revision"`
}

// Reference points at a URL, a page or a file (of a revision).
type Reference struct {
	Kind           string          `json:"kind"`
	URL            string          `json:"url,omitempty"`
	Organization   string          `json:"organization,omitempty"`
	Space          string          `json:"space,omitempty"`
	VersionContext *VersionContext `json:"versionContext,omitempty"`
	Page           string          `json:"page,omitempty"`
	Anchor         string          `json:"anchor,omitempty"`
	File           string          `json:"file,omitempty"`
}

// LinkView is one item of a link listing: a target, how it is linked, and
// the pages that link it.
type LinkView struct {
	Status             string      `json:"status"`
	Relation           string      `json:"relation"`
	TargetReference    Reference   `json:"targetReference"`
	LocationReferences []Reference `json:"locationReferences"`
	key                string
}

// Key is the item's sort key (its cursor in a listing).
func (l LinkView) Key() string { return l.key }

// LinkStats count a listing's items (distinct targets per relation) by
// status, before the status filter.
type LinkStats struct {
	Total  int         `json:"total"`
	OK     int         `json:"ok"`
	InApp  int         `json:"inApp"`
	Broken BrokenStats `json:"broken"`
}

// BrokenStats count broken links. ChangeRequest (broken links in the
// space's open change requests) is not computed here and stays 0.
type BrokenStats struct {
	Total         int `json:"total"`
	ChangeRequest int `json:"changeRequest"`
}

// LinkList is one page of a link listing.
type LinkList struct {
	Items []LinkView
	Count int // items matching the filter
	Stats LinkStats
}

// linkViews groups occurrences into listing items, sorted by key.
func linkViews(r *Revision, occ []Occurrence) []LinkView {
	byKey := map[string]*LinkView{}
	seen := map[string]bool{}
	var keys []string
	for _, o := range occ {
		k := o.Relation + " " + o.Target.key()
		lv, ok := byKey[k]
		if !ok {
			lv = &LinkView{Status: o.Target.Status, Relation: o.Relation, TargetReference: reference(r, o.Target), LocationReferences: []Reference{}, key: k}
			byKey[k] = lv
			keys = append(keys, k)
		}
		if loc := k + "\x00" + o.Page.Page.ID; !seen[loc] {
			seen[loc] = true
			lv.LocationReferences = append(lv.LocationReferences, pageReference(r, o.Page.Page.ID))
		}
	}
	sort.Strings(keys)
	out := make([]LinkView, len(keys))
	for i, k := range keys {
		out[i] = *byKey[k]
	}
	return out
}

func reference(r *Revision, t Target) Reference {
	switch t.Kind {
	case TargetPage:
		ref := pageReference(r, t.Page)
		ref.Anchor = t.Anchor
		return ref
	case TargetFile:
		return Reference{Kind: TargetFile, Organization: r.Organization, Space: r.Space, VersionContext: versionContext(r), File: t.File}
	}
	return Reference{Kind: TargetURL, URL: t.URL}
}

func pageReference(r *Revision, pageID string) Reference {
	return Reference{Kind: TargetPage, Organization: r.Organization, Space: r.Space, VersionContext: versionContext(r), Page: pageID}
}

func versionContext(r *Revision) *VersionContext {
	return &VersionContext{Type: "revision", Revision: r.ID}
}

// listLinks filters, counts and pages link items.
func listLinks(items []LinkView, status string, p Window) LinkList {
	l := LinkList{Items: []LinkView{}}
	for _, it := range items {
		l.Stats.Total++
		switch it.Status {
		case StatusOK:
			l.Stats.OK++
		case StatusInApp:
			l.Stats.InApp++
		case StatusBroken:
			l.Stats.Broken.Total++
		}
		if status != "" && it.Status != status {
			continue
		}
		l.Count++
		if it.key > p.After && (p.Limit <= 0 || len(l.Items) < p.Limit) {
			l.Items = append(l.Items, it)
		}
	}
	return l
}

// BacklinkView is a page that links or embeds a file.
type BacklinkView = Reference

// BacklinkList is one page of a file's backlinks.
type BacklinkList struct {
	Items []BacklinkView
	Count int
}
