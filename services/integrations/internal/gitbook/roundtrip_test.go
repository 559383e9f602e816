package gitbook

import (
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fixture is a repository in GitBook's layout with what a round trip must
// keep: a .gitbook.yaml with redirects and a comment, front matter with
// keys the platform does not read, GitBook's blocks, raw HTML, a page with
// CRLF line endings, a page without a heading, a group, nesting, and
// assets.
func fixture() map[string][]byte {
	return map[string][]byte{
		"docs/.gitbook.yaml": []byte("root: ./\n\n# Pages that moved.\nredirects:\n  start: getting-started/README.md\n  old/windows: './reference/windows.md'\n"),
		"docs/SUMMARY.md": []byte("# Table of contents\n\n* [Welcome](README.md)\n* [Getting started](getting-started/README.md)\n" +
			"  * [Install](getting-started/install.md)\n\n## Reference\n\n* [API](reference/api.md)\n* [Windows notes](reference/windows.md)\n"),
		"docs/README.md": []byte("---\ndescription: The handbook\nlayout:\n  title:\n    visible: false\n---\n\n# Welcome\n\n" +
			"{% hint style=\"info\" %}\nRead **this** first.\n{% endhint %}\n\n<figure><img src=\".gitbook/assets/logo.png\" alt=\"\"><figcaption><p>Logo</p></figcaption></figure>\n"),
		"docs/getting-started/README.md":  []byte("# Getting started\n\n{% tabs %}\n{% tab title=\"Linux\" %}\napt\n{% endtab %}\n{% endtabs %}\n"),
		"docs/getting-started/install.md": []byte("---\nicon: download\nhidden: true\n---\n\n#   Install   \n\n\nSteps.\n"),
		"docs/reference/api.md":           []byte("No heading here.\n\n| a | b |\n|---|---|\n"),
		"docs/reference/windows.md":       []byte("# Windows notes\r\n\r\nLine one.\r\nLine two.\r\n"),
		"docs/.gitbook/assets/logo.png":   nil,
		"docs/.gitbook/assets/shot 1.png": nil,
	}
}

// asContent is the tree as content keeps it: the pages without their
// files, the fields a page has.
func asContent(ps []Page) []Page {
	out := make([]Page, len(ps))
	for i, p := range ps {
		out[i] = Page{Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description, Icon: p.Icon, Emoji: p.Emoji,
			Hidden: p.Hidden, Markdown: p.Markdown, Pages: asContent(p.Pages)}
	}
	return out
}

func TestWriteOverKeepsUnchangedPagesAndRewritesOnlyTheEditedOne(t *testing.T) {
	t.Parallel()
	files := fixture()
	tree, err := Read(files, "docs")
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Redirects) != 2 || len(tree.Problems) != 0 {
		t.Fatalf("redirects %+v, problems %q", tree.Redirects, tree.Problems)
	}
	prev := &Previous{Tree: tree, Text: files}
	names := []string{"logo.png", "shot 1.png"}

	out, err := WriteOver(asContent(tree.Pages), names, "docs", prev)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Text) != 0 || len(out.Remove) != 0 {
		t.Fatalf("an unchanged space writes %v and removes %v", keys(out.Text), out.Remove)
	}
	if diff := cmp.Diff(map[string]string{"logo.png": "docs/.gitbook/assets/logo.png", "shot 1.png": "docs/.gitbook/assets/shot 1.png"}, out.Files); diff != "" {
		t.Fatalf("files' paths (-want +got):\n%s", diff)
	}

	// One edit per page: only that page's file, what did not change kept.
	for _, tc := range []struct {
		name string
		edit func(ps []Page)
		path string
		want string
	}{
		{"markdown of a CRLF page", func(ps []Page) { ps[2].Pages[1].Markdown = "Line one.\nLine 2.\n" },
			"docs/reference/windows.md", "# Windows notes\r\n\r\nLine one.\r\nLine 2.\r\n"},
		{"markdown of a page with front matter", func(ps []Page) { ps[1].Pages[0].Markdown = "Other steps.\n" },
			"docs/getting-started/install.md", "---\nicon: download\nhidden: true\n---\n\n#   Install   \n\n\nOther steps.\n"},
		{"title", func(ps []Page) { ps[1].Title = "Start here" },
			"docs/getting-started/README.md", "# Start here\n\n{% tabs %}\n{% tab title=\"Linux\" %}\napt\n{% endtab %}\n{% endtabs %}\n"},
		{"description keeps the other keys", func(ps []Page) { ps[0].Description = "Our handbook" },
			"docs/README.md", "---\ndescription: Our handbook\nlayout:\n    title:\n        visible: false\n---\n\n# Welcome\n\n" +
				"{% hint style=\"info\" %}\nRead **this** first.\n{% endhint %}\n\n<figure><img src=\".gitbook/assets/logo.png\" alt=\"\"><figcaption><p>Logo</p></figcaption></figure>\n"},
		{"page without a heading", func(ps []Page) { ps[2].Pages[0].Markdown = "Still no heading.\n" },
			"docs/reference/api.md", "Still no heading.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pages := asContent(tree.Pages)
			tc.edit(pages)
			out, err := WriteOver(pages, names, "docs", prev)
			if err != nil {
				t.Fatal(err)
			}
			written := keys(out.Text)
			wantWritten := []string{tc.path}
			if tc.name == "title" {
				wantWritten = []string{"docs/SUMMARY.md", tc.path} // the title is in SUMMARY.md too
			}
			if diff := cmp.Diff(wantWritten, written); diff != "" || len(out.Remove) != 0 {
				t.Fatalf("written (-want +got):\n%s\nremoved %v", diff, out.Remove)
			}
			if diff := cmp.Diff(tc.want, string(out.Text[tc.path])); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tc.path, diff)
			}
			again, err := Read(merge(files, out.Text), "docs")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(outlineOf(pages), outlineOf(again.Pages)); diff != "" {
				t.Errorf("read back (-want +got):\n%s", diff)
			}
		})
	}

	// A page removed, a page and a file added: the removed page's file
	// goes, the new one is written, SUMMARY.md changes; the rest stays.
	pages := asContent(tree.Pages)
	pages[2].Pages = pages[2].Pages[:1]
	pages[1].Pages = append(pages[1].Pages, Page{Kind: KindDocument, Title: "Upgrade", Slug: "upgrade", Markdown: "New.\n", Pages: []Page{}})
	out, err = WriteOver(pages, []string{"logo.png"}, "docs", prev)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"docs/SUMMARY.md", "docs/getting-started/upgrade.md"}, keys(out.Text)); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"docs/.gitbook/assets/shot 1.png", "docs/reference/windows.md"}, out.Remove); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if s := string(out.Text["docs/SUMMARY.md"]); !strings.Contains(s, "(getting-started/install.md)") || !strings.Contains(s, "(getting-started/upgrade.md)") {
		t.Errorf("SUMMARY.md:\n%s", s)
	}
}

func keys(m map[string][]byte) []string {
	out := []string{}
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func merge(a, b map[string][]byte) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
