package local

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/pktline"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/server"
	"github.com/go-git/go-git/v5/storage/memory"
	"go.yaml.in/yaml/v3"
)

// The platform's own documentation, published on first start: the
// repository's .gitbook.yaml and the docs folder it names, committed to an
// in-memory Git repository, served over smart HTTP on loopback and imported
// through Git sync like any GitBook repository.
const (
	docsSpaceTitle = "docspub documentation"
	docsBranch     = "refs/heads/main"
	// maxDocsBytes bounds what the runner reads from the docs folder.
	maxDocsBytes = 64 << 20
	// docsTimeout bounds the docs' import and publication at start.
	docsTimeout = 3 * time.Minute
)

// docsFiles reads repo's .gitbook.yaml and every file under the root it
// names (path → bytes, slash-separated, relative to repo). No .gitbook.yaml
// is fs.ErrNotExist.
func docsFiles(repo string) (map[string][]byte, error) {
	spec, err := os.ReadFile(filepath.Join(repo, ".gitbook.yaml"))
	if err != nil {
		return nil, err
	}
	var c struct {
		Root string `yaml:"root"`
	}
	if err := yaml.Unmarshal(spec, &c); err != nil {
		return nil, fmt.Errorf(".gitbook.yaml: %w", err)
	}
	root := strings.Trim(path.Clean("/"+strings.TrimSpace(c.Root)), "/")
	files := map[string][]byte{".gitbook.yaml": spec}
	total := int64(len(spec))
	fsys := os.DirFS(repo)
	err = fs.WalkDir(fsys, cmp.Or(root, "."), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if total += int64(len(b)); total > maxDocsBytes {
			return fmt.Errorf("the docs under %s are larger than %d bytes", root, maxDocsBytes)
		}
		files[p] = b
		return err
	})
	return files, err
}

// commitDocs commits files on main of a new in-memory repository.
func commitDocs(files map[string][]byte) (storer.Storer, error) {
	st := memory.NewStorage()
	wt := memfs.New()
	repo, err := git.Init(st, wt)
	if err != nil {
		return nil, err
	}
	for p, b := range files {
		f, err := wt.Create(p)
		if err != nil {
			return nil, err
		}
		if _, err := f.Write(b); err != nil {
			return nil, err
		}
		if err := f.Close(); err != nil {
			return nil, err
		}
	}
	w, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	if err := w.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return nil, err
	}
	sig := &object.Signature{Name: "docspub", Email: "docs@docspub.local", When: time.Now()}
	head, err := w.Commit("The platform's documentation", &git.CommitOptions{Author: sig, Committer: sig})
	if err != nil {
		return nil, err
	}
	if err := st.SetReference(plumbing.NewHashReference(docsBranch, head)); err != nil {
		return nil, err
	}
	return st, st.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, docsBranch))
}

// serveGit serves the repository in st read-only over Git's smart HTTP
// protocol (upload-pack) at <url>/docs.git, with go-git's server. Its
// one commit has no parent, so a shallow clone of depth 1 is the whole
// history: the server advertises "shallow" and sends everything.
func (p *Platform) serveGit(ctx context.Context, st storer.Storer) (string, error) {
	srv := server.NewServer(oneRepo{st})
	ep, err := transport.NewEndpoint("/docs.git")
	if err != nil {
		return "", err
	}
	session := func(r *http.Request) (transport.UploadPackSession, *packp.AdvRefs, error) {
		s, err := srv.NewUploadPackSession(ep, nil)
		if err != nil {
			return nil, nil, err
		}
		refs, err := s.AdvertisedReferencesContext(r.Context())
		if err != nil {
			return nil, nil, err
		}
		return s, refs, refs.Capabilities.Set(capability.Shallow)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /docs.git/info/refs", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("service") != "git-upload-pack" {
			http.Error(w, "only git-upload-pack", http.StatusForbidden)
			return
		}
		_, refs, err := session(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		refs.Prefix = [][]byte{[]byte("# service=git-upload-pack"), pktline.Flush}
		w.Header().Set("Content-Type", "application/x-git-upload-pack-advertisement")
		_ = refs.Encode(w)
	})
	mux.HandleFunc("POST /docs.git/git-upload-pack", func(w http.ResponseWriter, r *http.Request) {
		req := packp.NewUploadPackRequest()
		if err := req.Decode(http.MaxBytesReader(w, r.Body, 1<<20)); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s, _, err := session(r)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		res, err := s.UploadPack(r.Context(), req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		defer res.Close()
		w.Header().Set("Content-Type", "application/x-git-upload-pack-result")
		_ = res.Encode(w)
	})
	ln := p.docsLn
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	p.goRun("docs git server", func() error {
		if p.endDocsAllow != nil {
			defer p.endDocsAllow() // integrations may no longer reach its address
		}
		go func() { <-ctx.Done(); _ = hs.Close() }()
		if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	return "http://" + ln.Addr().String() + "/docs.git", nil
}

// oneRepo serves its storer whatever the endpoint.
type oneRepo struct{ storer.Storer }

func (r oneRepo) Load(*transport.Endpoint) (storer.Storer, error) { return r.Storer, nil }

// api calls the gateway as the demo admin: method path body → JSON answer
// (nil out: none), an error for any status but want.
func (p *Platform) api(ctx context.Context, method, path string, body, out any, want int) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, p.URL+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.Credentials.DemoAdminToken)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s = %d: %s", method, path, res.StatusCode, b)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(b, out)
}

