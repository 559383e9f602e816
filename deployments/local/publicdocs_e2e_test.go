package local

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
)

// The acceptance check of GitBook's own docs: a clone of
// GitbookIO/public-docs named by PUBLIC_DOCS_GIT (any commit; measured
// at 3d5c46e) is synced through Git sync, one space per directory of its
// docs.yaml (PUBLIC_DOCS_SPACES, comma separated, picks some), published
// on one site and read as a reader. Each link and image of each page's
// source is looked up in the page as published:
//
//   - a link to a page or file the repository holds must be a link to
//     that page's URL (which answers 200) or show that file;
//   - a link the source itself breaks (a missing file, GitBook's
//     /broken/ references, a page SUMMARY.md leaves out) is listed by
//     cause and is not a failure;
//   - no block source ({% … %}) or icon shortcode (:name:) shows outside
//     code, and code holding Liquid-like {% if %} keeps it.
//
// The figures are logged; the test fails on anything our rewriting breaks.
func TestPublicDocsPublished(t *testing.T) {
	src := os.Getenv("PUBLIC_DOCS_GIT")
	if src == "" {
		t.Skip("PUBLIC_DOCS_GIT names no clone of GitbookIO/public-docs")
	}
	dirs := []string{"documentation", "developers", "guides", "changelog", "policies"}
	if s := os.Getenv("PUBLIC_DOCS_SPACES"); s != "" {
		dirs = strings.Split(s, ",")
	}
	srv := gittest.NewServer(t, "", "")
	bare := filepath.Join(srv.Root, "docs.git")
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", src, bare).CombinedOutput(); err != nil {
		t.Fatalf("clone %s: %v: %s", src, err, out)
	}
	// One commit of HEAD's tree, what the import reads, with no history
	// to pack; a snapshot that lacks some files' bytes (a mirror keeping
	// only small ones) leaves them out, and links to them are listed.
	missing := missingBlobs(t, bare)
	tree := "HEAD^{tree}"
	if len(missing) > 0 {
		index := filepath.Join(t.TempDir(), "index")
		gitEnv(t, bare, index, "read-tree", "HEAD")
		gitEnv(t, bare, index, append([]string{"update-index", "--force-remove", "--"}, missing...)...)
		tree = gitEnv(t, bare, index, "write-tree")
	}
	commit := gitOut(t, bare, "-c", "user.name=test", "-c", "user.email=test@example.com", "commit-tree", tree, "-m", "public-docs")
	ref := "refs/heads/docs"
	gitOut(t, bare, "update-ref", ref, commit)
	repo := readRepo(t, bare)
	repo.missing = map[string]bool{}
	for _, m := range missing {
		delete(repo.names, m)
		repo.missing[m] = true
	}
	t.Logf("repository: %d files, %d markdown, %d whose bytes the clone lacks", len(repo.names), len(repo.markdown), len(missing))

	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	org := p.Credentials.DemoOrgID
	spaces := make([]string, len(dirs))
	for i, d := range dirs {
		spaces[i] = newSpace(t, admin, org, d)
		started := time.Now()
		admin.op("importGitRepository", "POST", "/v1/spaces/"+spaces[i]+"/git/import", map[string]any{
			"url": srv.RepoURL("docs"), "ref": ref, "repoProjectDirectory": d})
		if st, e := opState(gitDoneWithin(t, admin, spaces[i], 10*time.Minute)); st != "success" {
			t.Fatalf("import of %s ended %s: %s", d, st, e)
		}
		t.Logf("import of %s: %v", d, time.Since(started).Round(time.Millisecond))
	}
	// The GitBook spaces the directories were synced from, as the links
	// between them name them (documentation/README.md links developers'
	// gitbook-api/api-reference through 2SyQSbIa1iYS7z6Dx5di; guides and
	// the changelog link documentation's pages through NkEGS7hzeqa35sMXQZ4X,
	// documentation links guides' api-documentation/ through
	// LBGJKQic7BQYBXmVSjy0).
	gitbookIDs := map[string]string{"documentation": "NkEGS7hzeqa35sMXQZ4X", "developers": "2SyQSbIa1iYS7z6Dx5di", "guides": "LBGJKQic7BQYBXmVSjy0"}
	spaceOf := map[string]string{} // GitBook space id → directory
	for i, d := range dirs {
		if id, ok := gitbookIDs[d]; ok {
			admin.op("updateSpaceById", "PATCH", "/v1/spaces/"+spaces[i], map[string]any{"gitbookSpaceId": id})
			spaceOf[id] = d
		}
	}
	site := createSite(t, admin, org, "GitBook Documentation", spaces[0])
	for _, sp := range spaces[1:] {
		admin.status(201, "POST", site+"/site-spaces", map[string]any{"spaceId": sp})
	}
	admin.schema("Site", 200, "POST", site+"/publish", nil)
	published := map[string]string{} // space id → its site space's published URL
	for _, ss := range items(t, admin.status(200, "GET", site+"/site-spaces", nil)) {
		sp := str(ss, "space")
		if sp == "" {
			sp = str(ss, "space", "id")
		}
		published[sp] = str(ss, "urls", "published")
	}

	// The pages of each space: their published URL and the repository
	// file whose markdown they hold.
	pc := &pdCheck{spaceOf: spaceOf, base: map[string]string{}, t: t, p: p, rd: newReader(t), repo: repo, pageURL: map[string]string{}, fileName: map[string]string{}, seen: map[string]int{}, causes: map[string][]string{}}
	type pg struct{ file, url string }
	var pages []pg
	for i, d := range dirs {
		byBody := map[string]string{}
		for f, b := range repo.markdown {
			if !strings.HasPrefix(f, d+"/") {
				continue
			}
			k := pdBody(string(b))
			if _, twice := byBody[k]; twice {
				f = "" // two files hold it: neither is checked
			}
			byBody[k] = f
		}
		base := strings.TrimSuffix(published[spaces[i]], "/")
		if base == "" {
			t.Fatalf("space %s (%s) has no published URL: %v", spaces[i], d, published)
		}
		pc.base[d] = base
		docs, first := pageMarkdown(t, admin, spaces[i])
		unmatched := 0
		for path, md := range docs {
			f, ok := byBody[pdBody(md)]
			if !ok || f == "" {
				unmatched++
				continue
			}
			u := base
			if path != first { // the first page is the site space's URL
				u += "/" + path
			}
			pc.pageURL[f] = u
			pages = append(pages, pg{f, u})
		}
		for _, fl := range listAll(t, admin, "/v1/spaces/"+spaces[i]+"/content/files") {
			pc.fileName[str(fl, "id")] = d + "\x00" + str(fl, "name")
		}
		if unmatched > 0 {
			t.Logf("%s: %d of %d pages whose markdown no one file holds (not checked)", d, unmatched, len(docs))
		}
		if unmatched*10 > len(docs) {
			t.Errorf("%s: %d of %d pages not matched with their file", d, unmatched, len(docs))
		}
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].file < pages[j].file })
	for _, x := range pages {
		pc.page(x.file, x.url)
	}
	pc.report(dirs)
}

