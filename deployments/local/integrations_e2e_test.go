package local

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/logx"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/libs/waittest"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/integrations"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// logBuffer keeps every log line of a platform, for tests that grep them;
// against the cluster (E2E_CLUSTER), it reads its processes' log files.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// dir holds the cluster's log files ("" in process).
	dir string
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dir != "" {
		files, _ := filepath.Glob(filepath.Join(l.dir, "*.log"))
		var all strings.Builder
		for _, f := range files {
			b, _ := os.ReadFile(f)
			all.Write(b)
		}
		return all.String()
	}
	return l.b.String()
}

// startPlatformLogged starts the platform logging at level into a buffer
// (at debug level FerretDB logs every wire message, documents included);
// adjust changes the integrations service's configuration.
func startPlatformLogged(t testing.TB, level string, adjust func(*integrations.Config)) (*Platform, *logBuffer) {
	t.Helper()
	if clusterMode() {
		if adjust != nil {
			inProcessOnly(t) // a configuration of its own
		}
		tt, ok := t.(*testing.T)
		if !ok {
			inProcessOnly(t)
		}
		p := platformOnCluster(tt)
		return p, &logBuffer{dir: filepath.Join(filepath.Dir(p.CredsPath), "logs")}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	logs := &logBuffer{}
	p, err := Start(ctx, Config{Addr: "127.0.0.1:0", DataDir: t.TempDir(), LogLevel: level, OutboundAllowPrivate: true,
		Integrations: adjust}, logx.NewTo(logs, "e2e", level))
	if err != nil {
		t.Fatalf("start platform: %v", err)
	}
	t.Cleanup(p.Close)
	return p, logs
}

// node is a page as a reader sees it.
type node struct {
	Kind, Title, Markdown, Description string
	Hidden                             bool
	Pages                              []node
}

func nodes(v any) []node {
	out := []node{}
	list, _ := v.([]any)
	for _, it := range list {
		m := it.(map[string]any)
		n := node{Kind: str(m, "type"), Title: str(m, "title"), Markdown: str(m, "markdown"), Description: str(m, "description"),
			Pages: nodes(m["pages"])}
		n.Hidden, _ = m["hidden"].(bool)
		out = append(out, n)
	}
	return out
}

// content reads a space's current revision.
func currentRevision(t *testing.T, c client, space string) map[string]any {
	t.Helper()
	r := c.status(200, "GET", "/v1/spaces/"+space+"/content", nil)
	return r.json(t)
}

// files downloads a revision's files by name.
func files(t *testing.T, c client, rev map[string]any) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	list, _ := rev["files"].([]any)
	for _, it := range list {
		f := it.(map[string]any)
		dl := str(f, "downloadURL")
		r := c.status(200, "GET", strings.TrimPrefix(dl, c.base), nil)
		out[str(f, "name")] = r.Body
	}
	return out
}

// gitDone waits for the space's last Git operation to end and returns the info.
func gitDone(t *testing.T, c client, space string) map[string]any {
	t.Helper()
	return gitDoneWithin(t, c, space, 60*time.Second)
}

// gitDoneWithin is gitDone with a deadline of its own.
func gitDoneWithin(t *testing.T, c client, space string, d time.Duration) map[string]any {
	t.Helper()
	var info map[string]any
	waittest.Until(t, "git operation of "+space, d, func() bool {
		r := c.do("GET", "/v1/spaces/"+space+"/git/info", nil)
		if r.Status != 200 {
			return false
		}
		_ = json.Unmarshal(r.Body, &info)
		op, _ := info["operation"].(map[string]any)
		return op != nil && op["state"] != "running"
	})
	return info
}

func opState(info map[string]any) (state, errText string) {
	op, _ := info["operation"].(map[string]any)
	return str(op, "state"), str(op, "error")
}

func newSpace(t *testing.T, c client, org, title string) string {
	t.Helper()
	return str(c.schema("Space", 201, "POST", "/v1/orgs/"+org+"/spaces", map[string]any{"title": title}).json(t), "id")
}

var png = []byte{0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 0, 'I', 'E', 'N', 'D'}

