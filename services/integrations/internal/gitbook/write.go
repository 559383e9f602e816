package gitbook

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Wanted reports whether a repository file matters to the layout under
// projectDir: markdown, .gitbook.yaml and files under .gitbook/assets/.
// Other files are never read.
func Wanted(p, projectDir string) bool {
	if projectDir != "" && !strings.HasPrefix(p, projectDir+"/") {
		return false
	}
	return isMarkdown(p) || path.Base(p) == ".gitbook.yaml" ||
		strings.HasPrefix(p, AssetsDir+"/") || strings.Contains(p, "/"+AssetsDir+"/")
}

// Output is a space written in the layout: text files by path, and the
// path of each file of the space by its name.
type Output struct {
	Text  map[string][]byte
	Files map[string]string
}

// Write lays out pages and the names of files under projectDir: README.md
// for the first top-level page, <slug>.md for pages, <slug>/README.md for
// pages with children (which go under <slug>/), group pages under the
// group's slug, SUMMARY.md listing them all, and the files under
// .gitbook/assets/.
func Write(pages []Page, files []string, projectDir string) (Output, error) {
	dir, ok := Clean(projectDir)
	if !ok {
		return Output{}, layoutErr("repoProjectDirectory leaves the repository")
	}
	out := Output{Text: map[string][]byte{}, Files: map[string]string{}}
	var sum strings.Builder
	sum.WriteString("# Table of contents\n\n")
	first := true
	inGroup := false
	taken := map[string]bool{}
	var write func(p Page, folder string, depth int)
	write = func(p Page, folder string, depth int) {
		var file string
		switch {
		case first && depth == 0:
			file = "README.md"
		case len(p.Pages) > 0:
			file = uniquePath(taken, join(folder, p.Slug), "/README.md")
		default:
			file = uniquePath(taken, join(folder, p.Slug), ".md")
		}
		first = false
		taken[file] = true
		fmt.Fprintf(&sum, "%s* [%s](%s)\n", strings.Repeat("  ", depth), escapeTitle(p.Title), escapeLink(file))
		out.Text[join(dir, file)] = pageFile(p)
		sub := strings.TrimSuffix(strings.TrimSuffix(file, "/README.md"), ".md")
		if file == "README.md" {
			sub = folder
		}
		for _, c := range p.Pages {
			write(c, sub, depth+1)
		}
	}
	for _, p := range pages {
		if p.Kind == KindGroup {
			if !inGroup && !first {
				sum.WriteString("\n")
			}
			fmt.Fprintf(&sum, "\n## %s\n\n", oneLine(p.Title))
			inGroup = true
			folder := uniquePath(taken, p.Slug, "")
			taken[folder] = true
			for _, c := range p.Pages {
				write(c, folder, 0)
			}
			continue
		}
		write(p, "", 0)
	}
	out.Text[join(dir, "SUMMARY.md")] = []byte(sum.String())
	names := append([]string(nil), files...)
	sort.Strings(names)
	for _, n := range names {
		out.Files[n] = join(dir, AssetsDir+"/"+n)
	}
	return out, nil
}

func uniquePath(taken map[string]bool, base, suffix string) string {
	p := base + suffix
	for i := 2; taken[p]; i++ {
		p = fmt.Sprintf("%s-%d%s", base, i, suffix)
	}
	return p
}

// pageFile is a page's file: front matter when it has any, its title as a
// first-level heading, its markdown.
func pageFile(p Page) []byte {
	var b strings.Builder
	fm := map[string]any{}
	if p.Description != "" {
		fm["description"] = p.Description
	}
	if p.Icon != "" {
		fm["icon"] = p.Icon
	}
	if p.Emoji != "" {
		fm["emoji"] = p.Emoji
	}
	if p.Hidden {
		fm["hidden"] = true
	}
	if len(p.Layout) > 0 {
		fm["layout"] = p.Layout
	}
	if len(fm) > 0 {
		y, _ := yaml.Marshal(fm)
		b.WriteString("---\n")
		b.Write(y)
		b.WriteString("---\n\n")
	}
	b.WriteString("# " + oneLine(p.Title) + "\n\n")
	b.WriteString(p.Markdown)
	if p.Markdown != "" && !strings.HasSuffix(p.Markdown, "\n") {
		b.WriteString("\n")
	}
	return []byte(b.String())
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func escapeTitle(s string) string {
	return strings.NewReplacer(`\`, `\\`, "[", `\[`, "]", `\]`).Replace(oneLine(s))
}

func escapeLink(p string) string {
	return strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(p)
}
