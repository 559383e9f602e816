package gitbook

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// outline is a page tree reduced to what a reader sees.
type outline struct {
	Kind, Title, Markdown, Description, Icon, Href string
	Hidden                                         bool
	Pages                                          []outline
}

func outlineOf(ps []Page) []outline {
	out := []outline{}
	for _, p := range ps {
		out = append(out, outline{Kind: p.Kind, Title: p.Title, Markdown: p.Markdown, Description: p.Description,
			Icon: p.Icon, Hidden: p.Hidden, Href: p.Href, Pages: outlineOf(p.Pages)})
	}
	return out
}

func TestReadGitBookLayout(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"docs/.gitbook.yaml":                    []byte("root: ./content/\nstructure:\n  readme: intro.md\n  summary: toc.md\n"),
		"docs/content/toc.md":                   []byte("# Table of contents\n\n* [Welcome](intro.md)\n* [Setup](setup/README.md)\n  * [Linux](setup/linux.md)\n    * [Debian & Ubuntu](setup/linux/debian.md)\n\n## Reference\n\n* [API](reference/api.md)\n"),
		"docs/content/intro.md":                 []byte("# Welcome\n\nHello ![logo](.gitbook/assets/logo.png)\n"),
		"docs/content/setup/README.md":          []byte("---\ndescription: How to set up\nicon: gear\n---\n\n# Setup\n\nSteps.\n"),
		"docs/content/setup/linux.md":           []byte("---\nhidden: true\n---\n# Linux\n\nApt.\n"),
		"docs/content/setup/linux/debian.md":    []byte("Just text, no heading.\n"),
		"docs/content/reference/api.md":         []byte("# API\n\n```\ncode\n```\n"),
		"docs/content/.gitbook/assets/logo.png": {0x89, 'P', 'N', 'G'},
		"README.md":                             []byte("# Repository readme, outside the docs\n"),
	}
	tree, err := Read(files, "docs")
	if err != nil {
		t.Fatal(err)
	}
	want := []outline{
		{Kind: KindDocument, Title: "Welcome", Markdown: "Hello ![logo](.gitbook/assets/logo.png)\n", Pages: []outline{}},
		{Kind: KindDocument, Title: "Setup", Markdown: "Steps.\n", Description: "How to set up", Icon: "gear", Pages: []outline{
			{Kind: KindDocument, Title: "Linux", Markdown: "Apt.\n", Hidden: true, Pages: []outline{
				{Kind: KindDocument, Title: "Debian & Ubuntu", Markdown: "Just text, no heading.\n", Pages: []outline{}},
			}},
		}},
		{Kind: KindGroup, Title: "Reference", Pages: []outline{
			{Kind: KindDocument, Title: "API", Markdown: "```\ncode\n```\n", Pages: []outline{}},
		}},
	}
	if diff := cmp.Diff(want, outlineOf(tree.Pages)); diff != "" {
		t.Errorf("pages (-want +got):\n%s", diff)
	}
	if len(tree.Files) != 1 || tree.Files[0].Name != "logo.png" || tree.Files[0].ContentType != "image/png" {
		t.Errorf("files %+v", tree.Files)
	}
}

func TestReadWithoutSummary(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"README.md":         []byte("# Home\n\nStart here.\n"),
		"guide/README.md":   []byte("# Guide\n\nThe guide.\n"),
		"guide/b-second.md": []byte("# Second\n"),
		"guide/a-first.md":  []byte("# First\n"),
		"api/endpoints.md":  []byte("# Endpoints\n"),
		"notes.md":          []byte("No title here.\n"),
	}
	tree, err := Read(files, "")
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, p := range tree.Pages {
		titles = append(titles, p.Title)
	}
	if diff := cmp.Diff([]string{"Home", "Notes", "Api", "Guide"}, titles); diff != "" {
		t.Errorf("top-level titles (-want +got):\n%s", diff)
	}
	if g := tree.Pages[3]; g.Kind != KindDocument || len(g.Pages) != 2 || g.Pages[0].Title != "First" || g.Markdown != "The guide.\n" {
		t.Errorf("guide %+v", g)
	}
	if a := tree.Pages[2]; a.Kind != KindGroup || len(a.Pages) != 1 {
		t.Errorf("a directory without README at the top is a group: %+v", a)
	}
}

