package gitbook

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/docspub/platform/services/integrations/internal/limits"
	"github.com/google/go-cmp/cmp"
)

// redirectRepo is a repository whose docs are under docs/, with the
// .gitbook.yaml redirects given.
func redirectRepo(redirects string) map[string][]byte {
	return map[string][]byte{
		".gitbook.yaml": []byte("root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n" + redirects),
		"docs/SUMMARY.md": []byte("# Table of contents\n\n* [Home](README.md)\n* [Support](support.md)\n\n## Guides\n\n" +
			"* [Folder](new-folder/README.md)\n  * [Page](new-folder/page.md)\n"),
		"docs/README.md":             []byte("# Home\n"),
		"docs/support.md":            []byte("# Support\n"),
		"docs/new-folder/README.md":  []byte("# Folder\n"),
		"docs/new-folder/page.md":    []byte("# Page\n"),
		"docs/unlisted.md":           []byte("# Not in the summary\n"),
		"docs/.gitbook/assets/x.png": nil,
		"outside.md":                 []byte("# Outside the docs\n"),
	}
}

// TestReadRedirects: .gitbook.yaml's redirects name page files relative to
// the docs root; each one kept says where its page is in the tree, its
// old path cleaned as readers' paths are; those that are malformed or name
// no page are left out, each with a problem naming it, and the tree is
// read all the same.
func TestReadRedirects(t *testing.T) {
	t.Parallel()
	tree, err := Read(redirectRepo(`redirects:
  previous/page: new-folder/page.md
  help: support.md
  home: ./README.md
  /slashes//and/./dots/: /new-folder/README.md
  caf%C3%A9: support.md
  missing: nowhere.md
  unlisted: unlisted.md
  anchor: support.md#contact
  up: ../outside.md
  image: .gitbook/assets/x.png
  help: README.md
  "": README.md
  nested: {a: b}
  a/../b: support.md
  "q?x=1": support.md
`), "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Redirect{
		{Path: "previous/page", File: "docs/new-folder/page.md", Page: []int{2, 0, 0}},
		{Path: "help", File: "docs/support.md", Page: []int{1}},
		{Path: "home", File: "docs/README.md", Page: []int{0}},
		{Path: "slashes/and/dots", File: "docs/new-folder/README.md", Page: []int{2, 0}},
		{Path: "café", File: "docs/support.md", Page: []int{1}},
	}
	if diff := cmp.Diff(want, tree.Redirects); diff != "" {
		t.Errorf("redirects (-want +got):\n%s", diff)
	}
	for i, want := range []string{
		`redirect "missing": there is no file docs/nowhere.md`,
		`redirect "unlisted": docs/unlisted.md is no page of the space`,
		`redirect "anchor": a redirect goes to a page, not to an anchor of it`,
		`redirect "up": its page file is outside the docs root`,
		`redirect "image": docs/.gitbook/assets/x.png is not a markdown file`,
		`redirect "help": it is given twice; the first one is kept`,
		`redirect "": the space's root is its first page, never redirected`,
		`redirect "nested": its page file is not a string`,
		`redirect "a/../b": an old path has no .. segments`,
		`redirect "q?x=1": an old path has no query or fragment`,
	} {
		if i >= len(tree.Problems) || tree.Problems[i] != want {
			t.Errorf("problem %d: want %q in %q", i, want, tree.Problems)
		}
	}
	if len(tree.Problems) != 10 {
		t.Errorf("problems %q", tree.Problems)
	}
	if len(tree.Pages) != 3 || tree.Pages[2].Kind != KindGroup {
		t.Errorf("pages %+v", outlineOf(tree.Pages))
	}
}

