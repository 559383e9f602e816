package gitrepo

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/gittest"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-git/v5/plumbing/object"
)

var (
	open = urlguard.Guard{AllowPrivate: true}
	lim  = Limits{MaxBytes: 64 << 20, Timeout: 30 * time.Second}
	all  = func(string) bool { return true }
)

func remote(t *testing.T, raw string) Remote {
	t.Helper()
	r, err := ParseRemote(raw, open)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// fetch clones ref and reads its files for which want is true.
func fetch(ctx context.Context, guard urlguard.Guard, r Remote, ref string, lim Limits, want func(string) bool) (string, map[string][]byte, error) {
	c, err := Clone(ctx, guard, r, ref, lim)
	if err != nil {
		return "", nil, err
	}
	defer c.Close()
	entries, err := c.Files(ctx, want)
	if err != nil {
		return "", nil, err
	}
	out := map[string][]byte{}
	for _, e := range entries {
		if out[e.Path], err = c.ReadFile(e, 2<<20); err != nil {
			return "", nil, err
		}
	}
	return c.Commit, out, nil
}

func TestParseRemoteSplitsCredentials(t *testing.T) {
	t.Parallel()
	r := remote(t, "https://ada:s3cret-pw@git.example.com/team/docs.git")
	if r.URL != "https://git.example.com/team/docs.git" || !r.HasCredentials() {
		t.Fatalf("got %+v", r)
	}
	if got := r.Redact("auth failed for ada:s3cret-pw"); strings.Contains(got, "s3cret-pw") {
		t.Fatalf("Redact left the password: %q", got)
	}
	for _, bad := range []string{"ssh://git@example.com/x.git", "file:///tmp/x", "git@example.com:x.git", "http://127.0.0.1/x.git", "http://10.0.0.1/x.git"} {
		if _, err := ParseRemote(bad, urlguard.Guard{}); err == nil {
			t.Errorf("ParseRemote(%q) accepted it", bad)
		}
	}
}

func TestCheckRef(t *testing.T) {
	t.Parallel()
	for ref, ok := range map[string]bool{"refs/heads/main": true, "refs/heads/feature/x": true, "main": false,
		"refs/heads/": false, "refs/heads/a..b": false, "refs/tags/v1": false, "refs/heads/x y": false} {
		if err := CheckRef(ref, false); (err == nil) != ok {
			t.Errorf("CheckRef(%q) = %v", ref, err)
		}
	}
}

func TestFetchAndPushWithCredentials(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "ada", "s3cret-pw")
	first := srv.NewRepo(t, "docs", "main", map[string][]byte{"README.md": []byte("# Hi\n"), "src/main.go": []byte("package main\n")})
	r := remote(t, srv.RepoURL("docs"))
	ctx := context.Background()

	commit, files, err := fetch(ctx, open, r, "refs/heads/main", lim, func(p string) bool { return strings.HasSuffix(p, ".md") })
	if err != nil {
		t.Fatal(err)
	}
	if commit != first || string(files["README.md"]) != "# Hi\n" || len(files) != 1 {
		t.Fatalf("commit %s, files %v", commit, files)
	}

	write := func(fs Files) error {
		list, err := fs.List()
		if err != nil {
			return err
		}
		if strings.Join(list, ",") != "README.md,src/main.go" {
			t.Errorf("the worktree lists %v", list)
		}
		return fs.Write("docs/page.md", []byte("# Page\n"))
	}
	author := object.Signature{Name: "Ada", Email: "ada@example.com"}
	oid, err := Push(ctx, open, r, Commit{Ref: "refs/heads/main", Base: first, Message: "export", Author: author, Write: write}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Head(t, "docs", "refs/heads/main"); got != oid {
		t.Fatalf("head %s, want %s", got, oid)
	}
	if got := srv.Author(t, "docs", "refs/heads/main"); got != "Ada <ada@example.com>" {
		t.Fatalf("author %q", got)
	}

	// Someone pushes; an export based on the older commit must not overwrite it.
	srv.Commit(t, "docs", "main", map[string][]byte{"other.md": []byte("x")}, nil, "theirs")
	_, err = Push(ctx, open, r, Commit{Ref: "refs/heads/main", Base: oid, Message: "again", Author: author,
		Write: func(fs Files) error { return fs.Write("docs/page.md", []byte("# Page 2\n")) }}, lim)
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("push to a moved branch: %v, want ErrDiverged", err)
	}
	forced, err := Push(ctx, open, r, Commit{Ref: "refs/heads/main", Base: oid, Message: "again", Author: author, Force: true,
		Write: func(fs Files) error { return fs.Write("docs/page.md", []byte("# Page 2\n")) }}, lim)
	if err != nil {
		t.Fatal(err)
	}
	if got := srv.Head(t, "docs", "refs/heads/main"); got != forced {
		t.Fatalf("head %s after force, want %s", got, forced)
	}
}

func TestWrongCredentialsAndLimits(t *testing.T) {
	t.Parallel()
	srv := gittest.NewServer(t, "ada", "s3cret-pw")
	noise := make([]byte, 200_000)
	_, _ = rand.Read(noise)
	srv.NewRepo(t, "docs", "main", map[string][]byte{"README.md": []byte(strings.Repeat("x", 200_000)), "noise.bin": noise})
	ctx := context.Background()
	bad := remote(t, strings.Replace(srv.RepoURL("docs"), "s3cret-pw", "wrong-pw", 1))
	_, _, err := fetch(ctx, open, bad, "refs/heads/main", lim, all)
	if err == nil || strings.Contains(err.Error(), "wrong-pw") {
		t.Fatalf("fetch with a wrong password: %v", err)
	}
	r := remote(t, srv.RepoURL("docs"))
	if _, _, err := fetch(ctx, open, r, "refs/heads/main", Limits{MaxBytes: 10_000, Timeout: time.Minute}, all); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("fetch over the byte limit: %v, want ErrTooLarge", err)
	}
	_, _, err = fetch(ctx, open, r, "refs/heads/main", Limits{MaxBytes: 1 << 20, MaxInflatedBytes: 300_000, Timeout: time.Minute}, all)
	if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "more than 293.0 KiB uncompressed") {
		t.Fatalf("fetch over the uncompressed limit: %v, want ErrTooLarge saying so", err)
	}
	if _, _, err := fetch(ctx, urlguard.Guard{}, r, "refs/heads/main", lim, all); !errors.Is(err, ErrBlocked) {
		t.Fatalf("fetch from loopback without AllowPrivate: %v, want ErrBlocked", err)
	}
}
