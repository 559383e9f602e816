package gitbook

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/docspub/platform/services/integrations/internal/limits"
	"go.yaml.in/yaml/v3"
)

// config is .gitbook.yaml: where the docs are and their structure files
// ("" for the defaults), and its redirects (nil for none).
type config struct {
	root, readme, summary string
	redirects             *yaml.Node
}

// readConfig reads .gitbook.yaml, at most limits.ConfigBytes. Its YAML is
// decoded into nodes, and their keys are read in one pass: a mapping's keys
// are never compared pairwise, as the YAML library does when it decodes a
// mapping into a Go value, so that a file of many keys costs what its size
// does. Unknown keys are ignored; a key given twice is refused, as YAML
// refuses it.
func readConfig(b []byte) (config, error) {
	var c config
	if len(b) > limits.ConfigBytes {
		return c, layoutErr(".gitbook.yaml is larger than %d bytes", limits.ConfigBytes)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return c, layoutErr(".gitbook.yaml is not valid YAML")
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		return c, nil
	}
	top := deref(doc.Content[0])
	if top.Kind != yaml.MappingNode {
		return c, layoutErr(".gitbook.yaml is not a mapping")
	}
	return c, pairs(top, "", func(key string, v *yaml.Node) error {
		var err error
		switch key {
		case "root":
			c.root, err = scalar("root", v)
		case "structure":
			if isNull(v) {
				return nil
			}
			if deref(v).Kind != yaml.MappingNode {
				return layoutErr(".gitbook.yaml: structure is not a mapping")
			}
			err = pairs(deref(v), "structure.", func(key string, v *yaml.Node) error {
				var err error
				switch key {
				case "readme":
					c.readme, err = scalar("structure.readme", v)
				case "summary":
					c.summary, err = scalar("structure.summary", v)
				}
				return err
			})
		case "redirects":
			c.redirects = v
		}
		return err
	})
}

// pairs calls f with each key of the mapping m (named under prefix in
// errors) and its value, in order.
func pairs(m *yaml.Node, prefix string, f func(key string, v *yaml.Node) error) error {
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := deref(m.Content[i])
		if k.Kind != yaml.ScalarNode {
			continue // not a key .gitbook.yaml has
		}
		if seen[k.Value] {
			return layoutErr(".gitbook.yaml: %s%s is given twice", prefix, short(k.Value))
		}
		seen[k.Value] = true
		if err := f(k.Value, m.Content[i+1]); err != nil {
			return err
		}
	}
	return nil
}

// scalar is the string value of the key name ("" for null).
func scalar(name string, v *yaml.Node) (string, error) {
	if isNull(v) {
		return "", nil
	}
	if v = deref(v); v.Kind != yaml.ScalarNode {
		return "", layoutErr(".gitbook.yaml: %s is not a string", name)
	}
	return v.Value, nil
}

// deref is the node an alias names, else the node.
func deref(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = deref(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// problems gathers what an import leaves out: at most limits.Problems
// messages, the last one counting the rest.
type problems struct {
	list []string
	more int
}

func (p *problems) add(format string, args ...any) {
	if len(p.list) < limits.Problems {
		p.list = append(p.list, fmt.Sprintf(format, args...))
		return
	}
	p.more++
}

func (p *problems) done() []string {
	if p.more > 0 {
		p.list[len(p.list)-1] = fmt.Sprintf("and %d more problems", p.more+1)
	}
	return p.list
}

// redirects reads .gitbook.yaml's redirects, n: a mapping of old paths (a
// page's path under the space's root) to page files (relative to the docs
// root, as GitBook reads them), against the tree's pages. A redirect that
// is malformed, repeated (the first one is kept), past the first
// limits.Redirects, or whose file is no page of the tree is left out, and
// reported.
func (r *reader) redirects(n *yaml.Node, pages []Page, p *problems) []Redirect {
	if n == nil || isNull(n) {
		return nil
	}
	m := deref(n)
	if m.Kind != yaml.MappingNode {
		p.add(".gitbook.yaml: redirects is not a mapping of old paths to page files; no redirect is kept")
		return nil
	}
	at := map[string][]int{}
	pageFiles(pages, nil, at)
	seen := map[string]bool{}
	var out []Redirect
	for i := 0; i+1 < len(m.Content); i += 2 {
		if i/2 == limits.Redirects {
			p.add("%d redirects past the first %d are left out", (len(m.Content)-i)/2, limits.Redirects)
			break
		}
		k, v := deref(m.Content[i]), deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || isNull(k) {
			p.add("a redirect's old path is not a string (line %d)", k.Line)
			continue
		}
		from, why := redirectPath(k.Value)
		if why == "" && (v.Kind != yaml.ScalarNode || isNull(v)) {
			why = "its page file is not a string"
		}
		if why == "" && seen[from] {
			why = "it is given twice; the first one is kept"
		}
		var file string
		if why == "" {
			file, why = r.redirectFile(v.Value)
		}
		if why == "" {
			if _, ok := at[file]; !ok {
				why = fmt.Sprintf("%s is no page of the space", short(file))
				if _, exists := r.files[file]; !exists {
					why = fmt.Sprintf("there is no file %s", short(file))
				}
			}
		}
		if why != "" {
			p.add("redirect %q: %s", short(k.Value), why)
			continue
		}
		seen[from] = true
		out = append(out, Redirect{Path: from, File: file, Page: at[file]})
	}
	return out
}

// redirectPath is a redirect's old path as readers' paths are compared
// with it: percent-escapes decoded, empty and "." segments dropped; why
// says what makes it no path ("" when it is one).
func redirectPath(s string) (string, string) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, "?#") {
		return "", "an old path has no query or fragment"
	}
	if u, err := url.PathUnescape(s); err == nil {
		s = u
	} else {
		return "", "malformed percent-escape"
	}
	if !utf8.ValidString(s) || strings.ContainsFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }) {
		return "", "an old path has no control characters or backslashes"
	}
	var segs []string
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return "", "an old path has no .. segments"
		}
		segs = append(segs, seg)
	}
	out := strings.Join(segs, "/")
	switch {
	case out == "":
		return "", "the space's root is its first page, never redirected"
	case len(out) > limits.RedirectPath:
		return "", fmt.Sprintf("an old path has at most %d bytes", limits.RedirectPath)
	}
	return out, ""
}

// redirectFile is a redirect's page file, relative to the docs root, as a
// path of the repository; why says what makes it no page file ("" when
// it is one).
func (r *reader) redirectFile(s string) (string, string) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) > limits.RedirectTarget:
		return "", fmt.Sprintf("a page file's path has at most %d bytes", limits.RedirectTarget)
	case strings.Contains(s, "#"):
		return "", "a redirect goes to a page, not to an anchor of it"
	}
	file, ok := Clean(s)
	if !ok {
		return "", "its page file is outside the docs root"
	}
	if file = join(r.root, file); !isMarkdown(file) {
		return "", fmt.Sprintf("%s is not a markdown file", short(file))
	}
	return file, ""
}

// pageFiles maps the files of the document pages ps (at the place at in
// the tree) to their places: the first page of each file.
func pageFiles(ps []Page, at []int, into map[string][]int) {
	for i, p := range ps {
		here := append(slices.Clone(at), i)
		if _, taken := into[p.Path]; p.Path != "" && p.Kind == KindDocument && !taken {
			into[p.Path] = here
		}
		pageFiles(p.Pages, here, into)
	}
}

// short cuts s for a message.
func short(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
