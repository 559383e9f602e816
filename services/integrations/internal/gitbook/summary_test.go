package gitbook

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/services/integrations/internal/limits"
)

// stairs is issue 19's SUMMARY.md: a list nested one level deeper on every
// line, size bytes long.
func stairs(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s* [P%d](p%d.md)\n", strings.Repeat("  ", i), i, i)
	}
	return []byte(b.String())
}

// markers opens every line with n list markers.
func markers(size, n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%s[P%d](p%d.md)\n", strings.Repeat("* ", n), i, i)
	}
	return []byte(b.String())
}

// TestSummaryIsBoundedBeforeParsing: issue 19's reproductions (a 4 MB
// nested-list SUMMARY.md took 13 s) are refused in a pass over their bytes,
// naming the limit; nesting within the limits still reads.
func TestSummaryIsBoundedBeforeParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, want string
		src        []byte
	}{
		{"4 MB of nested lists", "larger than 1048576 bytes", stairs(4 << 20)},
		{"a staircase within the size", "indented more than 128 columns", stairs(200_000)},
		{"many markers per line", "opens more than 16 nested lists", markers(500_000, 40)},
		{"a long line", "line 2 is longer than 1024 bytes", []byte("* [A](a.md)\n* " + strings.Repeat("[a](", 300) + "\n")},
		{"a long paragraph", "line 9 continues a paragraph of more than 8 lines", []byte("* [A](a.md)\n" + strings.Repeat("[a]: b\n", 20))},
		{"many items", "more than 2000 pages", []byte(strings.Repeat("* [A](a.md)\n", 2001))},
		{"deep quotes", "opens more than 16 nested lists", []byte(strings.Repeat(">", 100) + " * [A](a.md)\n")},
		{"tabs", "indented more than 128 columns", []byte("* [A](a.md)\n" + strings.Repeat("\t", 33) + "* [B](b.md)\n")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			_, err := Read(map[string][]byte{"SUMMARY.md": tc.src}, "")
			if !errors.Is(err, ErrLayout) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Read() = %v, want a layout error saying %q", err, tc.want)
			}
			if took := time.Since(start); took > time.Second {
				t.Errorf("refusing %d bytes took %s", len(tc.src), took)
			}
		})
	}
	ok := "# Contents\n\n* [A](a.md)\n" + repeat("  ", 1) + "* [B](b.md)\n" + repeat("    ", 2) + "1. [C](c.md)\n\n" +
		strings.Repeat(" ", limits.SummaryIndent+10) + "\n> * [Quoted](q.md)\n\n## Group\n\n" + strings.Repeat("* [D](d.md)\n", 1990)
	if _, err := Read(map[string][]byte{"SUMMARY.md": []byte(ok)}, ""); err != nil {
		t.Fatalf("a SUMMARY.md within the limits: %v", err)
	}
}

// FuzzSummary reads arbitrary SUMMARY.md files: Read never panics, ends
// quickly, and a tree it returns keeps the layout limits and unique,
// non-empty sibling slugs.
func FuzzSummary(f *testing.F) {
	for _, s := range []string{
		"# Table of contents\n\n* [Welcome](README.md)\n* [Getting started](getting-started/README.md)\n  * [Install](getting-started/install.md)\n\n## Reference\n\n* [API](reference/api.md)\n",
		"* [A](a.md)\n  * [B](b.md#x)\n    * [C](/c.md)\n* Plain\n* [A again](a.md)\n",
		"1. [One](one.md)\n2) [Two](two%20x.md)\n   - [Sub](sub.md)\n",
		"> * [Quoted](q.md)\n\n---\n\n* [Esc\\*aped](e.md)\n* `code` [L](l.md)\n",
		"## Group\n\n## \n\n* [](empty.md)\n* [../out](../../etc/passwd)\n",
		"\t* [Tab](t.md)\n\t\t* [Tab2](t2.md)\n",
		string(stairs(2000)),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		files := map[string][]byte{"SUMMARY.md": src, "README.md": []byte("# Home\n"), "a.md": []byte("---\ndescription: d\n---\n# A\n")}
		start := time.Now()
		tree, err := Read(files, "")
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("Read took %s for %d bytes", took, len(src))
		}
		if err != nil {
			if !errors.Is(err, ErrLayout) {
				t.Fatalf("Read() = %v, not a layout error", err)
			}
			return
		}
		pages := 0
		var check func(ps []Page, depth int)
		check = func(ps []Page, depth int) {
			if depth > MaxDepth+1 {
				t.Fatalf("pages nested %d deep", depth)
			}
			seen := map[string]bool{}
			for _, p := range ps {
				pages++
				if p.Slug == "" || seen[p.Slug] {
					t.Fatalf("sibling slug %q empty or repeated", p.Slug)
				}
				seen[p.Slug] = true
				if p.Path != "" && (strings.HasPrefix(p.Path, "../") || strings.HasPrefix(p.Path, "/")) {
					t.Fatalf("page path %q leaves the repository", p.Path)
				}
				check(p.Pages, depth+1)
			}
		}
		check(tree.Pages, 1)
		if pages > MaxPages+1 {
			t.Fatalf("%d pages", pages)
		}
	})
}

