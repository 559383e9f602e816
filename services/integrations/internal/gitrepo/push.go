package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/revlist"
	"github.com/go-git/go-git/v5/plumbing/transport"
)

// ErrDiverged is an export to a branch that moved away from the commit the
// space last synced with, without force.
var ErrDiverged = errors.New("the branch has commits the space does not have (it moved since the last sync); import them first, or export with force")

// Commit is what an export writes.
type Commit struct {
	Ref     string
	Base    string // the commit the space last synced with on this remote and ref ("": the branch's head)
	Message string
	Author  object.Signature
	Force   bool
	// From is the branch a new branch (Ref not on the remote yet) starts
	// from: the one the space last synced with on this remote. Without it
	// a new branch starts with no history.
	From string
	// Write changes the worktree: it removes the files the space no longer
	// has and writes the new ones.
	Write func(fs Files) error
}

// Files is the worktree an export writes into, on disk.
type Files interface {
	// List lists the worktree's files.
	List() ([]string, error)
	Read(path string) ([]byte, error)
	Remove(path string) error
	Write(path string, data []byte) error
	// WriteFrom writes the bytes of r to path, streamed.
	WriteFrom(path string, r io.Reader) error
}

// Push clones ref (its head commit only; for a new branch, c.From's) to a
// temporary directory, lets
// c.Write change the files, commits on the head and pushes. When the head is
// not c.Base the branch moved since the space last synced: without c.Force
// that fails with ErrDiverged; with it the commit goes on the head all the
// same (their commits stay in the history; the files the export writes are
// the space's). It returns the new commit (the head when nothing changed).
// The clone is bounded as Clone's is, and removed when Push returns.
func Push(ctx context.Context, guard urlguard.Guard, r Remote, c Commit, lim Limits) (string, error) {
	lim = lim.withDefaults()
	ctx, cancel, o := begin(ctx, guard, lim)
	defer cancel()
	dir, err := os.MkdirTemp(lim.TempDir, "git-export-")
	if err != nil {
		return "", fmt.Errorf("make the clone's directory: %w", err)
	}
	defer os.RemoveAll(dir)
	ref := plumbing.ReferenceName(c.Ref)
	var st storage
	defer func() {
		if st.Storage != nil {
			_ = st.Close()
		}
	}()
	// clone clones from (its head commit, checked out) into dir, afresh.
	clone := func(from plumbing.ReferenceName) (*git.Repository, error) {
		if st.Storage != nil {
			_ = st.Close()
		}
		if err := os.RemoveAll(dir); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		var q *quota
		st, q = newStorage(filepath.Join(dir, ".git"), lim)
		repo, err := git.CloneContext(ctx, st, osfs.New(dir, osfs.WithBoundOS()), &git.CloneOptions{
			URL: r.URL, Auth: auth(r), ReferenceName: from, SingleBranch: true, Depth: 1, Tags: git.NoTags,
		})
		if qerr := q.Err(); qerr != nil {
			return nil, qerr
		}
		return repo, err
	}
	repo, err := clone(ref)
	fresh, created := false, false
	if err != nil && (errors.Is(err, transport.ErrEmptyRemoteRepository) || isNoRef(err)) && c.From != "" && c.From != c.Ref {
		// A new branch: it starts from the head of c.From.
		if repo, err = clone(plumbing.ReferenceName(c.From)); err == nil {
			created = true
			h, err := repo.Head()
			if err != nil {
				return "", err
			}
			if err := repo.Storer.SetReference(plumbing.NewHashReference(ref, h.Hash())); err != nil {
				return "", err
			}
			if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, ref)); err != nil {
				return "", err
			}
		}
	}
	var le *limitError
	if errors.As(err, &le) {
		return "", le
	}
	if err != nil {
		if !errors.Is(err, transport.ErrEmptyRemoteRepository) && !isNoRef(err) {
			return "", explain(ctx, r, "clone", o.cause(err))
		}
		// An empty repository, or one without this branch: start it.
		fresh = true
		if err := os.RemoveAll(dir); err != nil {
			return "", err
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", err
		}
		_ = st.Close()
		st, _ = newStorage(filepath.Join(dir, ".git"), lim)
		if repo, err = git.Init(st, osfs.New(dir, osfs.WithBoundOS())); err != nil {
			return "", err
		}
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{r.URL}}); err != nil {
			return "", err
		}
		if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, ref)); err != nil {
			return "", err
		}
	}
	// The blobs the export stages are kept as plain files (see rawBlobs).
	raw, err := newRawBlobs(st, filepath.Join(dir, ".git", "export-blobs"))
	if err != nil {
		return "", err
	}
	if repo, err = git.Open(raw, osfs.New(dir, osfs.WithBoundOS())); err != nil {
		return "", err
	}
	// The pack pushed is not searched for deltas: that search holds a
	// window of objects in memory and costs far more than the bytes it
	// saves on images, which are most of a space's bytes.
	cfg, err := repo.Config()
	if err != nil {
		return "", err
	}
	cfg.Pack.Window = 0
	if err := repo.SetConfig(cfg); err != nil {
		return "", err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", err
	}
	var head plumbing.Hash
	if !fresh {
		h, err := repo.Head()
		if err != nil {
			return "", err
		}
		head = h.Hash()
		if c.Base != "" && head.String() != c.Base && !c.Force {
			return "", ErrDiverged
		}
	}
	if err := c.Write(worktree{fs: wt.Filesystem}); err != nil {
		return "", err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return "", fmt.Errorf("stage files: %w", err)
	}
	author := c.Author
	if author.When.IsZero() {
		author.When = time.Now()
	}
	hash, err := wt.Commit(c.Message, &git.CommitOptions{Author: &author, AllowEmptyCommits: true})
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
	if !fresh && sameTree(repo, hash, head) {
		if !created {
			return head.String(), nil // nothing to export
		}
		// A new branch with the files of the one it starts from: it is that
		// branch's head.
		hash = head
		if err := repo.Storer.SetReference(plumbing.NewHashReference(ref, head)); err != nil {
			return "", err
		}
	}
	// The pack sent: the objects of the commit that the remote does not
	// have, as go-git finds them (its own pack is used when they differ).
	haves, err := repo.Storer.Shallow()
	if err != nil {
		return "", err
	}
	if !fresh {
		haves = append(haves, head)
	}
	hashes, err := revlist.Objects(repo.Storer, []plumbing.Hash{hash}, haves)
	if err != nil {
		return "", err
	}
	o.pack = &pack{store: repo.Storer, hashes: hashes}
	spec := config.RefSpec(fmt.Sprintf("%s:%s", ref, ref))
	if c.Force {
		spec = "+" + spec
	}
	err = repo.PushContext(ctx, &git.PushOptions{RemoteName: "origin", Auth: auth(r), RefSpecs: []config.RefSpec{spec}, Force: c.Force})
	switch {
	case err == nil || errors.Is(err, git.NoErrAlreadyUpToDate):
		return hash.String(), nil
	case strings.Contains(err.Error(), "non-fast-forward"):
		return "", ErrDiverged
	}
	return "", explain(ctx, r, "push", o.cause(err))
}

