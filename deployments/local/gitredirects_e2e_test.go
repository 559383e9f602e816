package local

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/waittest"
	"github.com/google/go-cmp/cmp"
)

// redirectsConfig is the .gitbook.yaml of redirectFiles: GitBook's
// example's redirects, one to the first page, one whose old path is a
// page's own path, one to a file that is not there.
const redirectsConfig = "root: ./docs/\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\n" +
	"# Pages that moved.\nredirects:\n  previous/page: new-folder/page.md\n  help: support.md\n" +
	"  start: ./README.md\n  support: README.md\n  broken: nowhere.md\n"

// redirectFiles is a GitBook repository whose .gitbook.yaml has redirects.
func redirectFiles() map[string][]byte {
	return map[string][]byte{
		".gitbook.yaml": []byte(redirectsConfig),
		"docs/SUMMARY.md": []byte("# Table of contents\n\n* [Home](README.md)\n* [Support](support.md)\n" +
			"* [New folder](new-folder/README.md)\n  * [The page](new-folder/page.md)\n"),
		"docs/README.md":            []byte("# Home\n\nThe home of the moved docs.\n"),
		"docs/support.md":           []byte("# Support\n\nWrite to the support desk.\n"),
		"docs/new-folder/README.md": []byte("# New folder\n\nWhat moved here.\n"),
		"docs/new-folder/page.md":   []byte("# The page\n\nThe page that moved from previous/page.\n"),
	}
}

// TestGitBookRedirects: a repository's .gitbook.yaml redirects, imported
// through Git sync and published, are followed through the gateway: an old
// URL answers a 308 to its page's URL on the site, which shows the page;
// a redirect to a file that is not there is left out (a 404) and the
// import reports it; a page at a redirect's old path wins. Exported back,
// the repository is the same byte for byte (.gitbook.yaml included); a
// later import of a .gitbook.yaml without a redirect removes it.
func TestGitBookRedirects(t *testing.T) {
	p, logs := startPlatformLogged(t, "warn", nil)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	srv := gittest.NewServer(t, "", "")
	srv.NewRepo(t, "moved", "main", redirectFiles())
	original := srv.Files(t, "moved", "refs/heads/main")
	space := newSpace(t, admin, p.Credentials.DemoOrgID, "Moved docs")
	importMain := func() {
		t.Helper()
		admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{
			"url": srv.RepoURL("moved"), "ref": "refs/heads/main"})
		if st, e := opState(gitDone(t, admin, space)); st != "success" {
			t.Fatalf("import ended %s: %s", st, e)
		}
	}
	importMain()
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	site := org + "/sites/" + str(admin.op("createSite", "POST", org+"/sites", map[string]any{
		"title": "Moved docs", "spaces": []string{space}}).json(t), "id")
	url := str(admin.schema("Site", 200, "POST", site+"/publish", nil).json(t), "urls", "published")
	base := strings.TrimPrefix(url, p.URL)

	rd := newReader(t)
	for _, tc := range []struct{ from, to, shows string }{
		{"/previous/page", base + "/new-folder/page", "The page that moved from previous/page."},
		{"/help", base + "/support", "Write to the support desk."},
		{"/previous/page.md", base + "/new-folder/page.md", "The page that moved from previous/page."},
		{"/start?ref=mail", base + "?ref=mail", "The home of the moved docs."},
	} {
		rep := rd.get(url+tc.from, "")
		if rep.Status != http.StatusPermanentRedirect || rep.Header.Get("Location") != tc.to {
			t.Errorf("GET %s = %d to %q, want 308 to %q", tc.from, rep.Status, rep.Header.Get("Location"), tc.to)
			continue
		}
		if page := rd.want(200, p.URL+tc.to); !strings.Contains(page, tc.shows) {
			t.Errorf("%s (from %s) does not show %q", tc.to, tc.from, tc.shows)
		}
	}
	if page := rd.want(200, url+"/support"); !strings.Contains(page, "Write to the support desk.") {
		t.Error("the page at a redirect's old path is not shown")
	}
	rd.want(404, url+"/broken")
	if want := `redirect \"broken\": there is no file docs/nowhere.md`; !strings.Contains(logs.String(), want) {
		t.Errorf("the import did not report %s:\n%s", want, logs.String())
	}

	// Exported to a new branch: every file as imported, .gitbook.yaml too.
	admin.op("exportToGitRepository", "POST", "/v1/spaces/"+space+"/git/export", map[string]any{
		"url": srv.RepoURL("moved"), "ref": "refs/heads/roundtrip", "commitMessage": "Round trip"})
	if st, e := opState(gitDone(t, admin, space)); st != "success" {
		t.Fatalf("export ended %s: %s", st, e)
	}
	if diff := cmp.Diff(original, srv.Files(t, "moved", "refs/heads/roundtrip")); diff != "" {
		t.Errorf("the exported branch differs from the imported commit (-imported +exported):\n%s", diff)
	}

	// The next import's .gitbook.yaml has "help" no more: the old URL is
	// a missing page once the site reads the new revision.
	srv.Commit(t, "moved", "main", map[string][]byte{".gitbook.yaml": []byte(strings.Replace(redirectsConfig, "  help: support.md\n", "", 1))},
		nil, "Drop a redirect")
	importMain()
	waittest.Until(t, "the site to read the new import", 30*time.Second, func() bool {
		return rd.get(url+"/help", "").Status == http.StatusNotFound
	})
	if rep := rd.get(url+"/previous/page", ""); rep.Status != http.StatusPermanentRedirect {
		t.Errorf("GET /previous/page after the second import = %d", rep.Status)
	}
}
