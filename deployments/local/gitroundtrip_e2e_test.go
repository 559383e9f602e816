package local

import (
	"bytes"
	"encoding/json"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/google/go-cmp/cmp"
)

// roundTripFiles is a GitBook repository as GitBook writes one: front
// matter with keys the platform does not read, GitBook's blocks, raw HTML
// figures, a page with CRLF line endings, a page without a heading, a
// group, nesting, images under .gitbook/assets (one in a folder, one with
// a space in its name), SUMMARY entries that are links (an anchor, a
// URL), a cover, and a file outside the docs.
func roundTripFiles() map[string][]byte {
	rng := rand.New(rand.NewPCG(7, 8))
	img := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		return append(append([]byte(nil), png...), b...)
	}
	return map[string][]byte{
		"SUMMARY.md": []byte("# Table of contents\n\n* [Welcome](README.md)\n* [Getting started](getting-started/README.md)\n" +
			"  * [Install](getting-started/install.md)\n  * [Install on Linux](getting-started/install.md#download)\n* [Website](https://example.com/handbook)\n\n## Reference\n\n* [API](reference/api.md)\n* [Windows notes](reference/windows.md)\n"),
		"README.md": []byte("---\ndescription: The handbook\ncover: .gitbook/assets/logo.png\ncoverY: -12\nlayout:\n  title:\n    visible: false\n  outline:\n    visible: true\n---\n\n# Welcome\n\n" +
			"{% hint style=\"info\" %}\nRead **this** first.\n{% endhint %}\n\n" +
			"<figure><img src=\".gitbook/assets/logo.png\" alt=\"\"><figcaption><p>Logo</p></figcaption></figure>\n"),
		"getting-started/README.md": []byte("# Getting started\n\n{% tabs %}\n{% tab title=\"Linux\" %}\n```bash\napt install x\n```\n{% endtab %}\n" +
			"{% tab title=\"macOS\" %}\nbrew install x\n{% endtab %}\n{% endtabs %}\n\n![](<../.gitbook/assets/shot 1.png>)\n"),
		"getting-started/install.md":           []byte("---\nicon: download\nhidden: true\n---\n\n#   Install   \n\n\n{% stepper %}\n{% step %}\n## Download\n\nGet it.\n{% endstep %}\n{% endstepper %}\n"),
		"reference/api.md":                     []byte("No heading here.\n\n<table data-view=\"cards\"><thead><tr><th></th></tr></thead><tbody><tr><td>Card</td></tr></tbody></table>\n"),
		"reference/windows.md":                 []byte("# Windows notes\r\n\r\nLine one.\r\nLine two.\r\n\r\n{% code title=\"run.ps1\" %}\r\n```powershell\r\n.\\run.ps1\r\n```\r\n{% endcode %}\r\n"),
		".gitbook/assets/logo.png":             img(4000),
		".gitbook/assets/shot 1.png":           img(9000),
		".gitbook/assets/screens/settings.png": img(2000),
		"src/main.go":                          []byte("package main\n"),
	}
}

