package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Memory a clone's storage may use: objects larger than largeObject are
// read from disk as streams, never whole; the cache of decoded objects
// holds at most objectCache bytes.
const (
	largeObject = 64 << 10
	objectCache = 8 << 20
)

// Checkout is one commit of a repository cloned to a temporary directory:
// its files are read from disk, one at a time. Close removes it.
type Checkout struct {
	Commit  string
	Message string
	dir     string
	repo    *git.Repository
	st      storage
	tree    *object.Tree
	lim     Limits
}

// Entry is a file of the commit.
type Entry struct {
	Path string
	Size int64
	hash plumbing.Hash
}

// Clone clones ref's head commit (depth 1, that ref only, no checkout) to
// a temporary directory, within lim.
func Clone(ctx context.Context, guard urlguard.Guard, r Remote, ref string, lim Limits) (*Checkout, error) {
	lim = lim.withDefaults()
	ctx, cancel, o := begin(ctx, guard, lim)
	defer cancel()
	dir, err := os.MkdirTemp(lim.TempDir, "git-clone-")
	if err != nil {
		return nil, fmt.Errorf("make the clone's directory: %w", err)
	}
	c := &Checkout{dir: dir, lim: lim}
	ok := false
	defer func() {
		if !ok {
			_ = c.Close()
		}
	}()
	st, q := newStorage(filepath.Join(dir, ".git"), lim)
	c.st = st
	repo, err := git.CloneContext(ctx, st, nil, &git.CloneOptions{
		URL: r.URL, Auth: auth(r), ReferenceName: plumbing.ReferenceName(ref), SingleBranch: true,
		Depth: 1, NoCheckout: true, Tags: git.NoTags,
	})
	if err := q.Err(); err != nil {
		return nil, err
	}
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return nil, errors.New("the repository is empty")
		}
		return nil, explain(ctx, r, "clone", o.cause(err))
	}
	head, err := repo.Reference(plumbing.ReferenceName(ref), true)
	if err != nil {
		head, err = repo.Head()
	}
	if err != nil {
		return nil, fmt.Errorf("ref %s not found", ref)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		return nil, explain(ctx, r, "read commit", err)
	}
	c.tree, err = commit.Tree()
	if err != nil {
		return nil, explain(ctx, r, "read commit", err)
	}
	c.repo, c.Commit, c.Message = repo, commit.Hash.String(), commit.Message
	ok = true
	return c, nil
}

// newStorage is a clone's storage at dir, on disk, behind a quota.
func newStorage(dir string, lim Limits) (storage, *quota) {
	q := &quota{lim: lim}
	fs := filesystem.NewStorageWithOptions(osfs.New(dir), cache.NewObjectLRU(objectCache),
		filesystem.Options{ExclusiveAccess: true, LargeObjectThreshold: largeObject})
	return storage{Storage: fs, q: q, resolved: cache.NewObjectLRU(objectCache)}, q
}

// Files lists the commit's files for which want is true (symbolic links
// and submodules are not files). Listing more entries than a clone may have
// objects fails.
func (c *Checkout) Files(ctx context.Context, want func(path string) bool) ([]Entry, error) {
	w := object.NewTreeWalker(c.tree, true, nil)
	defer w.Close()
	var out []Entry
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if n > c.lim.MaxObjects {
			return nil, tooLarge("it has more than %d files and directories", c.lim.MaxObjects)
		}
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read the commit's tree: %w", err)
		}
		if !e.Mode.IsFile() || e.Mode == filemode.Symlink || !want(name) {
			continue
		}
		size, err := c.st.EncodedObjectSize(e.Hash)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		out = append(out, Entry{Path: name, Size: size, hash: e.Hash})
	}
}

// Open opens a file's bytes, streamed from disk; the caller closes them.
func (c *Checkout) Open(e Entry) (io.ReadCloser, error) {
	obj, err := c.repo.Storer.EncodedObject(plumbing.BlobObject, e.hash)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", e.Path, err)
	}
	return obj.Reader()
}

// ReadFile reads a file's bytes whole (at most max of them), checked
// against the blob the commit names.
func (c *Checkout) ReadFile(e Entry, max int64) ([]byte, error) {
	if e.Size > max {
		return nil, tooLarge("%s is %s, more than the %s it may have", e.Path, size(e.Size), size(max))
	}
	rc, err := c.Open(e)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b := make([]byte, e.Size) // read once into its size: no growing copies
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, fmt.Errorf("read %s: %w", e.Path, err)
	}
	if n, _ := rc.Read(make([]byte, 1)); n > 0 {
		return nil, fmt.Errorf("read %s: larger than its size", e.Path)
	}
	// The bytes are the blob's the commit names, or the import stops.
	if got := plumbing.ComputeHash(plumbing.BlobObject, b); got != e.hash {
		return nil, fmt.Errorf("%w: %s reads as blob %s, the commit names %s", ErrCorrupt, e.Path, got, e.hash)
	}
	return b, nil
}

// Close removes the clone.
func (c *Checkout) Close() error {
	if c.st.Storage != nil {
		_ = c.st.Close()
	}
	return os.RemoveAll(c.dir)
}

func auth(r Remote) transport.AuthMethod {
	if r.auth == nil {
		return nil
	}
	return r.auth
}

// Sweep removes the clones, exports and pushes in dir ("": the system's
// temporary directory) older than age: what a process that stopped in the
// middle of an operation left. An operation never lasts longer than its
// timeout, so an age past it touches no running one.
func Sweep(dir string, age time.Duration) error {
	if dir == "" {
		dir = os.TempDir()
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, "git-clone-") && !strings.HasPrefix(name, "git-export-") && !strings.HasPrefix(name, "git-push-") {
			continue
		}
		info, err := e.Info()
		if err != nil || time.Since(info.ModTime()) < age {
			continue
		}
		errs = append(errs, os.RemoveAll(filepath.Join(dir, name)))
	}
	return errors.Join(errs...)
}
