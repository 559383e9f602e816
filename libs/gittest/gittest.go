// Package gittest serves real Git repositories over smart HTTP for tests:
// git http-backend (the git installation's own server) behind net/http/cgi,
// on a loopback httptest server, with optional basic auth. Repositories are
// made and changed with the git command.
package gittest

import (
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Server is a Git smart HTTP server of the repositories under Root.
type Server struct {
	URL            string // http://127.0.0.1:port
	Root           string
	User, Password string
	mu             sync.Mutex
	requests       []string
}

// NewServer starts a server closed with the test. With user set, every
// request must carry that user and password (401 otherwise).
func NewServer(t testing.TB, user, password string) *Server {
	t.Helper()
	backend, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git is not installed: %v", err)
	}
	s := &Server{Root: t.TempDir(), User: user, Password: password}
	h := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(backend)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + s.Root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	// The remote runs at a low CPU priority, as if on another machine: a
	// test that measures the platform's latency while a repository is
	// packed measures the platform, not the server packing it. Not the
	// lowest: at nice 19 a remote gets about 1.5 % of a processor another
	// busy process wants (other test packages in CI), and a clone of a
	// second waits a minute; at 10 it gets about a tenth.
	if nice, err := exec.LookPath("nice"); err == nil {
		h.Args = []string{"-n", "10", h.Path}
		h.Path = nice
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.requests = append(s.requests, r.Method+" "+r.URL.RequestURI())
		s.mu.Unlock()
		if user != "" {
			u, p, ok := r.BasicAuth()
			if !ok || u != user || p != password {
				w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
				http.Error(w, "unauthorized", http.StatusUnauthorized)
				return
			}
		}
		// git http-backend lets receive-pack run only for an authenticated user.
		r.Header.Del("Authorization")
		env := *h
		env.Env = append(append([]string(nil), h.Env...), "REMOTE_USER=test")
		env.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

// Requests returns the request lines the server saw.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

// RepoURL is the URL of repository name, with the server's credentials
// embedded when it has some.
func (s *Server) RepoURL(name string) string {
	if s.User == "" {
		return s.URL + "/" + name + ".git"
	}
	return strings.Replace(s.URL, "http://", "http://"+s.User+":"+s.Password+"@", 1) + "/" + name + ".git"
}

func git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// NewRepo makes the bare repository name; with files it commits them on
// branch (a path → content map) and returns the commit.
func (s *Server) NewRepo(t testing.TB, name, branch string, files map[string][]byte) string {
	t.Helper()
	bare := filepath.Join(s.Root, name+".git")
	git(t, s.Root, "init", "--bare", "--initial-branch="+branch, bare)
	git(t, bare, "config", "http.receivepack", "true")
	if len(files) == 0 {
		return ""
	}
	return s.Commit(t, name, branch, files, nil, "initial")
}

// Commit writes files and removes the paths in remove on branch of
// repository name (making the branch when it is new) and returns the commit.
func (s *Server) Commit(t testing.TB, name, branch string, files map[string][]byte, remove []string, msg string) string {
	t.Helper()
	work := t.TempDir()
	bare := filepath.Join(s.Root, name+".git")
	git(t, work, "init", "--initial-branch="+branch, ".")
	git(t, work, "remote", "add", "origin", bare)
	if git(t, work, "ls-remote", "origin", "refs/heads/"+branch) != "" {
		git(t, work, "fetch", "origin", branch)
		git(t, work, "reset", "--hard", "FETCH_HEAD")
	}
	for p, b := range files {
		full := filepath.Join(work, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range remove {
		_ = os.Remove(filepath.Join(work, filepath.FromSlash(p)))
	}
	git(t, work, "add", "-A")
	git(t, work, "commit", "-q", "--allow-empty", "-m", msg)
	git(t, work, "push", "-q", "origin", "HEAD:refs/heads/"+branch)
	return git(t, work, "rev-parse", "HEAD")
}

// Head returns the commit ref points at in repository name ("" when none).
func (s *Server) Head(t testing.TB, name, ref string) string {
	t.Helper()
	out := git(t, filepath.Join(s.Root, name+".git"), "for-each-ref", "--format=%(objectname)", ref)
	return strings.TrimSpace(out)
}

// Files returns the files of ref's head commit in repository name.
func (s *Server) Files(t testing.TB, name, ref string) map[string][]byte {
	t.Helper()
	bare := filepath.Join(s.Root, name+".git")
	list := git(t, bare, "ls-tree", "-r", "--name-only", ref)
	out := map[string][]byte{}
	for _, p := range strings.Split(list, "\n") {
		if p == "" {
			continue
		}
		cmd := exec.Command("git", "show", ref+":"+p)
		cmd.Dir = bare
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("git show %s:%s: %v", ref, p, err)
		}
		out[p] = b
	}
	return out
}

// Message returns the message of ref's head commit.
func (s *Server) Message(t testing.TB, name, ref string) string {
	t.Helper()
	return git(t, filepath.Join(s.Root, name+".git"), "log", "-1", "--format=%B", ref)
}

// Author returns "Name <email>" of ref's head commit.
func (s *Server) Author(t testing.TB, name, ref string) string {
	t.Helper()
	return git(t, filepath.Join(s.Root, name+".git"), "log", "-1", "--format=%an <%ae>", ref)
}

// Paths returns the sorted keys of a file map.
func Paths(files map[string][]byte) []string {
	out := make([]string, 0, len(files))
	for p := range files {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
