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
}

// ErrCorrupt is a file whose bytes are not the ones Git names: read from
// a clone (the import stops), or changed between the bytes an export
// wrote (or its clone's) and the objects it would push (nothing is pushed).
var ErrCorrupt = errors.New("a file's bytes are not the ones Git names")

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
	x := &exportClone{ctx: ctx, remote: r, lim: lim, op: o, dir: dir, ref: plumbing.ReferenceName(c.Ref)}
	defer x.close()
	if err := x.open(c); err != nil {
		return "", err
	}
	wt, err := x.reopen()
	if err != nil {
		return "", err
	}
	var head plumbing.Hash
	if !x.fresh {
		if head, err = x.head(c); err != nil {
			return "", err
		}
	}
	written, err := writeAndCommit(wt, c)
	if err != nil {
		return "", err
	}
	hash, err := x.verify(written, head)
	if err != nil {
		return "", err
	}
	if !x.fresh && sameTree(x.repo, hash, head) {
		if !x.created {
			return head.String(), nil // nothing to export
		}
		// A new branch with the files of the one it starts from: it is that
		// branch's head.
		hash = head
		if err := x.repo.Storer.SetReference(plumbing.NewHashReference(x.ref, head)); err != nil {
			return "", err
		}
	}
	return x.push(hash, head, c.Force, written.names())
}

// exportClone is the temporary clone an export writes, commits and pushes
// from.
type exportClone struct {
	ctx    context.Context
	remote Remote
	lim    Limits
	op     *op
	dir    string
	ref    plumbing.ReferenceName
	st     storage
	repo   *git.Repository
	// fresh: the remote had neither the branch nor the one it starts from;
	// the clone is a repository started empty.
	fresh bool
	// created: the branch is new and starts from the head of Commit.From.
	created bool
}

// close closes the clone's storage, if it has one.
func (x *exportClone) close() {
	if x.st.Storage != nil {
		_ = x.st.Close()
	}
}

// clone clones from (its head commit, checked out) into the clone's
// directory, afresh.
func (x *exportClone) clone(from plumbing.ReferenceName) (*git.Repository, error) {
	x.close()
	if err := os.RemoveAll(x.dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(x.dir, 0o700); err != nil {
		return nil, err
	}
	var q *quota
	x.st, q = newStorage(filepath.Join(x.dir, ".git"), x.lim)
	repo, err := git.CloneContext(x.ctx, x.st, osfs.New(x.dir, osfs.WithBoundOS()), &git.CloneOptions{
		URL: x.remote.URL, Auth: auth(x.remote), ReferenceName: from, SingleBranch: true, Depth: 1, Tags: git.NoTags,
	})
	if qerr := q.Err(); qerr != nil {
		return nil, qerr
	}
	return repo, err
}

// open clones the branch; when the remote does not have it, it clones the
// head of c.From and starts the branch there (created); when the remote
// has neither, it starts an empty repository (fresh).
func (x *exportClone) open(c Commit) error {
	repo, err := x.clone(x.ref)
	if err != nil && missing(err) && c.From != "" && c.From != c.Ref {
		// A new branch: it starts from the head of c.From.
		if repo, err = x.clone(plumbing.ReferenceName(c.From)); err == nil {
			x.created = true
			if err := x.startBranch(repo); err != nil {
				return err
			}
		}
	}
	var le *limitError
	if errors.As(err, &le) {
		return le
	}
	if err != nil {
		if !missing(err) {
			return explain(x.ctx, x.remote, "clone", x.op.cause(err))
		}
		// An empty repository, or one without this branch: start it.
		x.fresh = true
		return x.initEmpty()
	}
	x.repo = repo
	return nil
}

// missing reports whether a clone failed because the remote is empty or
// does not have the branch.
func missing(err error) bool {
	return errors.Is(err, transport.ErrEmptyRemoteRepository) || isNoRef(err)
}

// startBranch points the branch at the head of repo, just cloned from the
// branch it starts from, and checks it out.
func (x *exportClone) startBranch(repo *git.Repository) error {
	h, err := repo.Head()
	if err != nil {
		return err
	}
	if err := repo.Storer.SetReference(plumbing.NewHashReference(x.ref, h.Hash())); err != nil {
		return err
	}
	return repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, x.ref))
}

// initEmpty starts an empty repository in the clone's directory, afresh,
// whose origin is the remote and whose HEAD is the branch.
func (x *exportClone) initEmpty() error {
	if err := os.RemoveAll(x.dir); err != nil {
		return err
	}
	if err := os.MkdirAll(x.dir, 0o700); err != nil {
		return err
	}
	_ = x.st.Close()
	x.st, _ = newStorage(filepath.Join(x.dir, ".git"), x.lim)
	repo, err := git.Init(x.st, osfs.New(x.dir, osfs.WithBoundOS()))
	if err != nil {
		return err
	}
	x.repo = repo
	if _, err := repo.CreateRemote(&config.RemoteConfig{Name: "origin", URLs: []string{x.remote.URL}}); err != nil {
		return err
	}
	return repo.Storer.SetReference(plumbing.NewSymbolicReference(plumbing.HEAD, x.ref))
}