// sameTree reports whether commits a and b have the same tree.
func sameTree(repo *git.Repository, a, b plumbing.Hash) bool {
	ca, err := repo.CommitObject(a)
	if err != nil {
		return false
	}
	cb, err := repo.CommitObject(b)
	return err == nil && ca.TreeHash == cb.TreeHash
}

func isNoRef(err error) bool {
	return errors.Is(err, plumbing.ErrReferenceNotFound) || strings.Contains(err.Error(), "couldn't find remote ref")
}

type worktree struct{ fs billy.Filesystem }

func (w worktree) List() ([]string, error) {
	var out []string
	var walk func(dir string) error
	walk = func(dir string) error {
		infos, err := w.fs.ReadDir(dir)
		if err != nil {
			return err
		}
		for _, info := range infos {
			p := path.Join(dir, info.Name())
			switch {
			case dir == "" && info.Name() == ".git":
			case info.IsDir():
				if err := walk(p); err != nil {
					return err
				}
			case info.Mode().IsRegular():
				out = append(out, p)
			}
		}
		return nil
	}
	return out, walk("")
}

func (w worktree) Remove(p string) error { return w.fs.Remove(p) }

func (w worktree) Read(p string) ([]byte, error) { return util.ReadFile(w.fs, p) }

func (w worktree) Write(p string, data []byte) error {
	if err := w.fs.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	return util.WriteFile(w.fs, p, data, 0o644)
}

func (w worktree) WriteFrom(p string, r io.Reader) error {
	if err := w.fs.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := w.fs.OpenFile(p, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
