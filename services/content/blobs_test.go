package content_test

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/internaltoken"
)

// raw sends a request with a raw body and headers as the platform service
// tok names, and returns the answer.
func (s *service) raw(t *testing.T, tok, method, path string, body []byte, headers ...string) reply {
	t.Helper()
	req, err := http.NewRequestWithContext(context.Background(), method, s.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(internaltoken.Header, tok)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return reply{status: res.StatusCode, header: res.Header, body: b}
}

// The internal file API: bytes stored once per organization, a revision's
// files read in one tar stream, a file served like a static file, and
// the organization's storage counted.
func TestInternalFiles(t *testing.T) {
	s := startService(t, time.Hour)
	a := s.as("ann", "orgA", "admin")
	sp := strings.TrimPrefix(a.space("Files"), "/v1/spaces/")
	tok, err := s.signer.Mint("content", internaltoken.Principal{Service: "integrations"})
	if err != nil {
		t.Fatal(err)
	}
	git := "/internal/v1/spaces/" + sp + "/git"
	datas := map[string][]byte{"a.png": []byte("first image"), "b.bin": bytes.Repeat([]byte("b"), 3<<20), "c.png": []byte("first image")}
	var files []map[string]any
	for _, name := range []string{"a.png", "b.bin", "c.png"} {
		r := s.raw(t, tok, "POST", git+"/blobs?name="+name+"&contentType=image/png", datas[name])
		if r.status != 201 {
			t.Fatalf("POST blobs %s: %d %s", name, r.status, r.body)
		}
		var v struct {
			Blob string `json:"blob"`
			Size int64  `json:"size"`
		}
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatal(err)
		}
		files = append(files, map[string]any{"name": name, "contentType": "image/png", "size": v.Size, "blob": v.Blob})
	}
	if files[0]["blob"] != files[2]["blob"] {
		t.Errorf("the same bytes stored as %v and %v", files[0]["blob"], files[2]["blob"])
	}
	cur := s.raw(t, tok, "GET", git+"/current", nil)
	var current struct {
		Revision string `json:"revision"`
	}
	_ = json.Unmarshal(cur.body, &current)
	body, _ := json.Marshal(map[string]any{"parent": current.Revision, "pages": []map[string]any{
		{"kind": "document", "title": "Home", "slug": "home", "markdown": "![a](a.png)"}}, "files": files})
	r := s.raw(t, tok, "POST", git+"/revisions", body, "Content-Type", "application/json")
	if r.status != 201 {
		t.Fatalf("POST revisions: %d %s", r.status, r.body)
	}
	var created struct {
		Revision string `json:"revision"`
	}
	_ = json.Unmarshal(r.body, &created)
	content := s.raw(t, tok, "GET", git+"/content", nil)
	var cv struct {
		Files []struct {
			ID, Name, SHA256 string
		} `json:"files"`
	}
	if err := json.Unmarshal(content.body, &cv); err != nil || len(cv.Files) != 3 {
		t.Fatalf("content files: %s", content.body)
	}

	// All files in one tar stream, in the order asked.
	var ids []string
	byID := map[string]string{}
	for i := len(cv.Files) - 1; i >= 0; i-- {
		ids = append(ids, cv.Files[i].ID)
		byID[cv.Files[i].ID] = cv.Files[i].Name
	}
	ask, _ := json.Marshal(map[string]any{"ids": ids})
	r = s.raw(t, tok, "POST", git+"/files/"+created.Revision, ask, "Content-Type", "application/json")
	if r.status != 200 || r.header.Get("Content-Type") != "application/x-tar" {
		t.Fatalf("POST files: %d %s", r.status, r.header.Get("Content-Type"))
	}
	tr := tar.NewReader(bytes.NewReader(r.body))
	for _, id := range ids {
		h, err := tr.Next()
		if err != nil || h.Name != id {
			t.Fatalf("entry for %s: %v, %v", id, h, err)
		}
		got, _ := io.ReadAll(tr)
		if !bytes.Equal(got, datas[byID[id]]) {
			t.Errorf("%s: %d bytes, want %d", byID[id], len(got), len(datas[byID[id]]))
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("after the files: %v, want the end", err)
	}
	bad, _ := json.Marshal(map[string]any{"ids": []string{ids[0], "nope"}})
	if r := s.raw(t, tok, "POST", git+"/files/"+created.Revision, bad, "Content-Type", "application/json"); r.status != 400 || !strings.Contains(string(r.body), "ids[1]") {
		t.Errorf("unknown id: %d %s, want 400 naming ids[1]", r.status, r.body)
	}

	// One file: ETag, 304, Range.
	f := cv.Files[0]
	sum := sha256.Sum256(datas[f.Name])
	if f.SHA256 != hex.EncodeToString(sum[:]) {
		t.Errorf("sha256 of %s = %s", f.Name, f.SHA256)
	}
	// (the readers' route, for the sites service)
	reader, err := s.signer.Mint("content", internaltoken.Principal{Service: "sites"})
	if err != nil {
		t.Fatal(err)
	}
	path := "/internal/v1/spaces/" + sp + "/files/" + created.Revision + "/" + f.ID
	if r := s.raw(t, tok, "GET", path, nil); r.status != 403 {
		t.Errorf("GET file with the integrations service's token: %d", r.status)
	}
	tok = reader
	one := s.raw(t, tok, "GET", path, nil)
	if one.status != 200 || one.header.Get("ETag") != `"`+f.SHA256+`"` {
		t.Fatalf("GET file: %d ETag %q", one.status, one.header.Get("ETag"))
	}
	if r := s.raw(t, tok, "GET", path, nil, "If-None-Match", `"`+f.SHA256+`"`); r.status != 304 || len(r.body) != 0 {
		t.Errorf("revalidation: %d with %d bytes", r.status, len(r.body))
	}
	if r := s.raw(t, tok, "GET", path, nil, "Range", "bytes=0-3"); r.status != 206 || string(r.body) != string(datas[f.Name][:4]) {
		t.Errorf("Range: %d %q", r.status, r.body)
	}

	// The organization's storage: each distinct file once, and the page.
	r = s.raw(t, tok, "GET", "/internal/v1/orgs/orgA/storage", nil)
	var u struct {
		FileBytes int64 `json:"fileBytes"`
		PageBytes int64 `json:"pageBytes"`
	}
	if err := json.Unmarshal(r.body, &u); err != nil || r.status != 200 {
		t.Fatalf("storage: %d %s", r.status, r.body)
	}
	if want := int64(len(datas["a.png"]) + len(datas["b.bin"])); u.FileBytes != want || u.PageBytes < int64(len("![a](a.png)")) {
		t.Errorf("storage = %+v, want %d bytes of files and the page's markdown", u, want)
	}
}