// gitbookFiles is a repository in GitBook's layout: a root, groups,
// nesting, front matter and an image.
func gitbookFiles() map[string][]byte {
	return map[string][]byte{
		".gitbook.yaml": []byte("root: ./docs/\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n"),
		"docs/SUMMARY.md": []byte("# Table of contents\n\n* [Welcome](README.md)\n* [Getting started](getting-started/README.md)\n" +
			"  * [Install](getting-started/install.md)\n    * [On Linux](getting-started/install/linux.md)\n\n" +
			"## Reference\n\n* [API](reference/api.md)\n* [CLI](reference/cli.md)\n"),
		"docs/README.md":                        []byte("# Welcome\n\nThe handbook. ![logo](.gitbook/assets/logo.png)\n"),
		"docs/getting-started/README.md":        []byte("---\ndescription: First steps\n---\n\n# Getting started\n\nRead on.\n"),
		"docs/getting-started/install.md":       []byte("---\nhidden: true\nicon: download\n---\n\n# Install\n\n```sh\nmake\n```\n"),
		"docs/getting-started/install/linux.md": []byte("# On Linux\n\nUse apt.\n"),
		"docs/reference/api.md":                 []byte("# API\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
		"docs/reference/cli.md":                 []byte("# CLI\n\nSee [API](api.md).\n"),
		"docs/.gitbook/assets/logo.png":         png,
		"src/main.go":                           []byte("package main\n"),
	}
}

func TestGitSyncWithRealRepositories(t *testing.T) {
	const password = "S3cret-Pa55word-4e2e"
	p, logs := startPlatformLogged(t, "debug", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	reader := client{t, p.URL, cr.DemoReaderToken}
	other := client{t, p.URL, cr.OtherOrgToken}
	srv := gittest.NewServer(t, "ada", password)
	commit := srv.NewRepo(t, "handbook", "main", gitbookFiles())
	repoURL := srv.RepoURL("handbook") // carries ada:password
	var replies []reply
	keep := func(r reply) reply { replies = append(replies, r); return r }

	// Import: 204 at once, then the job builds the revision through content.
	a := newSpace(t, admin, cr.DemoOrgID, "Handbook")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+a+"/git/import", map[string]any{
		"url": repoURL, "ref": "refs/heads/main", "repoCommitURL": "https://git.example.com/handbook/commit"})
	info := gitDone(t, admin, a)
	if st, e := opState(info); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}
	keep(admin.op("getSpaceGitInfo", "GET", "/v1/spaces/"+a+"/git/info", nil))
	if info["url"] != srv.URL+"/handbook.git" || info["repoName"] != "handbook" {
		t.Errorf("git info %v", info)
	}
	sp := keep(admin.op("getSpaceById", "GET", "/v1/spaces/"+a, nil)).json(t)
	if gs, _ := sp["gitSync"].(map[string]any); gs == nil || gs["url"] != srv.URL+"/handbook.git" {
		t.Errorf("space gitSync %v", sp["gitSync"])
	}
	rev := currentRevision(t, admin, a)
	keep(reply{Body: mustJSON(rev)})
	want := []node{
		{Kind: "document", Title: "Welcome", Markdown: "The handbook. ![logo](.gitbook/assets/logo.png)\n", Pages: []node{}},
		{Kind: "document", Title: "Getting started", Markdown: "Read on.\n", Description: "First steps", Pages: []node{
			{Kind: "document", Title: "Install", Markdown: "```sh\nmake\n```\n", Hidden: true, Pages: []node{
				{Kind: "document", Title: "On Linux", Markdown: "Use apt.\n", Pages: []node{}},
			}},
		}},
		{Kind: "group", Title: "Reference", Pages: []node{
			{Kind: "document", Title: "API", Markdown: "| a | b |\n|---|---|\n| 1 | 2 |\n", Pages: []node{}},
			{Kind: "document", Title: "CLI", Markdown: "See [API](api.md).\n", Pages: []node{}},
		}},
	}
	if diff := cmp.Diff(want, nodes(rev["pages"])); diff != "" {
		t.Fatalf("imported pages (-want +got):\n%s", diff)
	}
	if got := files(t, admin, rev); !bytes.Equal(got["logo.png"], png) || len(got) != 1 {
		t.Fatalf("imported files %v", got)
	}
	if g, _ := rev["git"].(map[string]any); str(g, "oid") != commit || str(g, "ref") != "refs/heads/main" ||
		str(g, "message") != "initial" || str(g, "url") != "https://git.example.com/handbook/commit/"+commit {
		t.Fatalf("revision git %v", rev["git"])
	}

	// Export back to the repository it came from: the layout is written where
	// .gitbook.yaml's root says, the repository's other files stay.
	admin.op("exportToGitRepository", "POST", "/v1/spaces/"+a+"/git/export", map[string]any{
		"url": repoURL, "ref": "refs/heads/main", "commitMessage": "Back home"})
	if st, e := opState(gitDone(t, admin, a)); st != "success" {
		t.Fatalf("export to the source ended %s: %s", st, e)
	}
	home := srv.Files(t, "handbook", "refs/heads/main")
	for _, f := range []string{"src/main.go", ".gitbook.yaml", "docs/SUMMARY.md", "docs/README.md", "docs/reference/cli.md", "docs/.gitbook/assets/logo.png"} {
		if _, ok := home[f]; !ok {
			t.Errorf("after exporting home, %s is missing: %v", f, gittest.Paths(home))
		}
	}
	if _, ok := home["README.md"]; ok {
		t.Errorf("the export wrote outside the .gitbook.yaml root: %v", gittest.Paths(home))
	}

	// Export to an empty repository, then import it into a new space: the same tree, markdown and files.
	srv.NewRepo(t, "mirror", "main", nil)
	admin.op("exportToGitRepository", "POST", "/v1/spaces/"+a+"/git/export", map[string]any{
		"url": srv.RepoURL("mirror"), "ref": "refs/heads/docs", "commitMessage": "Export from docspub", "repoProjectDirectory": "site"})
	if st, e := opState(gitDone(t, admin, a)); st != "success" {
		t.Fatalf("export ended %s: %s", st, e)
	}
	exported := srv.Files(t, "mirror", "refs/heads/docs")
	if _, ok := exported["site/SUMMARY.md"]; !ok || !bytes.Equal(exported["site/.gitbook/assets/logo.png"], png) {
		t.Fatalf("exported files %v", gittest.Paths(exported))
	}
	if got := srv.Message(t, "mirror", "refs/heads/docs"); got != "Export from docspub" {
		t.Errorf("commit message %q", got)
	}
	if got := srv.Author(t, "mirror", "refs/heads/docs"); !strings.Contains(got, "Demo Admin") || !strings.Contains(got, "admin@demo.example") {
		t.Errorf("commit author %q, want the caller", got)
	}
	if strings.Contains(logs.String(), authorFallback) {
		t.Errorf("integrations did not ask identity who the export's author is (%q in the logs)", authorFallback)
	}
	b := newSpace(t, admin, cr.DemoOrgID, "Mirror")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+b+"/git/import", map[string]any{
		"url": srv.RepoURL("mirror"), "ref": "refs/heads/docs", "repoProjectDirectory": "site"})
	if st, e := opState(gitDone(t, admin, b)); st != "success" {
		t.Fatalf("re-import ended %s: %s", st, e)
	}
	revB := currentRevision(t, admin, b)
	if diff := cmp.Diff(nodes(rev["pages"]), nodes(revB["pages"])); diff != "" {
		t.Fatalf("round trip pages (-exported +re-imported):\n%s", diff)
	}
	if diff := cmp.Diff(files(t, admin, rev), files(t, admin, revB)); diff != "" {
		t.Fatalf("round trip files:\n%s", diff)
	}

	// The branch moves: an export without force fails and git/info says why; with force it goes through.
	theirs := srv.Commit(t, "mirror", "docs", map[string][]byte{"site/README.md": []byte("# Welcome\n\nTheirs.\n")}, nil, "their change")
	admin.op("exportToGitRepository", "POST", "/v1/spaces/"+a+"/git/export", map[string]any{
		"url": srv.RepoURL("mirror"), "ref": "refs/heads/docs", "commitMessage": "Second export", "repoProjectDirectory": "site"})
	info = gitDone(t, admin, a)
	if st, e := opState(info); st != "failure" || !strings.Contains(e, "moved") {
		t.Fatalf("export to a moved branch ended %s: %q", st, e)
	}
	keep(reply{Body: mustJSON(info)})
	if got := srv.Head(t, "mirror", "refs/heads/docs"); got != theirs {
		t.Fatalf("the moved branch was overwritten: head %s, want %s", got, theirs)
	}
	admin.op("exportToGitRepository", "POST", "/v1/spaces/"+a+"/git/export", map[string]any{
		"url": srv.RepoURL("mirror"), "ref": "refs/heads/docs", "commitMessage": "Forced export", "repoProjectDirectory": "site", "force": true})
	if st, e := opState(gitDone(t, admin, a)); st != "success" {
		t.Fatalf("forced export ended %s: %s", st, e)
	}
	if got := srv.Message(t, "mirror", "refs/heads/docs"); got != "Forced export" {
		t.Fatalf("head after force: %q", got)
	}
	// Forced, the export's files are the space's; their commit stays in the history.
	if got := srv.Files(t, "mirror", "refs/heads/docs")["site/README.md"]; !bytes.Equal(got, exported["site/README.md"]) {
		t.Fatalf("site/README.md after force: %q, want the space's %q", got, exported["site/README.md"])
	}

	// Timestamps order operations: an import older than the last applied one is skipped.
	now := time.Now().UTC()
	srv.Commit(t, "handbook", "main", map[string][]byte{"docs/reference/new.md": []byte("# New\n")}, nil, "add a page")
	c := newSpace(t, admin, cr.DemoOrgID, "Ordered")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+c+"/git/import", map[string]any{
		"url": repoURL, "ref": "refs/heads/main", "timestamp": now.Format(time.RFC3339)})
	gitDone(t, admin, c)
	before := str(currentRevision(t, admin, c), "id")
	// Started at once after the last one's end was read: accepted, not "running".
	if r := admin.op("importGitRepository", "POST", "/v1/spaces/"+c+"/git/import", map[string]any{
		"url": repoURL, "ref": "refs/heads/main", "timestamp": now.Add(-time.Hour).Format(time.RFC3339)}); r.Status != 204 {
		t.Fatalf("an import right after the last one ended: %d %s", r.Status, r.Body)
	}
	if info := gitDone(t, admin, c); !strings.Contains(str(info, "operation", "error"), "skipped") {
		t.Fatalf("older import ended %s: %q (git info %v)", str(info, "operation", "state"), str(info, "operation", "error"), info)
	}
	if after := str(currentRevision(t, admin, c), "id"); after != before {
		t.Fatalf("an older import changed the space: %s → %s", before, after)
	}

	// Standalone: a revision, the space's content unchanged.
	admin.op("importGitRepository", "POST", "/v1/spaces/"+c+"/git/import", map[string]any{
		"url": repoURL, "ref": "refs/heads/main", "standalone": true})
	if st, e := opState(gitDone(t, admin, c)); st != "success" {
		t.Fatalf("standalone import ended %s: %s", st, e)
	}
	if after := str(currentRevision(t, admin, c), "id"); after != before {
		t.Fatalf("a standalone import changed the space: %s → %s", before, after)
	}

	// A failing job leaves the space untouched.
	admin.op("importGitRepository", "POST", "/v1/spaces/"+c+"/git/import", map[string]any{
		"url": srv.URL + "/no-such-repo.git", "ref": "refs/heads/main"})
	if st, _ := opState(gitDone(t, admin, c)); st != "failure" {
		t.Fatalf("import of a missing repository ended %s", st)
	}
	if after := str(currentRevision(t, admin, c), "id"); after != before {
		t.Fatalf("a failed import changed the space: %s → %s", before, after)
	}

	// Callers and bad input.
	imp := "/v1/spaces/" + a + "/git/import"
	reader.status(403, "POST", imp, map[string]any{"url": repoURL, "ref": "refs/heads/main"})
	other.status(404, "POST", imp, map[string]any{"url": repoURL, "ref": "refs/heads/main"})
	other.status(404, "GET", "/v1/spaces/"+a+"/git/info", nil)
	admin.status(404, "GET", "/v1/spaces/"+newSpace(t, admin, cr.DemoOrgID, "Never synced")+"/git/info", nil)
	for _, tc := range []struct {
		path  string
		body  map[string]any
		field string
	}{
		{imp, map[string]any{"ref": "refs/heads/main"}, "url"},
		{imp, map[string]any{"url": repoURL}, "ref"},
		{imp, map[string]any{"url": repoURL, "ref": "main"}, "ref"},
		{imp, map[string]any{"url": "ssh://git@example.com/x.git", "ref": "refs/heads/main"}, "url"},
		{imp, map[string]any{"url": "https://example.com/" + strings.Repeat("x", 2048), "ref": "refs/heads/main"}, "url"},
		{imp, map[string]any{"url": repoURL, "ref": "refs/heads/main", "repoProjectDirectory": "../up"}, "repoProjectDirectory"},
		{imp, map[string]any{"url": repoURL, "ref": "refs/heads/main", "gitInfo": map[string]any{"provider": "svn"}}, "gitInfo.provider"},
		{imp, map[string]any{"url": repoURL, "ref": "refs/heads/main", "repoCommitURL": "javascript:alert(1)"}, "repoCommitURL"},
		{imp, map[string]any{"url": repoURL, "ref": "refs/heads/main", "timestamp": "yesterday"}, ""},
		{"/v1/spaces/" + a + "/git/export", map[string]any{"url": repoURL, "ref": "refs/heads/main"}, "commitMessage"},
		{"/v1/spaces/" + a + "/git/export", map[string]any{"url": repoURL, "ref": "refs/tags/v1", "commitMessage": "x"}, "ref"},
	} {
		r := keep(admin.status(400, "POST", tc.path, tc.body))
		if tc.field != "" && !strings.HasPrefix(str(r.json(t), "error", "message"), tc.field) {
			t.Errorf("%v: error %s does not name %s", tc.body, r.Body, tc.field)
		}
	}

	// The password of the URL is in no response, no log line, no stored document.
	for _, r := range replies {
		if bytes.Contains(r.Body, []byte(password)) {
			t.Errorf("a response carries the password: %s", r.Body)
		}
	}
	if strings.Contains(logs.String(), password) {
		t.Errorf("the logs carry the password")
	}
	if strings.Count(logs.String(), "\n") < 10 {
		t.Errorf("too few log lines to prove anything: %q", logs.String())
	}
	assertNotStored(t, p, password)
}