// pdCheck checks pages against their source and keeps the figures.
type pdCheck struct {
	t        *testing.T
	p        *Platform
	rd       *readerClient
	repo     pdRepo
	pageURL  map[string]string // repository file → page URL
	spaceOf  map[string]string // GitBook space id → directory
	base     map[string]string // directory → its site space's URL
	fileName map[string]string // file id → space dir NUL file name
	seen     map[string]int    // URL → status
	causes   map[string][]string
	links    int
	images   int
	appLinks int
	// appResolved counts app.gitbook.com links published as links to
	// their page on the site.
	appResolved int
	liquid      int
}

func (c *pdCheck) add(cause, what string) { c.causes[cause] = append(c.causes[cause], what) }

func (c *pdCheck) get(u string) int {
	if st, ok := c.seen[u]; ok {
		return st
	}
	st := c.rd.get(u, "").Status
	c.seen[u] = st
	return st
}

var (
	pdFence       = regexp.MustCompile("(?ms)^ *(```|~~~).*?^ *(```|~~~) *$")
	pdCodeSpan    = regexp.MustCompile("`[^`\n]+`")
	pdPre         = regexp.MustCompile(`(?s)<pre[ >].*?</pre>`)
	pdMdLink      = regexp.MustCompile(`\]\(<([^>]+)>|\]\(([^)\s]+)`)
	pdHTMLLink    = regexp.MustCompile(`\b(?:href|src|srcset|url)="([^"]+)"`)
	pdLiquid      = regexp.MustCompile(`\{%-? *if `)
	pdImageExt    = map[string]bool{".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".svg": true, ".webp": true, ".avif": true}
	pdDescription = regexp.MustCompile(`(?s)<p class="description">.*?</p>`)
	pdFileID      = regexp.MustCompile(`/~files/[^/"]+/[^/"]+/([^/"?#]+)`)
)

// page checks the page published at u from the repository file f.
func (c *pdCheck) page(f, u string) {
	t := c.t
	st, body := c.rd.get(u, ""), ""
	if st.Status != 200 {
		c.add("ours: page does not answer", fmt.Sprintf("%s %s = %d", f, u, st.Status))
		return
	}
	body = string(st.Body)
	article := articleRe.FindString(body)
	// The description is the front matter's text, shown as written.
	outside := pdDescription.ReplaceAllString(codeOrPre.ReplaceAllString(article, ""), "")
	if strings.Contains(outside, "{%") {
		i := strings.Index(outside, "{%")
		c.add("shown: block source", fmt.Sprintf("%s: %q", f, outside[i:min(len(outside), i+60)]))
	}
	if m := shortcode.FindString(outside); m != "" {
		c.add("shown: icon shortcode", fmt.Sprintf("%s: %q", f, m))
	}
	hrefs := map[string]bool{}
	for _, m := range hrefRe.FindAllStringSubmatch(article, -1) {
		h := strings.ReplaceAll(m[1], "&amp;", "&")
		hrefs[strings.SplitN(h, "#", 2)[0]] = true
		if strings.HasPrefix(h, "https://app.gitbook.com/s/") {
			c.appLinks++
		}
		if strings.HasPrefix(h, "/") {
			if st := c.get(c.p.URL + strings.SplitN(h, "#", 2)[0]); st != 200 {
				c.add("ours: a link that does not answer 200", fmt.Sprintf("%s: %s = %d", f, h, st))
			}
		}
	}
	shown := map[string]bool{} // names of files the page shows or links
	for _, m := range pdFileID.FindAllStringSubmatch(article, -1) {
		if n, ok := c.fileName[m[1]]; ok {
			shown[n] = true
		}
	}
	for _, m := range imgSrcRe.FindAllStringSubmatch(article, -1) {
		src := strings.ReplaceAll(strings.Fields(m[1])[0], "&amp;", "&")
		if strings.HasPrefix(src, "/") {
			if st := c.get(c.p.URL + src); st != 200 {
				c.add("ours: an image that does not answer 200", fmt.Sprintf("%s: %s = %d", f, src, st))
			}
		}
	}

	md := string(c.repo.markdown[f])
	if _, rest, ok := strings.Cut(md, "---\n"); ok && strings.HasPrefix(md, "---\n") {
		if _, after, ok := strings.Cut(rest, "\n---\n"); ok {
			md = after
		}
	}
	for _, block := range pdFence.FindAllString(md, -1) {
		if pdLiquid.MatchString(block) {
			c.liquid++
			if !strings.Contains(strings.Join(codeOrPre.FindAllString(article, -1), ""), "{% if ") {
				c.add("ours: {% if %} in code not shown", f)
			}
		}
	}
	text := pdCodeSpan.ReplaceAllString(pdPre.ReplaceAllString(pdFence.ReplaceAllString(md, ""), ""), "")
	space, _, _ := strings.Cut(f, "/")
	var dests []string
	for _, m := range pdMdLink.FindAllStringSubmatch(text, -1) {
		dests = append(dests, m[1]+m[2])
	}
	for _, m := range pdHTMLLink.FindAllStringSubmatch(text, -1) {
		if !strings.HasPrefix(m[0], "srcset") || !strings.Contains(m[1], ",") {
			// One candidate: GitBook writes the file's name unescaped.
			dests = append(dests, m[1])
			continue
		}
		for _, part := range strings.Split(m[1], ",") {
			if fs := strings.Fields(part); len(fs) > 0 {
				dests = append(dests, fs[0])
			}
		}
	}
	for _, d := range dests {
		d = strings.ReplaceAll(d, "&amp;", "&")
		uu, err := url.Parse(strings.ReplaceAll(d, " ", "%20"))
		switch {
		case err != nil:
			c.add("source: unparsable", f+": "+d)
			continue
		case strings.HasPrefix(d, "/broken/"):
			c.add("source: GitBook's /broken/ reference", f+": "+d)
			continue
		case strings.EqualFold(uu.Host, "app.gitbook.com") && strings.HasPrefix(uu.Path, "/s/"):
			c.appLink(f, d, uu, hrefs)
			continue
		case uu.Scheme != "" || uu.Host != "" || strings.HasPrefix(d, "#") || strings.HasPrefix(d, "/"):
			continue
		}
		p, _ := url.PathUnescape(uu.EscapedPath())
		target := path.Join(path.Dir(f), p)
		ext := strings.ToLower(path.Ext(target))
		if ext != "" && ext != ".md" {
			if c.repo.missing[target] {
				c.add("clone: a file whose bytes the clone lacks (not checked)", f+": "+d)
				continue
			}
			if !c.repo.names[target] {
				c.add("source: a file the repository lacks", f+": "+d)
				continue
			}
			c.images++
			if !strings.HasPrefix(target, space+"/") {
				c.add("source: a file of another space", f+": "+d)
				continue
			}
			if !shown[space+"\x00"+path.Base(target)] {
				what := "a file"
				if pdImageExt[ext] {
					what = "an image"
				}
				c.add("ours: "+what+" not shown", f+": "+d)
			}
			continue
		}
		file := target
		if ext == "" {
			file = path.Join(target, "README.md")
		}
		if !c.repo.names[file] {
			c.add("source: a page the repository lacks", f+": "+d)
			continue
		}
		c.links++
		want, ok := c.pageURL[file]
		if !ok {
			c.add("source: a page SUMMARY.md leaves out", f+": "+d)
			continue
		}
		if !hrefs[strings.TrimPrefix(want, c.p.URL)] && !hrefs[want] {
			c.add("ours: a link not to its page", fmt.Sprintf("%s: %s (want %s)", f, d, strings.TrimPrefix(want, c.p.URL)))
		}
	}
	_ = t
}

// appLink checks a link into a GitBook space: to the page of the space
// synced from it when the site has that space, else external.
func (c *pdCheck) appLink(f, d string, u *url.URL, hrefs map[string]bool) {
	id, rest, _ := strings.Cut(strings.TrimPrefix(u.Path, "/s/"), "/")
	dir, ok := c.spaceOf[id]
	if !ok || c.base[dir] == "" {
		c.add("external: app.gitbook.com link to a space not on the site", f+": "+d)
		return
	}
	want := c.base[dir]
	if rest = strings.Trim(rest, "/"); rest != "" {
		want += "/" + rest
	}
	if hrefs[strings.TrimPrefix(want, c.p.URL)] {
		c.appResolved++
		return
	}
	if c.get(want) != 200 {
		c.add("source: app.gitbook.com link to a page the import lacks (GitBook's pages generated from an OpenAPI spec among them)", f+": "+d)
		return
	}
	c.add("ours: app.gitbook.com link not to its page", fmt.Sprintf("%s: %s (want %s)", f, d, strings.TrimPrefix(want, c.p.URL)))
}

func (c *pdCheck) report(dirs []string) {
	t := c.t
	t.Logf("spaces %v: %d pages checked, %d links to pages, %d links to files (%d app.gitbook.com/s links published)", dirs, len(c.pageURL), c.links, c.images, c.appLinks)
	t.Logf("code blocks holding {%% if %%}: %d", c.liquid)
	t.Logf("app.gitbook.com/s links to a page of the site: %d", c.appResolved)
	var names []string
	for k := range c.causes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		t.Logf("%s: %d", k, len(c.causes[k]))
		for i, w := range c.causes[k] {
			if i == 8 && os.Getenv("PUBLIC_DOCS_ALL") == "" {
				t.Logf("    … %d more", len(c.causes[k])-i)
				break
			}
			t.Logf("    %s", w)
		}
		if strings.HasPrefix(k, "ours:") || strings.HasPrefix(k, "shown:") {
			t.Errorf("%s: %d", k, len(c.causes[k]))
		}
	}
}