func TestWriteThenReadRoundTrip(t *testing.T) {
	t.Parallel()
	pages := []Page{
		{Kind: KindDocument, Title: "Intro", Slug: "intro", Markdown: "Hello.\n", Pages: []Page{}},
		{Kind: KindDocument, Title: "Install [beta]", Slug: "install", Description: "Get going", Hidden: true, Markdown: "Run it.\n", Pages: []Page{
			{Kind: KindDocument, Title: "On Mac", Slug: "mac", Markdown: "brew\n", Pages: []Page{}},
		}},
		{Kind: KindGroup, Title: "Reference", Slug: "reference", Pages: []Page{
			{Kind: KindDocument, Title: "CLI", Slug: "cli", Markdown: "![x](.gitbook/assets/x.png)\n", Pages: []Page{}},
			{Kind: KindLink, Title: "CLI flags", Slug: "cli-flags", Href: "reference/cli.md#flags", Pages: []Page{}},
			{Kind: KindLink, Title: "Source (GitHub)", Slug: "source", Href: "https://example.com/zebra?tab=code#readme", Pages: []Page{}},
		}},
	}
	out, err := Write(pages, []string{"x.png"}, "site")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for p, b := range out.Text {
		files[p] = b
	}
	for _, p := range out.Files {
		files[p] = []byte("png")
	}
	tree, err := Read(files, "site")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(outlineOf(pages), outlineOf(tree.Pages)); diff != "" {
		t.Errorf("round trip (-want +got):\n%s\nSUMMARY:\n%s", diff, out.Text["site/SUMMARY.md"])
	}
	if len(tree.Files) != 1 || tree.Files[0].Path != "site/.gitbook/assets/x.png" {
		t.Errorf("files %+v", tree.Files)
	}
}

func TestReadRefusesEscapesAndExcess(t *testing.T) {
	t.Parallel()
	if _, err := Read(map[string][]byte{".gitbook.yaml": []byte("root: ../../etc\n")}, ""); err == nil {
		t.Error("a root outside the repository was accepted")
	}
	for _, c := range []string{"structure:\n  summary: ../SUMMARY.md\n", "root: docs\nstructure:\n  readme: a/../../README.md\n", "structure:\n  summary: /\n"} {
		if _, err := Read(map[string][]byte{".gitbook.yaml": []byte(c), "SUMMARY.md": []byte("# T\n")}, ""); err == nil {
			t.Errorf("%q: a structure file outside the docs root was accepted", c)
		}
	}
	if _, err := Read(nil, "../x"); err == nil {
		t.Error("a project directory outside the repository was accepted")
	}
	deep := "# T\n\n"
	for i := 0; i <= MaxDepth+1; i++ {
		deep += string(make([]byte, 0)) + repeat("  ", i) + "* [P](p.md)\n"
	}
	if _, err := Read(map[string][]byte{"SUMMARY.md": []byte(deep)}, ""); err == nil {
		t.Error("nesting deeper than MaxDepth was accepted")
	}
}

func repeat(s string, n int) string {
	out := ""
	for range n {
		out += s
	}
	return out
}

// TestIncludes: markdown files right under the root's .gitbook/includes/
// are the tree's includes, named by their base name; pages stay pages.
func TestIncludes(t *testing.T) {
	tree, err := Read(map[string][]byte{
		".gitbook.yaml":                         []byte("root: ./docs/\n"),
		"docs/README.md":                        []byte("# Home\n\n{% include \".gitbook/includes/note.md\" %}\n"),
		"docs/.gitbook/includes/note.md":        []byte("{% hint style=\"info\" %}\nShared.\n{% endhint %}\n"),
		"docs/.gitbook/includes/nested/deep.md": []byte("not an include"),
		"docs/.gitbook/includes/image.png":      []byte("png"),
		".gitbook/includes/outside.md":          []byte("outside the root"),
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []Include{{Name: "note", Path: "docs/.gitbook/includes/note.md", Markdown: "{% hint style=\"info\" %}\nShared.\n{% endhint %}\n"}}
	if diff := cmp.Diff(tree.Includes, want); diff != "" {
		t.Errorf("includes (-got +want):\n%s", diff)
	}
	if len(tree.Pages) != 1 {
		t.Errorf("pages %+v", tree.Pages)
	}
}