// TestReadRedirectsBounded: the first limits.Redirects redirects are kept
// and the rest counted in one problem; problems stop at limits.Problems,
// the last one counting the rest; an old path or a page file over its
// length is left out.
func TestReadRedirectsBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("redirects:\n")
	for i := range limits.Redirects + 5 {
		fmt.Fprintf(&b, "  old/%d: support.md\n", i)
	}
	tree, err := Read(redirectRepo(b.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Redirects) != limits.Redirects || tree.Redirects[limits.Redirects-1].Path != fmt.Sprintf("old/%d", limits.Redirects-1) {
		t.Errorf("%d redirects kept", len(tree.Redirects))
	}
	if diff := cmp.Diff([]string{fmt.Sprintf("5 redirects past the first %d are left out", limits.Redirects)}, tree.Problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}

	b.Reset()
	b.WriteString("redirects:\n")
	for i := range limits.Problems + 3 {
		fmt.Fprintf(&b, "  gone/%d: gone-%d.md\n", i, i)
	}
	fmt.Fprintf(&b, "  %s: support.md\n", strings.Repeat("x", limits.RedirectPath+1))
	fmt.Fprintf(&b, "  long: %s.md\n", strings.Repeat("y", limits.RedirectTarget))
	fmt.Fprintf(&b, "  %s: support.md\n", strings.Repeat("z", limits.RedirectPath))
	tree, err = Read(redirectRepo(b.String()), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Problems) != limits.Problems || tree.Problems[limits.Problems-1] != "and 6 more problems" {
		t.Errorf("problems %q", tree.Problems)
	}
	if len(tree.Redirects) != 1 || len(tree.Redirects[0].Path) != limits.RedirectPath {
		t.Errorf("redirects %+v", tree.Redirects)
	}
}

// TestReadConfig: .gitbook.yaml's keys as GitBook reads them, unknown keys
// ignored; what cannot be read fails the import with a layout error,
// while redirects that are no mapping are only left out.
func TestReadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, yaml string
		fails      string // "" when it reads
		redirects  int
		problems   int
	}{
		{name: "empty", yaml: ""},
		{name: "null redirects", yaml: "root: ./docs/\nredirects:\n"},
		{name: "unknown keys", yaml: "root: ./docs/\nplugins: [a, b]\nredirects:\n  help: support.md\n", redirects: 1},
		{name: "aliases", yaml: "root: &r ./docs/\nx: *r\nredirects:\n  help: &s support.md\n  aid: *s\n", redirects: 2},
		{name: "redirects a list", yaml: "root: ./docs/\nredirects:\n  - help\n", problems: 1},
		{name: "root twice", yaml: "root: ./docs/\nroot: ./\n", fails: ".gitbook.yaml: root is given twice"},
		{name: "root a mapping", yaml: "root: {a: b}\n", fails: ".gitbook.yaml: root is not a string"},
		{name: "structure a list", yaml: "structure: [a]\n", fails: ".gitbook.yaml: structure is not a mapping"},
		{name: "a list", yaml: "- root\n", fails: ".gitbook.yaml is not a mapping"},
		{name: "not YAML", yaml: "root: [\n", fails: ".gitbook.yaml is not valid YAML"},
		{name: "too large", yaml: "root: ./docs/\n#" + strings.Repeat("x", limits.ConfigBytes), fails: fmt.Sprintf(".gitbook.yaml is larger than %d bytes", limits.ConfigBytes)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := redirectRepo("")
			files[".gitbook.yaml"] = []byte(tc.yaml)
			if tc.yaml == "" || strings.HasPrefix(tc.yaml, "- ") || strings.HasPrefix(tc.yaml, "root: [") {
				files["SUMMARY.md"] = []byte("* [Home](docs/README.md)\n")
			}
			tree, err := Read(files, "")
			if tc.fails != "" {
				if !errors.Is(err, ErrLayout) || !strings.HasSuffix(err.Error(), tc.fails) {
					t.Fatalf("error %v, want %q", err, tc.fails)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(tree.Redirects) != tc.redirects || len(tree.Problems) != tc.problems || len(tree.Pages) == 0 {
				t.Errorf("redirects %+v, problems %q, %d pages", tree.Redirects, tree.Problems, len(tree.Pages))
			}
		})
	}
}