// TestGitRoundTripKeepsEveryByte imports a GitBook repository, exports the
// space to a new branch, and finds the branch's files identical to the
// imported commit's; then edits one page through content's API and
// exports again: that page's file is the only one that changes.
func TestGitRoundTripKeepsEveryByte(t *testing.T) {
	p, _ := startPlatformLogged(t, "warn", nil)
	cr := p.Credentials
	admin := client{t, p.URL, cr.DemoAdminToken}
	srv := gittest.NewServer(t, "", "")
	srv.NewRepo(t, "book", "main", roundTripFiles())
	original := srv.Files(t, "book", "refs/heads/main")

	space := newSpace(t, admin, cr.DemoOrgID, "Round trip")
	admin.op("importGitRepository", "POST", "/v1/spaces/"+space+"/git/import", map[string]any{"url": srv.RepoURL("book"), "ref": "refs/heads/main"})
	if st, e := opState(gitDone(t, admin, space)); st != "success" {
		t.Fatalf("import ended %s: %s", st, e)
	}
	// The SUMMARY's link entries and the home page's cover and layout, as
	// GitBook's API shows them (the contract's Revision).
	rev := string(admin.schema("Revision", 200, "GET", "/v1/spaces/"+space+"/content", nil).Body)
	for _, want := range []string{`"type":"link"`, `"href":"https://example.com/handbook"`, `"target":{"kind":"url","url":"https://example.com/handbook"}`,
		`"cover":{"ref":{"file":"`, `"yPos":-12`, `"title":false`} {
		if !strings.Contains(rev, want) {
			t.Errorf("the imported revision lacks %s: %s", want, rev)
		}
	}
	export := func(msg string) map[string][]byte {
		t.Helper()
		admin.op("exportToGitRepository", "POST", "/v1/spaces/"+space+"/git/export", map[string]any{
			"url": srv.RepoURL("book"), "ref": "refs/heads/roundtrip", "commitMessage": msg})
		if st, e := opState(gitDone(t, admin, space)); st != "success" {
			t.Fatalf("export %q ended %s: %s", msg, st, e)
		}
		return srv.Files(t, "book", "refs/heads/roundtrip")
	}
	if diff := cmp.Diff(original, export("Round trip")); diff != "" {
		t.Fatalf("the exported branch differs from the imported commit (-imported +exported):\n%s", diff)
	}

	// One page edited through content's API: the revision integrations
	// would write, with that page's markdown changed.
	tok := serviceToken(t, p, "integrations", "content", internaltoken.Principal{})
	call := func(method, path, ct string, body io.Reader) []byte {
		t.Helper()
		req, _ := http.NewRequest(method, p.ContentURL+"/internal/v1/spaces/"+space+"/git"+path, body)
		req.Header.Set(internaltoken.Header, tok)
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, res.StatusCode, b)
		}
		return b
	}
	// A file's bytes as a published site reads them (the readers' route, for sites).
	sitesTok := serviceToken(t, p, "sites", "content", internaltoken.Principal{})
	readFile := func(revision, id string) []byte {
		t.Helper()
		req, _ := http.NewRequest("GET", p.ContentURL+"/internal/v1/spaces/"+space+"/files/"+revision+"/"+id, nil)
		req.Header.Set(internaltoken.Header, sitesTok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK {
			t.Fatalf("GET file %s: %d %s", id, res.StatusCode, b)
		}
		return b
	}
	var cur struct {
		Revision string
		Pages    []map[string]any
		Files    []struct{ ID, Name, ContentType string }
	}
	if err := json.Unmarshal(call("GET", "/content", "", nil), &cur); err != nil {
		t.Fatal(err)
	}
	install := cur.Pages[1]["pages"].([]any)[0].(map[string]any)
	if install["title"] != "Install" {
		t.Fatalf("pages %v", cur.Pages)
	}
	install["markdown"] = "{% stepper %}\n{% step %}\n## Download\n\nGet version 2.\n{% endstep %}\n{% endstepper %}\n"
	// A revision names its files by their stored blobs: the same bytes, stored again.
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for _, f := range cur.Files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", mime.FormatMediaType("form-data", map[string]string{"name": "file", "filename": f.Name}))
		h.Set("Content-Type", f.ContentType)
		w, _ := mw.CreatePart(h)
		_, _ = w.Write(readFile(cur.Revision, f.ID))
	}
	_ = mw.Close()
	var stored struct {
		Blobs []struct {
			Blob string
			Size int64
		}
	}
	if err := json.Unmarshal(call("POST", "/blobs/batch", mw.FormDataContentType(), &body), &stored); err != nil {
		t.Fatal(err)
	}
	var files []map[string]any
	for i, f := range cur.Files {
		files = append(files, map[string]any{"name": f.Name, "contentType": f.ContentType, "size": stored.Blobs[i].Size, "blob": stored.Blobs[i].Blob})
	}
	call("POST", "/revisions", "application/json", bytes.NewReader(mustJSON(map[string]any{"parent": cur.Revision, "pages": cur.Pages, "files": files})))

	edited := export("Edit one page")
	want := map[string][]byte{}
	for path, b := range original {
		want[path] = b
	}
	want["getting-started/install.md"] = []byte("---\nicon: download\nhidden: true\n---\n\n#   Install   \n\n\n{% stepper %}\n{% step %}\n## Download\n\nGet version 2.\n{% endstep %}\n{% endstepper %}\n")
	if diff := cmp.Diff(want, edited); diff != "" {
		t.Fatalf("after one page's edit (-want +exported):\n%s", diff)
	}
}