// pdBody is markdown without its front matter, trimmed: what matches a
// page's markdown with its file's.
func pdBody(md string) string {
	md = strings.ReplaceAll(md, "\r\n", "\n")
	if strings.HasPrefix(md, "---\n") {
		if _, after, ok := strings.Cut(md[4:], "\n---\n"); ok {
			md = after
		}
	}
	md = strings.TrimLeft(md, "\n")
	if line, after, _ := strings.Cut(md, "\n"); pdTitle.MatchString(line) {
		md = after // the title, which import keeps apart
	}
	return strings.TrimSpace(md)
}

var pdTitle = regexp.MustCompile(`^#[ \t]+(.+?)[ \t#]*$`)

// pdRepo is a repository's file names and its markdown files.
type pdRepo struct {
	names    map[string]bool
	markdown map[string][]byte
	missing  map[string]bool
}

// readRepo reads the names of the files of HEAD of the repository at dir
// and the bytes of its markdown files.
func readRepo(t *testing.T, dir string) pdRepo {
	t.Helper()
	r := pdRepo{names: map[string]bool{}, markdown: map[string][]byte{}}
	var md []string
	for _, n := range strings.Split(gitOut(t, dir, "-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", "HEAD"), "\n") {
		r.names[n] = true
		if strings.HasSuffix(n, ".md") {
			md = append(md, n)
		}
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader("HEAD:" + strings.Join(md, "\nHEAD:") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cat-file: %v", err)
	}
	br := bufio.NewReader(bytes.NewReader(out))
	for _, n := range md {
		head, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		fs := strings.Fields(head)
		size, err := strconv.Atoi(fs[len(fs)-1])
		if err != nil {
			t.Fatalf("cat-file %s: %q", n, head)
		}
		b := make([]byte, size+1)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatalf("cat-file %s: %v", n, err)
		}
		r.markdown[n] = b[:size]
	}
	return r
}