// assertNotStored fails when any document of any database holds secret.
func assertNotStored(t *testing.T, p *Platform, secret string) {
	t.Helper()
	ctx := context.Background()
	// A long operation timeout: a race-built embedded server reads slowly.
	mc, err := mongo.Connect(options.Client().ApplyURI(p.MongoURI).SetTimeout(5 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Disconnect(ctx)
	dbs, err := mc.ListDatabaseNames(ctx, bson.M{})
	if err != nil {
		t.Fatal(err)
	}
	docs := 0
	for _, name := range dbs {
		db := mc.Database(name)
		colls, err := db.ListCollectionNames(ctx, bson.M{})
		if err != nil {
			t.Fatal(err)
		}
		for _, coll := range colls {
			// Small batches: each round trip stays short on a slow (race-built,
			// debug-logging) embedded server.
			cur, err := db.Collection(coll).Find(ctx, bson.M{}, options.Find().SetBatchSize(16))
			if err != nil {
				t.Fatal(err)
			}
			for cur.Next(ctx) {
				docs++
				if bytes.Contains(cur.Current, []byte(secret)) {
					t.Errorf("%s.%s stores the secret: %s", name, coll, cur.Current)
				}
			}
			cur.Close(ctx)
		}
	}
	if docs < 20 {
		t.Fatalf("only %d documents read: the check proves nothing", docs)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

func TestIntegrationsThroughGateway(t *testing.T) {
	p, _ := startPlatformLogged(t, "warn", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	reader := client{t, p.URL, cr.DemoReaderToken}
	other := client{t, p.URL, cr.OtherOrgToken}
	creator, _ := member(t, p, cr.DemoOrgID, "creator@demo.example", roles.Create)
	org := "/v1/orgs/" + cr.DemoOrgID

	// Translations: seed-only rows (the public spec's Translation is another
	// resource), so bodies are checked against api.md's translation-settings.
	settings := func(r reply) map[string]any {
		t.Helper()
		v := r.json(t)
		for _, f := range []string{"id", "title", "languages", "createdAt", "updatedAt", "permissions", "urls"} {
			if v[f] == nil {
				t.Errorf("translation settings without %s: %s", f, r.Body)
			}
		}
		if v["object"] != "translation-settings" || str(v, "urls", "location") != p.URL+org+"/translations/"+str(v, "id") {
			t.Errorf("translation settings %s", r.Body)
		}
		return v
	}
	tr := settings(admin.status(201, "POST", org+"/translations", map[string]any{"title": "French", "languages": []string{"fr"}}))
	trPath := org + "/translations/" + str(tr, "id")
	for _, it := range items(t, admin.status(200, "GET", org+"/translations", nil)) {
		settings(reply{Body: mustJSON(it)})
	}
	settings(reader.status(200, "GET", trPath, nil))
	settings(admin.status(200, "PUT", trPath, map[string]any{"title": "Français"}))
	reader.status(403, "PUT", trPath, map[string]any{"title": "x"})
	creator.status(403, "POST", org+"/translations", map[string]any{"title": "x"})
	other.status(404, "GET", trPath, nil)
	admin.status(400, "POST", org+"/translations", map[string]any{"title": strings.Repeat("t", 101)})
	admin.status(400, "POST", org+"/translations", map[string]any{})
	admin.op("deleteTranslation", "DELETE", trPath, nil)
	admin.status(404, "GET", trPath, nil)

	// OpenAPI specs, processed by the service's jobs from a URL on this machine.
	spec := `{"openapi":"3.1.0","info":{"title":"Pets","version":"1"},"paths":{"/pets":{"get":{"responses":{"200":{"description":"ok"}}}}}}`
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, spec) }))
	defer docs.Close()
	created := creator.op("createOpenAPISpec", "POST", org+"/openapi", map[string]any{"slug": "pets", "source": map[string]any{"url": docs.URL + "/openapi.json"}}).json(t)
	if created["processingState"] != "pending" {
		t.Errorf("created spec %v", created)
	}
	admin.status(409, "POST", org+"/openapi", map[string]any{"slug": "pets", "source": map[string]any{"text": spec}})
	var got map[string]any
	waittest.Until(t, "spec processed", 30*time.Second, func() bool {
		got = reader.op("getOpenAPISpecBySlug", "GET", org+"/openapi/pets", nil).json(t)
		return got["processingState"] == "complete"
	})
	if got["lastVersion"] == nil || got["lastProcessErrorCode"] != nil {
		t.Fatalf("processed spec %v", got)
	}
	admin.op("listOpenAPISpecs", "GET", org+"/openapi", nil)
	admin.op("createOrUpdateOpenAPISpecBySlug", "PUT", org+"/openapi/pets", map[string]any{"source": map[string]any{"text": spec}})
	patched := admin.status(200, "PATCH", org+"/openapi/pets", map[string]any{"visibility": "public"})
	contracttest.Validate(t, "OpenAPISpec", patched.Body)
	for _, path := range []string{"/versions", "/versions/latest", "/versions/latest/content", "/versions/latest/content/raw",
		"/versions/" + str(got, "lastVersion"), "/versions/" + str(got, "lastVersion") + "/content"} {
		admin.status(200, "GET", org+"/openapi/pets"+path, nil)
		other.status(404, "GET", org+"/openapi/pets"+path, nil)
	}
	admin.status(400, "POST", org+"/openapi", map[string]any{"slug": "bad slug", "source": map[string]any{"text": spec}})
	admin.status(400, "POST", org+"/openapi", map[string]any{"slug": "ok", "source": map[string]any{"url": "ftp://example.com/x"}})
	reader.status(403, "DELETE", org+"/openapi/pets", nil)
	admin.op("deleteOpenAPISpecBySlug", "DELETE", org+"/openapi/pets", nil)
	admin.status(404, "GET", org+"/openapi/pets", nil)
}

func TestOpenAPIProcessingResumesAfterRestart(t *testing.T) {
	inProcessOnly(t)
	p, _ := startPlatformLogged(t, "warn", func(c *integrations.Config) { c.JobLease = 2 * time.Second })
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	org := "/v1/orgs/" + cr.DemoOrgID
	spec := `{"openapi":"3.0.0","info":{"title":"Slow","version":"1"},"paths":{}}`
	var mu sync.Mutex
	blocked, requests := true, 0
	reached := make(chan struct{}, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		b := blocked
		mu.Unlock()
		if b {
			reached <- struct{}{}
			<-r.Context().Done() // held until the service stops and drops the fetch
			return
		}
		io.WriteString(w, spec)
	}))
	defer srv.Close()
	admin.op("createOpenAPISpec", "POST", org+"/openapi", map[string]any{"slug": "slow", "source": map[string]any{"url": srv.URL}})
	select {
	case <-reached:
	case <-time.After(30 * time.Second):
		t.Fatal("the spec was never fetched")
	}
	p.StopIntegrations()
	if st := str(admin.do("GET", org+"/openapi/slow", nil).json(t), "error", "message"); st == "" {
		t.Fatal("integrations still answers after stop")
	}
	mu.Lock()
	blocked = false
	mu.Unlock()
	if err := p.StartIntegrations(); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	waittest.Until(t, "spec processed after the restart", 30*time.Second, func() bool {
		got = admin.do("GET", org+"/openapi/slow", nil).json(t)
		return got["processingState"] == "complete"
	})
	if got["lastVersion"] == nil || got["lastProcessErrorCode"] != nil {
		t.Fatalf("spec after restart %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if requests < 2 {
		t.Fatalf("the source was fetched %d times", requests)
	}

}

