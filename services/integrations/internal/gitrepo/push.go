package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/util"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
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
	// Write changes the worktree: it removes the files the space no longer
	// has and writes the new ones.
	Write func(fs Files) error
}

// Files is the worktree an export writes into.
type Files interface {
	// List lists the worktree's files.
	List() ([]string, error)
	Read(path string) ([]byte, error)
	Remove(path string) error
	Write(path string, data []byte) error
}

// Push clones ref into memory, moves it to c.Base when set, lets c.Write
// change the files, commits and pushes; without c.Force a remote branch
// that is not an ancestor of the commit fails with ErrDiverged. It returns
// the new commit (the base when nothing changed).
func Push(ctx context.Context, guard urlguard.Guard, r Remote, c Commit, lim Limits) (string, error) {
	ctx, cancel, _ := begin(ctx, guard, lim)
	defer cancel()
	fs := memfs.New()
	ref := plumbing.ReferenceName(c.Ref)
	repo, err := git.CloneContext(ctx, memory.NewStorage(), fs, &git.CloneOptions{
		URL: r.URL, Auth: auth(r), ReferenceName: ref, SingleBranch: true, Tags: git.NoTags,
	})
	fresh := false
	if err != nil {
		if !errors.Is(err, transport.ErrEmptyRemoteRepository) && !isNoRef(err) {
			return "", explain(ctx, r, "clone", err)
		}
		// An empty repository, or one without this branch: start it.
		fresh = true
		fs = memfs.New()
		if repo, err = git.Init(memory.NewStorage(), fs); err != nil {
			return "", err
		}
		if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{r.URL}}); err != nil {
			return "", err
		}
		if err := repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, ref)); err != nil {
			return "", err
		}
	}
	wt, err := repo.Worktree()
	if err != nil {
		return "", err
	}
	if !fresh && c.Base != "" {
		base := plumbing.NewHash(c.Base)
		if _, err := repo.CommitObject(base); err == nil {
			if err := wt.Reset(&git.ResetOptions{Commit: base, Mode: git.HardReset}); err != nil {
				return "", fmt.Errorf("reset to the last synced commit: %w", err)
			}
		}
	}
	if err := c.Write(worktree{fs: fs}); err != nil {
		return "", err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return "", fmt.Errorf("stage files: %w", err)
	}
	st, err := wt.Status()
	if err != nil {
		return "", err
	}
	if st.IsClean() && !fresh {
		head, err := repo.Head()
		if err != nil {
			return "", err
		}
		if remote, err := repo.Reference(plumbing.NewRemoteReferenceName("origin", ref.Short()), true); err == nil && remote.Hash() == head.Hash() {
			return head.Hash().String(), nil // nothing to export
		}
	}
	author := c.Author
	if author.When.IsZero() {
		author.When = time.Now()
	}
	hash, err := wt.Commit(c.Message, &git.CommitOptions{Author: &author, AllowEmptyCommits: true})
	if err != nil {
		return "", fmt.Errorf("commit: %w", err)
	}
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
	return "", explain(ctx, r, "push", err)
}

func isNoRef(err error) bool {
	return errors.Is(err, plumbing.ErrReferenceNotFound) || strings.Contains(err.Error(), "couldn't find remote ref")
}

type worktree struct{ fs billy.Filesystem }

func (w worktree) List() ([]string, error) {
	var out []string
	err := util.Walk(w.fs, "", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() {
			if p == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		out = append(out, filepath.ToSlash(p))
		return nil
	})
	return out, err
}

func (w worktree) Remove(p string) error { return w.fs.Remove(p) }

func (w worktree) Read(p string) ([]byte, error) { return util.ReadFile(w.fs, p) }

func (w worktree) Write(p string, data []byte) error {
	if err := w.fs.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	return util.WriteFile(w.fs, p, data, 0o644)
}
