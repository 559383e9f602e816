package gitrepo

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/docspub/platform/libs/urlguard"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/storage/memory"
)

// Snapshot is one commit's files.
type Snapshot struct {
	Commit  string
	Message string
	Files   map[string][]byte
}

// Fetch reads the files of ref's head commit for which want is true: a
// shallow clone of that one ref into memory, within lim.
func Fetch(ctx context.Context, guard urlguard.Guard, r Remote, ref string, lim Limits, want func(path string) bool) (Snapshot, error) {
	ctx, cancel, o := begin(ctx, guard, lim)
	defer cancel()
	repo, err := git.CloneContext(ctx, memory.NewStorage(), nil, &git.CloneOptions{
		URL: r.URL, Auth: auth(r), ReferenceName: plumbing.ReferenceName(ref), SingleBranch: true,
		Depth: 1, NoCheckout: true, Tags: git.NoTags,
	})
	if err != nil {
		if errors.Is(err, transport.ErrEmptyRemoteRepository) {
			return Snapshot{}, errors.New("the repository is empty")
		}
		return Snapshot{}, explain(ctx, r, "clone", err)
	}
	head, err := repo.Reference(plumbing.ReferenceName(ref), true)
	if err != nil {
		head, err = repo.Head()
	}
	if err != nil {
		return Snapshot{}, fmt.Errorf("ref %s not found", ref)
	}
	commit, err := repo.CommitObject(head.Hash())
	if err != nil {
		return Snapshot{}, explain(ctx, r, "read commit", err)
	}
	files, err := read(ctx, commit, want, o.max)
	if err != nil {
		return Snapshot{}, explain(ctx, r, "read files", err)
	}
	return Snapshot{Commit: commit.Hash.String(), Message: commit.Message, Files: files}, nil
}

// read reads the wanted files of a commit, at most max bytes in all.
func read(ctx context.Context, c *object.Commit, want func(string) bool, max int64) (map[string][]byte, error) {
	tree, err := c.Tree()
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	var total int64
	err = tree.Files().ForEach(func(f *object.File) error {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !want(f.Name) {
			return nil
		}
		if total += f.Size; total > max {
			return ErrTooLarge
		}
		rc, err := f.Reader()
		if err != nil {
			return err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return err
		}
		out[f.Name] = b
		return nil
	})
	return out, err
}

func auth(r Remote) transport.AuthMethod {
	if r.auth == nil {
		return nil
	}
	return r.auth
}