// TestContentGitSyncInternalAPI checks content's internal Git sync API
// directly: service tokens only (the gateway routes no /internal path), and
// a revision written on a parent the space moved away from is a 409.
func TestContentGitSyncInternalAPI(t *testing.T) {
	p, _ := startPlatformLogged(t, "warn", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	space := newSpace(t, admin, cr.DemoOrgID, "Internal")
	me := admin.status(200, "GET", "/v1/user", nil).json(t)
	signer, err := internaltoken.NewSigner("integrations", p.InternalTokenSecret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	mint := func(pr internaltoken.Principal) string {
		tok, err := signer.Mint("content", pr)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	svc := mint(internaltoken.Principal{Service: "integrations"})
	user := mint(internaltoken.Principal{UserID: str(me, "id"), Roles: map[string]string{cr.DemoOrgID: "admin"}, Service: "integrations"})
	send := func(tok, method, path, ct string, rd io.Reader) reply {
		t.Helper()
		req, _ := http.NewRequest(method, p.ContentURL+"/internal/v1/spaces/"+space+"/git"+path, rd)
		if tok != "" {
			req.Header.Set("X-Internal-Token", tok)
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return reply{Status: res.StatusCode, Body: b}
	}
	call := func(tok, method, path string, body any) reply {
		t.Helper()
		var rd io.Reader
		if body != nil {
			rd = bytes.NewReader(mustJSON(body))
		}
		return send(tok, method, path, "", rd)
	}
	if r := call("", "GET", "/content", nil); r.Status != 401 {
		t.Errorf("no token: %d %s", r.Status, r.Body)
	}
	if r := call(user, "GET", "/content", nil); r.Status != 403 {
		t.Errorf("a user's token on a service route: %d %s", r.Status, r.Body)
	}
	for _, pr := range []internaltoken.Principal{{Service: "sites"}, {Service: "sites", UserID: str(me, "id"), Roles: map[string]string{cr.DemoOrgID: "admin"}}} {
		tok := serviceToken(t, p, "sites", "content", pr)
		for _, path := range []string{"/content", "/current", "/access"} {
			if r := call(tok, "GET", path, nil); r.Status != 403 {
				t.Errorf("the sites service's token (user %q) on Git sync's %s: %d %s", pr.UserID, path, r.Status, r.Body)
			}
		}
	}
	if r := admin.do("GET", "/internal/v1/spaces/"+space+"/git/content", nil); r.Status != 404 {
		t.Errorf("the gateway routes /internal: %d", r.Status)
	}
	// The author comes from content's projection of identity's users, fed by events.
	var acc reply
	waittest.Until(t, "the author known to content", 30*time.Second, func() bool {
		acc = call(user, "GET", "/access", nil)
		return bytes.Contains(acc.Body, []byte("admin@demo.example"))
	})
	if acc.Status != 200 || !bytes.Contains(acc.Body, []byte(`"canSync":true`)) {
		t.Fatalf("access: %d %s", acc.Status, acc.Body)
	}
	cur := call(svc, "GET", "/content", nil)
	if cur.Status != 200 {
		t.Fatalf("content: %d %s", cur.Status, cur.Body)
	}
	parent := str(cur.json(t), "revision")
	page := map[string]any{"kind": "document", "title": "One", "slug": "one", "markdown": "Hi\n", "pages": []any{}}
	if r := call(svc, "POST", "/revisions", map[string]any{"parent": "nope", "standalone": true, "pages": []any{page}}); r.Status != 400 {
		t.Errorf("unknown parent: %d %s", r.Status, r.Body)
	}
	if r := call(svc, "POST", "/revisions", map[string]any{"parent": parent, "pages": []any{page}}); r.Status != 201 {
		t.Fatalf("revision: %d %s", r.Status, r.Body)
	}
	if r := call(svc, "POST", "/revisions", map[string]any{"parent": parent, "pages": []any{page}}); r.Status != 409 {
		t.Errorf("a revision on a parent the space left: %d %s", r.Status, r.Body)
	}
	if r := call(svc, "POST", "/revisions", "not json"); r.Status != 400 {
		t.Errorf("malformed body: %d %s", r.Status, r.Body)
	}
	if got := nodes(currentRevision(t, admin, space)["pages"]); len(got) != 1 || got[0].Title != "One" {
		t.Errorf("space pages %v", got)
	}

	// Several files at once, within a count and a size.
	batch := func(names []string, size int) (string, *bytes.Buffer) {
		var body bytes.Buffer
		mw := multipart.NewWriter(&body)
		for _, name := range names {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": name}))
			h.Set("Content-Type", "image/png")
			w, _ := mw.CreatePart(h)
			_, _ = w.Write(bytes.Repeat([]byte{'x'}, size))
		}
		_ = mw.Close()
		return mw.FormDataContentType(), &body
	}
	ct, body := batch([]string{"a.png", "dir/b.png"}, 3)
	r := send(svc, "POST", "/blobs/batch", ct, body)
	var stored struct {
		Blobs []struct {
			Blob string
			Size int64
		}
	}
	if r.Status != 201 || json.Unmarshal(r.Body, &stored) != nil || len(stored.Blobs) != 2 || stored.Blobs[1].Size != 3 || stored.Blobs[1].Blob == "" {
		t.Fatalf("batch of files: %d %s", r.Status, r.Body)
	}
	rev := call(svc, "POST", "/revisions", map[string]any{"parent": str(call(svc, "GET", "/content", nil).json(t), "revision"),
		"pages": []any{page}, "files": []any{map[string]any{"name": "dir/b.png", "contentType": "image/png", "size": 3, "blob": stored.Blobs[1].Blob}}})
	if rev.Status != 201 {
		t.Fatalf("revision with a batch's file: %d %s", rev.Status, rev.Body)
	}
	cur = call(svc, "GET", "/content", nil)
	files, _ := cur.json(t)["files"].([]any)
	if len(files) != 1 || str(files[0].(map[string]any), "name") != "dir/b.png" {
		t.Fatalf("files %s", cur.Body)
	}
	fileID := str(files[0].(map[string]any), "id")
	f := call(svc, "POST", "/files/"+str(cur.json(t), "revision"), map[string]any{"ids": []string{fileID}})
	tr := tar.NewReader(bytes.NewReader(f.Body))
	h, err := tr.Next()
	if f.Status != 200 || err != nil || h.Name != fileID {
		t.Fatalf("files of the revision: %d %v %v", f.Status, h, err)
	}
	if b, _ := io.ReadAll(tr); string(b) != "xxx" {
		t.Errorf("file bytes %q", b)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("f%d.png", i)
	}
	for _, tc := range []struct {
		name   string
		names  []string
		size   int
		ct     string
		status int
	}{
		{"101 files", many, 1, "", 400},
		{"a file without a name", []string{""}, 1, "", 400},
		{"over 16 MiB", []string{"a", "b"}, 9 << 20, "", 413},
		{"a file over 10 MiB", []string{"big"}, 10<<20 + 1, "", 413},
		{"not multipart", []string{"a"}, 1, "application/json", 400},
	} {
		ct, body := batch(tc.names, tc.size)
		if tc.ct != "" {
			ct = tc.ct
		}
		r := send(svc, "POST", "/blobs/batch", ct, body)
		if r.Status != tc.status || !bytes.Contains(r.Body, []byte(`"error"`)) {
			t.Errorf("%s: %d %.200s, want %d", tc.name, r.Status, r.Body, tc.status)
		}
	}
}

// authorFallback is what integrations logs when identity did not name an
// export's author.
const authorFallback = "identity did not name the caller"

// A Git export names the caller as identity knows them, also when content
// does not know them yet: here a user created while Kafka is down, whose
// user.created cannot have reached content's projection (which would name
// them by their id, for ever in the repository's history).
func TestGitExportAuthorFromIdentity(t *testing.T) {
	inProcessOnly(t)
	p := startPlatform(t)
	cr := p.Credentials
	srv := gittest.NewServer(t, "ada", "S3cret-Pa55word-4e2e")
	srv.NewRepo(t, "fresh", "main", nil)

	p.StopKafka()
	t.Cleanup(func() {
		if err := p.ResumeKafka(); err != nil {
			t.Errorf("resume kafka: %v", err)
		}
	})
	grace, err := p.Bootstrap(t.Context(), identity.BootstrapInput{OrganizationID: cr.DemoOrgID,
		UserDisplayName: "Grace Hopper", UserEmail: "grace@demo.example", Role: roles.Admin})
	if err != nil {
		t.Fatal(err)
	}
	c := client{t, p.URL, grace.Token}
	space := newSpace(t, c, cr.DemoOrgID, "Fresh")
	c.op("exportToGitRepository", "POST", "/v1/spaces/"+space+"/git/export", map[string]any{
		"url": srv.RepoURL("fresh"), "ref": "refs/heads/main", "commitMessage": "First export"})
	if st, e := opState(gitDone(t, c, space)); st != "success" {
		t.Fatalf("export ended %s: %s", st, e)
	}
	if got := srv.Author(t, "fresh", "refs/heads/main"); got != "Grace Hopper <grace@demo.example>" {
		t.Errorf("commit author %q, want Grace Hopper <grace@demo.example>", got)
	}
}
