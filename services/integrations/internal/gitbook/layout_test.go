package gitbook

import (
	"reflect"
	"testing"
)

// TestLayoutOf: GitBook's front matter layout keys (GitbookIO/public-docs'
// landing page's among them) give the page's layout options and cover;
// keys left out keep GitBook's defaults, keys of another type are ignored.
func TestLayoutOf(t *testing.T) {
	t.Parallel()
	def := Options{Width: "default", CoverSize: "hero", Title: true, Description: true, TableOfContents: true, Outline: true, Pagination: true}
	for _, tc := range []struct {
		name, fm string
		want     *Options
		cover    *Cover
	}{
		{"none", "description: x\n", nil, nil},
		{"public-docs landing", "cover: .gitbook/assets/hero (1).png\ncoverY: 0\ncoverHeight: 461\nlayout:\n  width: wide\n  cover:\n    visible: true\n    size: background\n    mask: none\n" +
			"  title:\n    visible: false\n  description:\n    visible: false\n  tableOfContents:\n    visible: false\n  outline:\n    visible: false\n  pagination:\n    visible: true\n",
			&Options{Width: "wide", CoverSize: "background", Cover: true, Pagination: true}, &Cover{Src: ".gitbook/assets/hero (1).png", Height: 461}},
		{"cover only", "cover: ../.gitbook/assets/c.png\ncoverY: -12.5\n", func() *Options { o := def; o.Cover = true; return &o }(),
			&Cover{Src: "../.gitbook/assets/c.png", YPos: -12.5}},
		{"some keys", "layout:\n  title:\n    visible: false\n  outline: {}\n", func() *Options { o := def; o.Title = false; return &o }(), nil},
		{"wrong types", "cover: 3\ncoverHeight: 5000\nlayout:\n  width: huge\n  title: false\n  cover:\n    size: 7\n", &def, nil},
	} {
		fm, _ := frontMatter([]byte("---\n" + tc.fm + "---\n# T\n"))
		o, c := layoutOf(fm)
		if !reflect.DeepEqual(o, tc.want) || !reflect.DeepEqual(c, tc.cover) {
			t.Errorf("%s: layoutOf = %+v %+v, want %+v %+v", tc.name, o, c, tc.want, tc.cover)
		}
	}
}