// importDocs imports the repository at url into the demo organization's
// docs space (made on the first start) through Git sync and waits for the
// job.
func (p *Platform) importDocs(ctx context.Context, url string) error {
	c := &p.Credentials
	if c.DocsSpaceID == "" {
		var space struct{ ID string }
		if err := p.api(ctx, "POST", "/v1/orgs/"+c.DemoOrgID+"/spaces", map[string]any{"title": docsSpaceTitle}, &space, http.StatusCreated); err != nil {
			return err
		}
		c.DocsSpaceID = space.ID
	}
	space := "/v1/spaces/" + c.DocsSpaceID
	if err := p.api(ctx, "POST", space+"/git/import", map[string]any{"url": url, "ref": docsBranch}, nil, http.StatusNoContent); err != nil {
		return err
	}
	return p.waitGit(ctx, space)
}

// publishSite publishes the docs space on its site (made once) and records
// the site's published URL (the gateway's address may have changed).
func (p *Platform) publishSite(ctx context.Context) error {
	c := &p.Credentials
	org := "/v1/orgs/" + c.DemoOrgID
	if c.DocsSiteID == "" {
		var site struct{ ID string }
		if err := p.api(ctx, "POST", org+"/sites", map[string]any{"title": "docspub", "spaces": []string{c.DocsSpaceID}}, &site, http.StatusCreated); err != nil {
			return err
		}
		c.DocsSiteID = site.ID
	}
	var site struct {
		URLs struct{ Published string } `json:"urls"`
	}
	if err := p.api(ctx, "POST", org+"/sites/"+c.DocsSiteID+"/publish", nil, &site, http.StatusOK); err != nil {
		return err
	}
	c.DocsURL = site.URLs.Published
	return nil
}

// waitGit polls the space's Git sync until its operation ends.
func (p *Platform) waitGit(ctx context.Context, space string) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		var info struct {
			Operation struct{ State, Error string }
		}
		err := p.api(ctx, "GET", space+"/git/info", nil, &info, http.StatusOK)
		switch {
		case err == nil && info.Operation.State == "success":
			return nil
		case err == nil && info.Operation.State != "running" && info.Operation.State != "":
			return fmt.Errorf("docs import ended %s: %s", info.Operation.State, info.Operation.Error)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("docs import: %w (last: %v)", ctx.Err(), err)
		case <-tick.C:
		}
	}
}

// readDocs reads the docs of repo ("": none); a repository without
// .gitbook.yaml has none either, and docs that the credentials file says
// were published as they are need no import.
func readDocs(repo, credsPath string, log *slog.Logger) (map[string][]byte, error) {
	if repo == "" {
		return nil, nil
	}
	files, err := docsFiles(repo)
	if errors.Is(err, fs.ErrNotExist) {
		log.Info("no .gitbook.yaml: no docs site", "repo", repo)
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("docs: %w", err)
	}
	if c, err := readCredentials(credsPath); err == nil && c.DocsURL != "" && c.DocsDigest == docsDigest(files) {
		return nil, nil
	}
	return files, nil
}

// docsDigest is the SHA-256 of the docs' paths and bytes.
func docsDigest(files map[string][]byte) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		fmt.Fprintf(h, "%s\x00%d\x00", p, len(files[p]))
		h.Write(files[p])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// publishDocs imports changed docs (p.docs) and publishes their site,
// recording its URL with the credentials. The docs are committed and served
// over Git on loopback (p.docsLn, the one private address integrations may
// reach, until the server closes) for the time of their import. A failure
// is logged: the platform runs without its docs.
func (p *Platform) publishDocs(ctx, runCtx context.Context) {
	if p.docs == nil && p.Credentials.DocsSiteID == "" {
		return
	}
	begin := time.Now()
	ctx, cancel := context.WithTimeout(ctx, docsTimeout)
	defer cancel()
	err := func() error {
		if p.docs != nil {
			if p.endDocsAllow != nil {
				defer p.endDocsAllow() // after the server's stop: runs second
			}
			gitCtx, stop := context.WithCancel(runCtx)
			defer stop()
			st, err := commitDocs(p.docs)
			if err != nil {
				return err
			}
			url, err := p.serveGit(gitCtx, st)
			if err != nil {
				return err
			}
			if err := p.importDocs(ctx, url); err != nil {
				return err
			}
			p.Credentials.DocsDigest = docsDigest(p.docs)
		}
		if err := p.publishSite(ctx); err != nil {
			return err
		}
		return writeCredentials(p.CredsPath, p.Credentials)
	}()
	if err != nil {
		p.log.Error("the docs site was not published", "err", err)
	} else {
		p.log.Info("docs published", "site", p.Credentials.DocsURL, "imported", p.docs != nil, "took", time.Since(begin).Round(time.Millisecond).String())
	}
}
