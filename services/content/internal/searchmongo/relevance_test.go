package searchmongo_test

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/slug"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/search"
	"github.com/google/go-cmp/cmp"
)

// The floor of TestRelevancePublicDocs: a change of the ranking that
// scores below it on the judged queries fails. The goal was 0.70 and 0.80;
// the floor is what the ranking reached (0.900 and 0.953, see
// deployments/docs/benchmarks/search.md), so that one query lost fails.
const (
	minTop1 = 0.89
	minMRR  = 0.95
)

// judged is testdata/publicdocs/queries.json: queries of GitBook's docs,
// each with the page that should come first.
type judged struct {
	Queries []struct {
		Query    string   `json:"query"`
		Expected string   `json:"expected"`
		Also     []string `json:"also"`
	} `json:"queries"`
}

// TestRelevancePublicDocs indexes GitBook's own documentation
// (testdata/publicdocs, see its README.md) as a Git import makes it a
// space, asks the judged queries of queries.json, and measures top-1 (the
// share of queries whose first page is the expected one) and MRR (the
// mean of 1/rank of the first acceptable page, 0 when it is not among the
// ten pages a space shows). Run it with -v to see the figures and misses.
func TestRelevancePublicDocs(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	pages := publicDocs(t, "testdata/publicdocs/documentation")
	if err := svc.IndexRevision(ctx, "gitbook", "docs", pages); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/publicdocs/queries.json")
	if err != nil {
		t.Fatal(err)
	}
	var set judged
	if err := json.Unmarshal(b, &set); err != nil {
		t.Fatal(err)
	}
	var top1, mrr float64
	for _, q := range set.Queries {
		res := mustSearch(t, svc, "gitbook", []string{"docs"}, q.Query)
		var got []string
		if len(res.Items) > 0 {
			for _, p := range res.Items[0].Pages {
				got = append(got, p.ID+".md")
				for _, sec := range p.Sections {
					if strings.Contains(sec.Body, "{%") || strings.Contains(sec.Body, "&#") {
						t.Errorf("%q: snippet of %s shows markup: %q", q.Query, sec.Path, sec.Body)
					}
				}
			}
		}
		ok := map[string]bool{q.Expected: true}
		for _, a := range q.Also {
			ok[a] = true
		}
		rank := 0
		for i, id := range got {
			if ok[id] {
				rank = i + 1
				break
			}
		}
		if len(got) > 0 && got[0] == q.Expected {
			top1++
		}
		if rank > 0 {
			mrr += 1 / float64(rank)
		}
		if len(got) == 0 || got[0] != q.Expected {
			t.Logf("miss %q: want %s, acceptable at rank %d, got %s", q.Query, q.Expected, rank, strings.Join(first3(got), ", "))
		}
	}
	n := float64(len(set.Queries))
	top1, mrr = top1/n, mrr/n
	t.Logf("%d queries over %d pages: top-1 %.3f, MRR %.3f", len(set.Queries), countPages(pages), top1, mrr)
	if top1 < minTop1 || mrr < minMRR {
		t.Errorf("top-1 %.3f, MRR %.3f: want at least %.2f and %.2f", top1, mrr, minTop1, minMRR)
	}
}

func first3(ids []string) []string { return ids[:min(3, len(ids))] }

func countPages(ps []revision.Page) int {
	n := 0
	for _, p := range ps {
		n += 1 + countPages(p.Pages)
	}
	return n
}

