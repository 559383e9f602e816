package gitbook

import "strings"

// Options are a page's layout options, as GitBook's front matter gives
// them under layout: (width, and the visibility of the cover, with its
// size, title, description, table of contents, outline and pagination).
type Options struct {
	Width, CoverSize                                                string
	Cover, Title, Description, TableOfContents, Outline, Pagination bool
}

// Cover is a page's cover image from its front matter: cover: (a file
// relative to the page's, or a URL), coverY: (its vertical offset) and
// coverHeight: (pixels, 10 to 700; 0 when unset). GitBook's Git format
// has no key for a dark cover (the API's cover.refDark): GitbookIO/public-docs
// (3d5c46e) writes only these three, its front matter reference
// (documentation/.gitbook/assets/skill.md) names none, and its
// insert-images page says page covers have no light and dark images; so
// Git import leaves a page's dark cover unset and export writes none.
type Cover struct {
	Src    string
	YPos   float64
	Height int
}

// layoutOf reads a page's layout options and cover from its front matter:
// nil options when it gives neither layout: nor cover: (GitBook's
// defaults), nil cover without cover:. Keys it does not know, or of
// another type, keep their defaults.
func layoutOf(fm map[string]any) (*Options, *Cover) {
	var c *Cover
	if src, ok := fm["cover"].(string); ok && strings.TrimSpace(src) != "" && len(src) <= 2048 {
		c = &Cover{Src: strings.TrimSpace(src)}
		if y, ok := number(fm["coverY"]); ok {
			c.YPos = y
		}
		if h, ok := number(fm["coverHeight"]); ok && h >= 10 && h <= 700 {
			c.Height = int(h)
		}
	}
	m, ok := fm["layout"].(map[string]any)
	if !ok && c == nil {
		return nil, nil
	}
	o := &Options{Width: "default", CoverSize: "hero", Cover: c != nil, Title: true, Description: true,
		TableOfContents: true, Outline: true, Pagination: true}
	if w, _ := m["width"].(string); w == "wide" {
		o.Width = "wide"
	}
	for key, to := range map[string]*bool{"cover": &o.Cover, "title": &o.Title, "description": &o.Description,
		"tableOfContents": &o.TableOfContents, "outline": &o.Outline, "pagination": &o.Pagination} {
		sub, _ := m[key].(map[string]any)
		if v, ok := sub["visible"].(bool); ok {
			*to = v
		}
	}
	cover, _ := m["cover"].(map[string]any)
	switch size, _ := cover["size"].(string); size {
	case "full", "background":
		o.CoverSize = size
	}
	return o, c
}

// number is a YAML number as a float.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
