package gitrepo

import (
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// verify checks the commit an export made against what it wrote: each
// file it wrote is in the commit's tree under the Git name of the bytes
// written, and every other file is the base commit's (head, none for a
// fresh repository) unless the export removed it. A difference is a file
// changed between the export's bytes, or the clone's, and the commit:
// ErrCorrupt, naming the file. It returns the commit.
func (x *exportClone) verify(w *worktree, head plumbing.Hash) (plumbing.Hash, error) {
	base := map[string]plumbing.Hash{}
	if !x.fresh {
		if err := x.files(head, func(p string, h plumbing.Hash) error { base[p] = h; return nil }); err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read the base commit: %w", err)
		}
	}
	seen := 0
	err := x.files(w.commit, func(p string, h plumbing.Hash) error {
		want, wrote := w.written[p]
		if wrote {
			seen++
		} else if want = base[p]; w.removed[p] {
			return fmt.Errorf("%w: %s was removed, and is in the commit", ErrCorrupt, p)
		}
		if h != want {
			return fmt.Errorf("%w: %s is not the bytes written (%s in the commit, %s written)", ErrCorrupt, p, h, want)
		}
		return nil
	})
	if err == nil && seen != len(w.written) {
		err = fmt.Errorf("%w: %d files written, %d of them in the commit", ErrCorrupt, len(w.written), seen)
	}
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return w.commit, nil
}

// files calls fn with each file of commit's tree (its path and blob).
func (x *exportClone) files(commit plumbing.Hash, fn func(path string, blob plumbing.Hash) error) error {
	c, err := x.repo.CommitObject(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	walk := object.NewTreeWalker(tree, true, nil)
	defer walk.Close()
	for n := 0; ; n++ {
		if n%1024 == 0 && x.ctx.Err() != nil {
			return x.ctx.Err()
		}
		name, e, err := walk.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if e.Mode == filemode.Dir || e.Mode == filemode.Submodule {
			continue
		}
		if err := fn(name, e.Hash); err != nil {
			return err
		}
	}
}