var (
	summaryGroup = regexp.MustCompile(`^##\s+(.*?)\s*(<a\s.*)?$`)
	summaryItem  = regexp.MustCompile(`^(\s*)\*\s+\[(.+?)\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
)

// publicDocs reads the pages of a GitBook repository's docs root as a Git
// import does (services/integrations/internal/gitbook): SUMMARY.md's
// level-2 headings are groups and its nested lists nested pages titled by
// their links, its links to anchors and URLs are no pages, and each page
// file gives its front matter's description and hidden, and its markdown
// after the first-level heading. A page's id is its file without ".md"
// (the store keeps ids as keys, which have no dots).
func publicDocs(t *testing.T, root string) []revision.Page {
	t.Helper()
	b, err := os.ReadFile(path.Join(root, "SUMMARY.md"))
	if err != nil {
		t.Fatal(err)
	}
	var top []revision.Page
	var stack []*[]revision.Page // the children lists of each open depth
	for line := range strings.Lines(string(b)) {
		if m := summaryGroup.FindStringSubmatch(line); m != nil {
			top = append(top, revision.Page{ID: "group:" + slug.Make(m[1]), Kind: revision.KindGroup, Title: m[1], Slug: slug.Make(m[1])})
			stack = []*[]revision.Page{&top[len(top)-1].Pages}
			continue
		}
		m := summaryItem.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if strings.Contains(m[3], "#") || strings.Contains(m[3], "://") {
			continue // a link of the table of contents, not a page
		}
		depth := len(m[1]) / 2
		if depth >= len(stack) {
			stack = append(stack, &top) // an item before any group
			depth = len(stack) - 1
		}
		stack = stack[:depth+1]
		list := stack[depth]
		*list = append(*list, pageFile(t, root, m[3], m[2]))
		stack = append(stack, &(*list)[len(*list)-1].Pages)
	}
	return top
}

var h1 = regexp.MustCompile(`^#[ \t]+(.+?)[ \t#]*$`)

// pageFile reads the page of file, as gitbook.Read does.
func pageFile(t *testing.T, root, file, title string) revision.Page {
	t.Helper()
	b, err := os.ReadFile(path.Join(root, file))
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimSuffix(path.Base(file), ".md")
	if base == "README" {
		base = path.Base(path.Dir(file))
		if base == "." {
			base = title
		}
	}
	p := revision.Page{ID: strings.TrimSuffix(file, ".md"), Kind: revision.KindDocument, Title: title, Slug: slug.Make(base)}
	md := string(b)
	if rest, ok := strings.CutPrefix(md, "---\n"); ok {
		if fm, body, ok := strings.Cut(rest, "\n---\n"); ok {
			p.Hidden = strings.Contains("\n"+fm+"\n", "\nhidden: true\n")
			p.Description = frontDescription(fm)
			md = body
		}
	}
	md = strings.TrimLeft(md, "\n")
	if line, after, _ := strings.Cut(md, "\n"); h1.MatchString(line) {
		md = strings.TrimLeft(after, "\n")
	}
	p.Markdown = md
	return p
}

// frontDescription is the description of front matter, on its line or
// folded over the indented lines after "description: >-".
func frontDescription(fm string) string {
	var out []string
	in := false
	for line := range strings.Lines(fm) {
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "description:"):
			v := strings.TrimSpace(strings.TrimPrefix(line, "description:"))
			if v != ">-" && v != ">" && v != "|" {
				return strings.Trim(v, `"'`)
			}
			in = true
		case in && strings.HasPrefix(line, " "):
			out = append(out, strings.TrimSpace(line))
		default:
			in = false
		}
	}
	return strings.Join(out, " ")
}

// pageIDs are the ids of a result's pages, in rank order.
func pageIDs(res search.Result) []string {
	var out []string
	for _, sp := range res.Items {
		for _, p := range sp.Pages {
			out = append(out, p.ID)
		}
	}
	return out
}

func TestRankingRules(t *testing.T) {
	ctx := context.Background()
	svc, _ := newService(t)
	long := strings.Repeat("Webhooks send events. ", 40)
	hidden := doc("hid", "Webhooks reference", "hid", "Webhooks fire on events.\n")
	hidden.Hidden = true
	pages := []revision.Page{
		doc("guide", "Guide", "guide", "## Webhooks\n\n"+long+"\n## Webhooks again\n\n"+long+"\n## More webhooks\n\n"+long),
		doc("hooks", "Webhooks", "hooks", "Send events to your endpoint.\n"),
		doc("inrow", "Branch merge rules", "inrow", "Set them per space; they fire on a merge.\n"),
		doc("apart", "Merge branch rules", "apart", "A merge needs a review; rules fire.\n"),
		doc("zserver", "Hosting", "zserver", "Run your server.\n"),
		doc("adomain", "Custom domain of a site section", "adomain", "Set a custom domain.\n"),
		doc("domain", "Custom domain", "domain", "Point your DNS at the site.\n"),
		doc("parent", "Reference", "parent", "Everything else.\n", hidden),
		doc("visible", "Events", "visible", "Webhooks fire on events.\n"),
	}
	if err := svc.IndexRevision(ctx, "acme", "s1", pages); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, query string
		want        []string // the first pages, in order
	}{
		{"a title outranks a long page of the word", "webhooks", []string{"hooks"}},
		{"the words of a title in a row outrank them apart", "merge rules", []string{"inrow", "apart"}},
		{"a rare word outweighs a common one", "fire server", []string{"zserver"}},
		{"a title that is the query outranks titles holding it", "custom domain", []string{"domain", "adomain"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := pageIDs(mustSearch(t, svc, "acme", []string{"s1"}, tc.query))
			if len(got) < len(tc.want) || !cmp.Equal(got[:len(tc.want)], tc.want) {
				t.Fatalf("%q: pages %v, want first %v", tc.query, got, tc.want)
			}
		})
	}
	t.Run("a hidden page ranks below the visible ones", func(t *testing.T) {
		got := pageIDs(mustSearch(t, svc, "acme", []string{"s1"}, "events"))
		if len(got) != 4 || got[0] != "visible" || got[3] != "hid" {
			t.Fatalf("pages %v, want visible first and hid last of 4", got)
		}
	})
}