// reopen reopens the clone for the export, its staged blobs kept as plain
// files (see rawBlobs) and its pack not searched for deltas, and returns
// its worktree.
func (x *exportClone) reopen() (*git.Worktree, error) {
	raw, err := newRawBlobs(x.st, filepath.Join(x.dir, ".git", "export-blobs"))
	if err != nil {
		return nil, err
	}
	if x.repo, err = git.Open(raw, osfs.New(x.dir, osfs.WithBoundOS())); err != nil {
		return nil, err
	}
	// The pack pushed is not searched for deltas: that search holds a
	// window of objects in memory and costs far more than the bytes it
	// saves on images, which are most of a space's bytes.
	cfg, err := x.repo.Config()
	if err != nil {
		return nil, err
	}
	cfg.Pack.Window = 0
	if err := x.repo.SetConfig(cfg); err != nil {
		return nil, err
	}
	return x.repo.Worktree()
}

// head returns the clone's head commit: ErrDiverged when it is not c.Base
// and c is not forced.
func (x *exportClone) head(c Commit) (plumbing.Hash, error) {
	h, err := x.repo.Head()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	head := h.Hash()
	if c.Base != "" && head.String() != c.Base && !c.Force {
		return plumbing.ZeroHash, ErrDiverged
	}
	return head, nil
}

// writeAndCommit lets c.Write change the worktree's files, stages them all and
// commits them (an empty commit when nothing changed). It returns what the
// export wrote and removed, and the commit.
func writeAndCommit(wt *git.Worktree, c Commit) (*worktree, error) {
	w := &worktree{fs: wt.Filesystem, written: map[string]plumbing.Hash{}, removed: map[string]bool{}}
	if err := c.Write(w); err != nil {
		return nil, err
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		return nil, fmt.Errorf("stage files: %w", err)
	}
	author := c.Author
	if author.When.IsZero() {
		author.When = time.Now()
	}
	hash, err := wt.Commit(c.Message, &git.CommitOptions{Author: &author, AllowEmptyCommits: true})
	if err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	w.commit = hash
	return w, nil
}

// push pushes commit hash to the branch (forced when force) and returns it.
// The pack sent holds the objects of the commit that the remote does not
// have (it has head, unless the clone is fresh), as go-git finds them (its
// own pack is used when they differ).
func (x *exportClone) push(hash, head plumbing.Hash, force bool, names map[plumbing.Hash]string) (string, error) {
	haves, err := x.repo.Storer.Shallow()
	if err != nil {
		return "", err
	}
	if !x.fresh {
		haves = append(haves, head)
	}
	hashes, err := revlist.Objects(x.repo.Storer, []plumbing.Hash{hash}, haves)
	if err != nil {
		return "", err
	}
	x.op.pack = &pack{store: x.repo.Storer, hashes: hashes, names: names}
	spec := config.RefSpec(fmt.Sprintf("%s:%s", x.ref, x.ref))
	if force {
		spec = "+" + spec
	}
	err = x.repo.PushContext(x.ctx, &git.PushOptions{RemoteName: "origin", Auth: auth(x.remote), RefSpecs: []config.RefSpec{spec}, Force: force})
	switch {
	case err == nil || errors.Is(err, git.NoErrAlreadyUpToDate):
		return hash.String(), nil
	case strings.Contains(err.Error(), "non-fast-forward"):
		return "", ErrDiverged
	}
	return "", explain(x.ctx, x.remote, "push", x.op.cause(err))
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

// worktree is the clone's worktree as an export writes it: what it
// wrote (each path with the Git name of its bytes) and removed.
type worktree struct {
	fs      billy.Filesystem
	written map[string]plumbing.Hash
	removed map[string]bool
	commit  plumbing.Hash
}

func (w *worktree) List() ([]string, error) {
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

func (w *worktree) Remove(p string) error {
	p = path.Clean(p)
	delete(w.written, p)
	w.removed[p] = true
	return w.fs.Remove(p)
}

func (w *worktree) Read(p string) ([]byte, error) { return util.ReadFile(w.fs, p) }

func (w *worktree) Write(p string, data []byte) error {
	p = path.Clean(p)
	if err := w.fs.MkdirAll(path.Dir(p), 0o755); err != nil {
		return err
	}
	if err := util.WriteFile(w.fs, p, data, 0o644); err != nil {
		return err
	}
	delete(w.removed, p)
	w.written[p] = plumbing.ComputeHash(plumbing.BlobObject, data)
	return nil
}

// names names the blobs the export wrote by a path of theirs.
func (w *worktree) names() map[plumbing.Hash]string {
	out := make(map[plumbing.Hash]string, len(w.written))
	for p, h := range w.written {
		out[h] = p
	}
	return out
}