// missingBlobs are the files of HEAD whose bytes the repository at dir
// lacks.
func missingBlobs(t *testing.T, dir string) []string {
	t.Helper()
	var paths, ids []string
	for _, l := range strings.Split(gitOut(t, dir, "-c", "core.quotePath=false", "ls-tree", "-r", "HEAD"), "\n") {
		meta, name, ok := strings.Cut(l, "\t")
		if fs := strings.Fields(meta); ok && len(fs) == 3 && fs[1] == "blob" {
			paths, ids = append(paths, name), append(ids, fs[2])
		}
	}
	cmd := exec.Command("git", "-C", dir, "cat-file", "--batch-check")
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("cat-file --batch-check: %v", err)
	}
	var missing []string
	for i, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.HasSuffix(l, " missing") && i < len(paths) {
			missing = append(missing, paths[i])
		}
	}
	return missing
}

// gitEnv runs git in dir with the index file index.
func gitEnv(t *testing.T, dir, index string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_INDEX_FILE="+index, "GIT_WORK_TREE="+filepath.Dir(index))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v: %s", args[:1], err, out)
	}
	return strings.TrimSpace(string(out))
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return strings.TrimSpace(string(out))
}

// pageMarkdown is the markdown of a space's document pages by path, and
// the path of the first.
func pageMarkdown(t *testing.T, c client, space string) (out map[string]string, first string) {
	t.Helper()
	out = map[string]string{}
	var walk func([]any)
	walk = func(ps []any) {
		for _, x := range ps {
			pg, _ := x.(map[string]any)
			if md, ok := pg["markdown"].(string); ok && pg["type"] == "document" {
				if len(out) == 0 {
					first = str(pg, "path")
				}
				out[str(pg, "path")] = md
			}
			if kids, ok := pg["pages"].([]any); ok {
				walk(kids)
			}
		}
	}
	m := c.status(200, "GET", "/v1/spaces/"+space+"/content/pages", nil).json(t)
	ps, _ := m["pages"].([]any)
	walk(ps)
	return out, first
}

// listAll reads every item of a paged list.
func listAll(t *testing.T, c client, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	next := ""
	for range 1000 {
		q := path
		if next != "" {
			q += "?page=" + url.QueryEscape(next)
		}
		m := c.status(200, "GET", q, nil).json(t)
		for _, x := range m["items"].([]any) {
			out = append(out, x.(map[string]any))
		}
		if next = str(m, "next", "page"); next == "" {
			return out
		}
	}
	t.Fatalf("%s: more than 1000 pages", path)
	return nil
}
