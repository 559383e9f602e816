// Package icons draws GitBook's icons as inline SVG: the Font Awesome
// Free 7.3.1 icons (CC BY 4.0, LICENSE.txt) that GitBook's own docs
// (GitbookIO/public-docs) use, as the npm package
// @fortawesome/fontawesome-free ships them, embedded. GitBook names icons
// after Font Awesome Pro; a name that is neither one of these nor an
// alias of one is drawn as nothing.
package icons

import (
	"embed"
	"fmt"
	"io/fs"
	"regexp"
	"sort"
	"strings"
)

//go:embed svg/*.svg
var files embed.FS

// aliases are the older Font Awesome names GitBook pages use for icons
// kept here under their current name (icons.yml's aliases).
var aliases = map[string]string{
	"info-circle": "circle-info",
	"warning":     "triangle-exclamation",
}

var (
	viewBox = regexp.MustCompile(`viewBox="([0-9. ]+)"`)
	pathD   = regexp.MustCompile(`<path fill="currentColor" d="([^"<>]+)"\s*/>`)
	// Name is what an icon name may be: lower-case words and digits
	// joined by dashes.
	Name = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
)

// drawn are the icons' SVG elements by name, made once.
var drawn = func() map[string]string {
	out := map[string]string{}
	entries, _ := fs.Glob(files, "svg/*.svg")
	for _, e := range entries {
		b, _ := files.ReadFile(e)
		vb, d := viewBox.FindSubmatch(b), pathD.FindSubmatch(b)
		if vb == nil || d == nil {
			panic("icons: " + e + " is not a one-path Font Awesome SVG")
		}
		name := strings.TrimSuffix(strings.TrimPrefix(e, "svg/"), ".svg")
		out[name] = fmt.Sprintf(`<svg class="icon icon-%s" xmlns="http://www.w3.org/2000/svg" viewBox="%s" width="1em" height="1em" aria-hidden="true" focusable="false"><path fill="currentColor" d="%s"/></svg>`,
			name, vb[1], d[1])
	}
	return out
}()

// SVG is the inline SVG of the icon name ("hand-pointer", "fa-github",
// "fa-solid fa-rocket": the first fa- class naming an icon), and false
// when there is none.
func SVG(name string) (string, bool) {
	key := Lookup(name)
	if key == "" {
		return "", false
	}
	return drawn[key], true
}

// Lookup is the name of the icon name draws ("" for none).
func Lookup(name string) string {
	for _, f := range strings.Fields(strings.ToLower(name)) {
		f = strings.TrimPrefix(f, "fa-")
		if a, ok := aliases[f]; ok {
			f = a
		}
		if _, ok := drawn[f]; ok {
			return f
		}
	}
	return ""
}

// Names are the icons drawn, sorted.
func Names() []string {
	out := make([]string, 0, len(drawn))
	for n := range drawn {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