// BenchmarkSummary4MB reads issue 19's 4 MB nested-list SUMMARY.md (22 s
// and 507 MB here before it was bounded) and a staircase within the size
// bound, both refused before goldmark parses them.
func BenchmarkSummary4MB(b *testing.B) {
	for name, src := range map[string][]byte{"4MB": stairs(4 << 20), "1MiB": stairs(limits.SummaryBytes - 1000)} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := Read(map[string][]byte{"SUMMARY.md": src}, ""); err == nil {
					b.Fatal("accepted")
				}
			}
		})
	}
}

// TestSummaryLinkEntries: the entries of a SUMMARY.md that are links (an
// anchor of a page, a URL, a page listed already) are link pages, not
// documents: no page repeats the one an anchor is of or one listed
// before, none is an empty page named after a URL; an
// export of a changed tree writes them back as they were. The entries are
// GitbookIO/public-docs' documentation/SUMMARY.md.
func TestSummaryLinkEntries(t *testing.T) {
	t.Parallel()
	summary := "# Table of contents\n\n* [GitBook documentation](README.md)\n\n## Create content <a href=\"#creating\" id=\"creating\"></a>\n\n" +
		"* [Format content](create-content/formatting/README.md)\n  * [Inline content](create-content/formatting/inline.md)\n" +
		"* [Blocks](create-content/blocks/README.md)\n  * [Columns](create-content/blocks/columns.md)\n" +
		"  * [Buttons](create-content/formatting/inline.md#buttons)\n  * [Icons](create-content/formatting/inline.md#icons)\n" +
		"  * [Custom blocks](https://app.gitbook.com/s/2SyQSbIa1iYS7z6Dx5di/integrations/quickstart)\n" +
		"* [Reusable content](create-content/reusable-content.md)\n* [Inline formatting](create-content/formatting/inline.md)\n"
	files := map[string][]byte{"SUMMARY.md": []byte(summary), "README.md": []byte("# GitBook documentation\n")}
	for _, p := range []string{"create-content/formatting/README.md", "create-content/formatting/inline.md",
		"create-content/blocks/README.md", "create-content/blocks/columns.md", "create-content/reusable-content.md"} {
		files[p] = []byte("# Page\n\n## Buttons\n\n## Icons\n")
	}
	tree, err := Read(files, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(ps []Page, indent string)
	walk = func(ps []Page, indent string) {
		for _, p := range ps {
			if p.Kind == KindLink {
				got = append(got, indent+p.Title+" → "+p.Href)
			} else {
				got = append(got, indent+p.Title+" "+p.Path)
			}
			walk(p.Pages, indent+"  ")
		}
	}
	walk(tree.Pages, "")
	want := []string{"GitBook documentation README.md", "Create content ",
		"  Format content create-content/formatting/README.md", "    Inline content create-content/formatting/inline.md",
		"  Blocks create-content/blocks/README.md", "    Columns create-content/blocks/columns.md",
		"    Buttons → create-content/formatting/inline.md#buttons", "    Icons → create-content/formatting/inline.md#icons",
		"    Custom blocks → https://app.gitbook.com/s/2SyQSbIa1iYS7z6Dx5di/integrations/quickstart",
		"  Reusable content create-content/reusable-content.md",
		"  Inline formatting → create-content/formatting/inline.md"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("pages:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range tree.Pages[1].Pages[1].Pages[1:4] {
		if p.Kind != KindLink {
			t.Errorf("%s is a %s page, want a link", p.Title, p.Kind)
		}
	}
	// A changed tree (one page removed): SUMMARY.md is written again, with
	// the link entries as they were.
	changed := append([]Page(nil), tree.Pages...)
	changed[1].Pages = changed[1].Pages[:2]
	out, err := WriteOver(changed, nil, "", &Previous{Tree: tree, Text: files})
	if err != nil {
		t.Fatal(err)
	}
	if got := tree.Pages[1].Slug; got != "creating" {
		t.Errorf("the group's slug is %q, not its id", got)
	}
	for _, line := range []string{"## Create content <a href=\"#creating\" id=\"creating\"></a>\n", "  * [Buttons](create-content/formatting/inline.md#buttons)\n",
		"  * [Custom blocks](https://app.gitbook.com/s/2SyQSbIa1iYS7z6Dx5di/integrations/quickstart)\n"} {
		if !strings.Contains(string(out.Text["SUMMARY.md"]), line) {
			t.Errorf("SUMMARY.md written:\n%s\nwithout %q", out.Text["SUMMARY.md"], line)
		}
	}
}

// TestBrokenLinksReported: a page's references GitBook exported as
// broken ("/broken/pages/<id>", as in GitbookIO/public-docs) are listed in
// the import's problems, one line per page naming its first.
func TestBrokenLinksReported(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{
		"SUMMARY.md": []byte("* [Home](README.md)\n* [Guide](guide.md)\n"),
		"README.md":  []byte("# Home\n\nNothing lost here.\n"),
		"guide.md": []byte("# Guide\n\nSee [the old page](/broken/pages/Dx3hTq5l) and " +
			"<a href=\"/broken/spaces/abc\">a space</a>.\n"),
	}
	tree, err := Read(files, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"guide.md: 2 references to what GitBook lost (first: /broken/pages/Dx3hTq5l), shown as text"}
	if strings.Join(tree.Problems, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems %q, want %q", tree.Problems, want)
	}
}

// TestSummaryOpenAPIEntry: GitBook writes an OpenAPI reference's options
// as a fenced code block in a SUMMARY.md entry (GitbookIO/public-docs'
// developers/SUMMARY.md, 12 lines): it is read, not refused as a long
// paragraph, and its entry's page and the pages after it are kept. A
// paragraph as long is still refused.
func TestSummaryOpenAPIEntry(t *testing.T) {
	t.Parallel()
	summary := "# Table of contents\n\n## GitBook API\n\n* [Quickstart](gitbook-api/quickstart.md)\n* [API reference](gitbook-api/api-reference/README.md)\n" +
		"  * ```yaml\n    props:\n      models: false\n      downloadLink: true\n      grouping: by-operation\n    type: builtin:openapi\n" +
		"    dependencies:\n      spec:\n        ref:\n          kind: openapi\n          spec: gitbook\n    ```\n* [Authentication](gitbook-api/authentication.md)\n"
	files := map[string][]byte{"SUMMARY.md": []byte(summary), "README.md": []byte("# Home\n")}
	for _, p := range []string{"gitbook-api/quickstart.md", "gitbook-api/api-reference/README.md", "gitbook-api/authentication.md"} {
		files[p] = []byte("# Page\n")
	}
	tree, err := Read(files, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	var walk func(ps []Page)
	walk = func(ps []Page) {
		for _, p := range ps {
			got = append(got, p.Path)
			walk(p.Pages)
		}
	}
	walk(tree.Pages)
	if want := "README.md||gitbook-api/quickstart.md|gitbook-api/api-reference/README.md|gitbook-api/authentication.md"; strings.Join(got, "|") != want {
		t.Errorf("pages %q, want %q", strings.Join(got, "|"), want)
	}
	files["SUMMARY.md"] = []byte("# Table of contents\n\n* [Home](README.md)\n\n" + strings.Repeat("words\n", 12))
	if _, err := Read(files, ""); err == nil || !strings.Contains(err.Error(), "paragraph") {
		t.Errorf("a 12-line paragraph read: %v", err)
	}
}
