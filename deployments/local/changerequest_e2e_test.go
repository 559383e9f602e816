package local

import (
	"fmt"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// website is a small site the import reads; its pages change between imports.
type website struct {
	mu    sync.Mutex
	pages map[string]string // path → HTML body
}

func (w *website) set(path, title, body string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pages[path] = "<html><head><title>" + title + "</title></head><body><h1>" + title + "</h1>" + body + "</body></html>"
}

func (w *website) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	page, ok := w.pages[r.URL.Path]
	w.mu.Unlock()
	if r.URL.Path == "/logo.png" {
		rw.Header().Set("Content-Type", "image/png")
		rw.Write(pngBytes)
		return
	}
	if !ok {
		http.NotFound(rw, r)
		return
	}
	rw.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(rw, page)
}

// pngBytes is a 1×1 PNG.
var pngBytes = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\xff\xff?\x00\x05\xfe\x02\xfe\xa75\x81\x84\x00\x00\x00\x00IEND\xaeB`\x82")

// lines makes a page body of numbered paragraphs, with some replaced.
func lines(n int, replace map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := replace[i]; ok {
			fmt.Fprintf(&b, "<p>%s</p>", s)
			continue
		}
		fmt.Fprintf(&b, "<p>Paragraph %d of the page.</p>", i)
	}
	return b.String()
}

func TestChangeRequestsThroughGateway(t *testing.T) {
	site := &website{pages: map[string]string{}}
	srv := httptest.NewServer(site)
	defer srv.Close()
	site.set("/", "Home", `<p>Welcome.</p><img src="/logo.png" alt="logo"><a href="/guide">Guide</a> <a href="/api">API</a> <a href="/missing">Gone</a>`)
	site.set("/guide", "Guide", lines(6, map[int]string{3: "The zebrafish swims here."}))
	site.set("/api", "API", lines(6, nil))

	p := startPlatform(t)
	admin := client{t, p.URL, p.Credentials.DemoAdminToken}
	other := client{t, p.URL, p.Credentials.OtherOrgToken}
	org := "/v1/orgs/" + p.Credentials.DemoOrgID
	sp := "/v1/spaces/" + str(admin.schema("Space", 201, "POST", org+"/spaces", map[string]any{"title": "Docs"}).json(t), "id")
	crs := sp + "/change-requests"
	newCR := func(subject string) string {
		t.Helper()
		cr := admin.op("createChangeRequest", "POST", crs, map[string]any{"subject": subject}).json(t)
		return crs + "/" + str(cr, "id")
	}
	importSite := func(cr string) {
		t.Helper()
		r := admin.status(201, "POST", cr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"}).json(t)
		if str(r, "revision") == "" || r["importedResources"].(float64) < 3 {
			t.Fatalf("import result %v", r)
		}
	}
	merge := func(cr, want string) map[string]any {
		t.Helper()
		r := admin.op("mergeChangeRequest", "POST", cr+"/merge", nil).json(t)
		if str(r, "result") != want {
			t.Fatalf("merge %s: %v, want result %s", cr, r, want)
		}
		return r
	}
	pageText := func(path string) string {
		t.Helper()
		r := admin.status(200, "GET", sp+"/content/path/"+path+"?format=markdown", nil)
		return string(r.Body)
	}

	// Import a website into a change request, list its pages, merge it.
	first := newCR("Import the site")
	importSite(first)
	admin.op("getRevisionOfChangeRequestById", "GET", first+"/content", nil)
	pagesBody := string(admin.op("listPagesInChangeRequest", "GET", first+"/content/pages", nil).Body)
	for _, title := range []string{"Home", "Guide", "API"} {
		if !strings.Contains(pagesBody, `"`+title+`"`) {
			t.Errorf("imported pages lack %q: %s", title, pagesBody)
		}
	}
	admin.op("getChangeRequestById", "GET", first, nil)
	admin.op("listChangeRequestsForSpace", "GET", crs, nil)
	merge(first, "merge")
	if got := pageText("guide"); !strings.Contains(got, "zebrafish") {
		t.Fatalf("space content after merge: %s", got)
	}
	if cr := admin.op("getChangeRequestById", "GET", first, nil).json(t); str(cr, "status") != "merged" || str(cr, "revisionMerged") == "" {
		t.Errorf("merged change request %v", cr)
	}

	// Two change requests changing different pages both merge.
	a, b, c := newCR("Guide"), newCR("API"), newCR("Later")
	site.set("/guide", "Guide", lines(6, map[int]string{3: "The zebrafish swims here.", 1: "Guide intro, revised."}))
	importSite(a)
	site.set("/guide", "Guide", lines(6, map[int]string{3: "The zebrafish swims here."}))
	site.set("/api", "API", lines(6, map[int]string{6: "API outro, revised."}))
	importSite(b)
	site.set("/api", "API", lines(6, nil))
	merge(a, "merge")
	if cr := admin.op("getChangeRequestById", "GET", b, nil).json(t); cr["outdated"] != true {
		t.Errorf("change request behind the space is not outdated: %v", cr)
	}
	merge(b, "merge")
	if g, api := pageText("guide"), pageText("api"); !strings.Contains(g, "Guide intro, revised.") || !strings.Contains(api, "API outro, revised.") {
		t.Errorf("after both merges: guide %s / api %s", g, api)
	}

	// Update brings the space into a change request and clears outdated.
	if r := admin.op("updateChangeRequest", "POST", c+"/update", nil).json(t); str(r, "result") != "update" {
		t.Errorf("update: %v", r)
	}
	if cr := admin.op("getChangeRequestById", "GET", c, nil).json(t); cr["outdated"] != false {
		t.Errorf("outdated after update: %v", cr)
	}

	// Two change requests changing the same lines: the second reports the conflict; the space keeps the first's text.
	x, y := newCR("X"), newCR("Y")
	site.set("/guide", "Guide", lines(6, map[int]string{3: "The zebrafish swims here.", 1: "Intro by X."}))
	importSite(x)
	site.set("/guide", "Guide", lines(6, map[int]string{3: "The zebrafish swims here.", 1: "Intro by Y."}))
	importSite(y)
	merge(x, "merge")
	merge(y, "conflicts")
	if got := pageText("guide"); !strings.Contains(got, "Intro by X.") || strings.Contains(got, "Intro by Y.") {
		t.Errorf("space after the conflict: %s", got)
	}

	// Twenty concurrent creations get twenty distinct numbers.
	var wg sync.WaitGroup
	numbers := make(chan float64, 20)
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := admin.do("POST", crs, map[string]any{"subject": "concurrent"})
			if r.Status != 201 {
				t.Errorf("concurrent create: %d %s", r.Status, r.Body)
				return
			}
			numbers <- r.json(t)["number"].(float64)
		}()
	}
	wg.Wait()
	close(numbers)
	seen := map[float64]bool{}
	for n := range numbers {
		if seen[n] {
			t.Errorf("number %v handed out twice", n)
		}
		seen[n] = true
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct numbers, want 20", len(seen))
	}
	// A change request answers to its number too.
	admin.op("getChangeRequestById", "GET", crs+"/1", nil)

	// Comments on a change request reuse the space comment code.
	cm := admin.op("postCommentInChangeRequest", "POST", y+"/comments", map[string]any{"body": map[string]any{"markdown": "Conflicts here"}}).json(t)
	admin.op("listCommentsInChangeRequest", "GET", y+"/comments", nil)
	admin.op("getCommentInChangeRequest", "GET", y+"/comments/"+str(cm, "id"), nil)
	admin.op("updateCommentInChangeRequest", "PUT", y+"/comments/"+str(cm, "id"), map[string]any{"addedReactions": []string{"👀"}})
	rp := admin.op("postCommentReplyInChangeRequest", "POST", y+"/comments/"+str(cm, "id")+"/replies", map[string]any{"body": map[string]any{"markdown": "ok"}}).json(t)
	admin.op("listCommentRepliesInChangeRequest", "GET", y+"/comments/"+str(cm, "id")+"/replies", nil)
	admin.op("getCommentReplyInChangeRequest", "GET", y+"/comments/"+str(cm, "id")+"/replies/"+str(rp, "id"), nil)
	if cr := admin.op("getChangeRequestById", "GET", y, nil).json(t); cr["comments"] != float64(1) {
		t.Errorf("change request comments = %v, want 1", cr["comments"])
	}
	admin.op("deleteCommentInChangeRequest", "DELETE", y+"/comments/"+str(cm, "id"), nil)

	// PATCH subject and status.
	admin.op("updateChangeRequestById", "PATCH", y, map[string]any{"subject": "Y, archived", "status": "archived"})
	admin.status(400, "PATCH", y, map[string]any{"status": "merged"})
	admin.status(400, "PATCH", y, map[string]any{"subject": strings.Repeat("s", 101)})

	// CR content reads.
	crPages := admin.op("listPagesInChangeRequest", "GET", c+"/content/pages", nil)
	guideID := ""
	for _, pg := range flattenPages(t, crPages) {
		if str(pg, "title") == "Guide" {
			guideID = str(pg, "id")
		}
	}
	if guideID == "" {
		t.Fatalf("no Guide page in %s", crPages.Body)
	}
	admin.op("getPageInChangeRequestById", "GET", c+"/content/page/"+guideID, nil)
	admin.status(200, "GET", c+"/content/page/"+guideID+"/links", nil)
	files := items(t, admin.op("listFilesInChangeRequestById", "GET", c+"/content/files", nil))
	if len(files) != 1 {
		t.Fatalf("files of the change request: %v", files)
	}
	file := admin.op("getFileInChangeRequestById", "GET", c+"/content/files/"+str(files[0], "id"), nil).json(t)
	admin.status(200, "GET", c+"/content/files/"+str(files[0], "id")+"/backlinks", nil)
	if dl := admin.status(200, "GET", strings.TrimPrefix(str(file, "downloadURL"), p.URL), nil); string(dl.Body) != string(pngBytes) {
		t.Errorf("downloaded file: %d bytes, want the image's %d", len(dl.Body), len(pngBytes))
	}
	admin.status(200, "GET", sp+"/content", nil)
	admin.status(200, "GET", sp+"/content/pages", nil)
	admin.status(200, "GET", sp+"/content/files", nil)

	// A broken link is reported broken.
	broken := admin.status(200, "GET", sp+"/links?status=broken", nil)
	if !strings.Contains(string(broken.Body), "missing") {
		t.Errorf("broken links: %s", broken.Body)
	}

	// The PDF URL serves a PDF through the gateway.
	u := str(admin.op("getChangeRequestPDF", "GET", c+"/pdf", nil).json(t), "url")
	if !strings.HasPrefix(u, p.URL) {
		t.Fatalf("PDF URL %q is not served by the gateway", u)
	}
	pdf := admin.status(200, "GET", strings.TrimPrefix(u, p.URL), nil)
	if !strings.HasPrefix(string(pdf.Body), "%PDF") {
		t.Errorf("PDF starts with %q", pdf.Body[:min(8, len(pdf.Body))])
	}

	// Search finds a word of an imported page, and not another organization's pages.
	hits := admin.op("searchOrganizationContent", "GET", org+"/search?query=zebrafish", nil)
	if !strings.Contains(string(hits.Body), "Guide") {
		t.Errorf("search zebrafish: %s", hits.Body)
	}
	otherOrg := "/v1/orgs/" + str(items(t, other.status(200, "GET", "/v1/orgs", nil))[0], "id")
	otherSpace := "/v1/spaces/" + str(other.status(201, "POST", otherOrg+"/spaces", map[string]any{"title": "Theirs"}).json(t), "id")
	site.set("/", "Secret", `<p>The quokka is theirs.</p>`)
	ocr := otherSpace + "/change-requests/" + str(other.status(201, "POST", otherSpace+"/change-requests", map[string]any{"subject": "q"}).json(t), "id")
	other.status(201, "POST", ocr+"/content/import", map[string]any{"source": "website", "url": srv.URL + "/"})
	other.status(200, "POST", ocr+"/merge", nil)
	if r := other.op("searchOrganizationContent", "GET", otherOrg+"/search?query=quokka", nil); !strings.Contains(string(r.Body), "Secret") {
		t.Errorf("other org cannot find its own page: %s", r.Body)
	}
	if r := admin.op("searchOrganizationContent", "GET", org+"/search?query=quokka", nil); strings.Contains(string(r.Body), "quokka") || strings.Contains(string(r.Body), "Secret") {
		t.Errorf("search leaks another organization's page: %s", r.Body)
	}
	admin.status(404, "GET", otherOrg+"/search?query=quokka", nil)
	other.status(404, "GET", crs, nil)

	// A space transferred to another organization is found there, and no longer here.
	otherOrgID := strings.TrimPrefix(otherOrg, "/v1/orgs/")
	member(t, p, otherOrgID, "mover@demo.example", "admin")
	mover, _ := member(t, p, p.Credentials.DemoOrgID, "mover@demo.example", "admin")
	mover.status(200, "POST", sp+"/transfer", map[string]any{"organization": otherOrgID})
	if r := mover.op("searchOrganizationContent", "GET", otherOrg+"/search?query=zebrafish", nil); !strings.Contains(string(r.Body), "Guide") {
		t.Errorf("transferred space not found in its new organization: %s", r.Body)
	}
	if r := admin.op("searchOrganizationContent", "GET", org+"/search?query=zebrafish", nil); strings.Contains(string(r.Body), "Guide") {
		t.Errorf("transferred space still found in its old organization: %s", r.Body)
	}

	// The review flow's events reach content.events.
	waitForEvents(t, p, "content.events", map[string]string{contentapi.ChangeRequestCreated: "", contentapi.ChangeRequestUpdated: "",
		contentapi.ChangeRequestMerged: "", contentapi.RevisionCreated: "", contentapi.CommentCreated: str(cm, "id"), contentapi.SpaceUpdated: ""})
}

// flattenPages lists the pages of a {pages:[...]} body, children included.
func flattenPages(t *testing.T, r reply) []map[string]any {
	t.Helper()
	var out []map[string]any
	var walk func(v any)
	walk = func(v any) {
		ps, _ := v.([]any)
		for _, p := range ps {
			m, _ := p.(map[string]any)
			out = append(out, m)
			walk(m["pages"])
		}
	}
	walk(r.json(t)["pages"])
	return out
}
