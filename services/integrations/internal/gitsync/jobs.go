package gitsync

import (
	"context"
	"errors"
	"fmt"
	"os"
	pathpkg "path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/services/integrations/internal/gitbook"
	"github.com/docspub/platform/services/integrations/internal/gitrepo"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Handlers are the job handlers of the service.
func (s *Service) Handlers() map[string]jobs.Handler {
	return map[string]jobs.Handler{JobImport: s.runImport, JobExport: s.runExport}
}

// progress is what a job saved: the revision an import wrote and the
// commit an export pushed (so that a resumed job does neither twice).
type progress struct {
	Revision string `bson:"revision,omitempty"`
	Commit   string `bson:"commit,omitempty"`
}

// remote gives the job's remote with its credentials, which only the memory
// of the process that accepted the operation holds (its job is enqueued
// with jobs.Home, so that the other replicas leave it to that process): a
// job resumed elsewhere (that process died) cannot have them and fails,
// asking for the operation again.
func (s *Service) remote(p payload) (gitrepo.Remote, error) {
	raw := p.URL
	if p.SecretRef != "" {
		v, ok := s.secret(p.SecretRef)
		if !ok {
			return gitrepo.Remote{}, errCredentialsLost
		}
		raw = v
	}
	return gitrepo.ParseRemote(raw, s.cfg.Guard)
}

// run is the frame of both jobs: it loads the payload and the remote,
// skips an operation older than the last applied one, runs work and
// records how it ended on the space's state (a failure's message without
// credentials). A retryable failure stays "running" until its last attempt.
func (s *Service) run(ctx context.Context, r *jobs.Run, work func(ctx context.Context, p payload, remote gitrepo.Remote, st State) (State, error)) error {
	var p payload
	if err := r.Payload(&p); err != nil {
		return jobs.Permanent(err)
	}
	remote, err := s.remote(p)
	if err != nil {
		return s.ended(ctx, r, p, gitrepo.Remote{}, err)
	}
	st, err := s.store.Get(ctx, p.Space)
	if err != nil && !errors.Is(err, apierr.ErrNotFound) {
		return err
	}
	if p.Timestamp != nil && st.LastTimestamp != nil && p.Timestamp.Before(*st.LastTimestamp) {
		s.log.InfoContext(ctx, "git operation older than the last applied one: skipped", "space", p.Space, "job", r.Job.ID)
		return s.ended(ctx, r, p, remote, errSkipped)
	}
	st, err = work(ctx, p, remote, st)
	return s.ended(ctx, r, p, remote, err, st)
}

var (
	errSkipped         = errors.New("skipped: older than the last applied Git operation")
	errCredentialsLost = errors.New("the operation was interrupted, and the credentials of its URL are never kept: start it again")
)

// ended records the end of a job on the space's state and returns what the
// job returns.
func (s *Service) ended(ctx context.Context, r *jobs.Run, p payload, remote gitrepo.Remote, err error, after ...State) error {
	final := err == nil || errors.Is(err, errSkipped) || permanentCause(err) || r.Job.Attempts >= jobs.DefaultMaxAttempts
	if !final {
		if ctx.Err() != nil {
			return err // stopping: the job is handed back
		}
		return errors.New(remote.Redact(message(err))) // tried again later
	}
	defer s.forget(p.SecretRef)
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var out error
	if perr := s.store.Update(wctx, p.Space, func(st *State) (*envelope.Event, error) {
		ev, o := s.recordEnd(st, r, p, remote, err, after...)
		out = o
		return &ev, nil
	}); perr != nil {
		return perr
	}
	return out
}

// recordEnd records the end of the job on the space's state st (the
// store's change: the request that started the job may be writing the
// state meanwhile) and returns the event of the end and what the job
// returns.
func (s *Service) recordEnd(st *State, r *jobs.Run, p payload, remote gitrepo.Remote, err error, after ...State) (ev envelope.Event, out error) {
	if st.CreatedAt.IsZero() { // no state yet
		*st = State{ID: p.Space, Organization: p.Organization, URL: p.URL, Ref: p.Ref, RepoName: repoName(p.URL),
			Provider: p.Provider, CreatedAt: s.clock()}
	}
	if len(after) > 0 && err == nil {
		st.LastCommit, st.LastTimestamp = after[0].LastCommit, after[0].LastTimestamp
	}
	now := s.clock()
	op := Operation{Job: r.Job.ID, Direction: direction(r.Job.Kind), StartedAt: r.Job.CreatedAt, EndedAt: &now, State: OpSuccess}
	if st.Operation != nil && st.Operation.Job == r.Job.ID {
		op.StartedAt = st.Operation.StartedAt
	}
	newEvent := integrationsapi.NewGitSyncImported
	if op.Direction == DirExport {
		newEvent = integrationsapi.NewGitSyncExported
	}
	switch {
	case errors.Is(err, errSkipped):
		op.Error = errSkipped.Error()
	case err != nil:
		op.State, op.Error, newEvent = OpFailure, remote.Redact(message(err)), integrationsapi.NewGitSyncFailed
		if errors.Is(err, gitrepo.ErrTimeout) {
			op.State = OpTimeout
		}
		out = jobs.Permanent(errors.New(op.Error))
	}
	if st.Operation == nil || st.Operation.Job == r.Job.ID || st.Operation.State != OpRunning {
		st.Operation = &op
	}
	st.UpdatedAt = now
	return newEvent(st.Organization, st.ID, infoOf(*st)), out
}

// permanentCause reports failures that another attempt cannot fix.
func permanentCause(err error) bool {
	var ae *apierr.Error
	switch {
	case errors.Is(err, gitrepo.ErrDiverged), errors.Is(err, gitrepo.ErrTooLarge), errors.Is(err, gitrepo.ErrBlocked),
		errors.Is(err, gitrepo.ErrTimeout), errors.Is(err, gitbook.ErrLayout), errors.Is(err, errCredentialsLost),
		errors.Is(err, errDamaged), errors.Is(err, gitrepo.ErrCorrupt):
		return true
	case errors.As(err, &ae):
		return ae.Status >= 400 && ae.Status < 500 && ae.Status != 409 && ae.Status != 429
	}
	return false
}

// message is what a failure says on the Git info.
func message(err error) string {
	var ae *apierr.Error
	if errors.As(err, &ae) {
		return ae.Message
	}
	return err.Error()
}

// runImport clones the ref, reads the layout, stores the files and hands
// content the revision, with the redirects of .gitbook.yaml (what the
// layout left out is logged); the space's primary content changes unless
// the import is standalone.
func (s *Service) runImport(ctx context.Context, r *jobs.Run) error {
	return s.run(ctx, r, func(ctx context.Context, p payload, remote gitrepo.Remote, st State) (State, error) {
		var prog progress
		if err := r.Progress(&prog); err != nil {
			return st, err
		}
		commit := prog.Commit
		if prog.Revision == "" {
			t0 := time.Now()
			co, err := gitrepo.Clone(ctx, s.cfg.Guard, remote, p.Ref, s.cfg.Limits)
			if err != nil {
				return st, err
			}
			defer co.Close()
			repo, err := readRepo(ctx, co, p.ProjectDir)
			if err != nil {
				return st, err
			}
			if err := ctx.Err(); err != nil {
				return st, err // stopping between phases: the job is handed back
			}
			t1 := time.Now()
			tree, err := gitbook.Read(repo.text, p.ProjectDir) // bounded before it parses (limits)
			if err != nil {
				return st, err
			}
			if len(tree.Problems) > 0 {
				s.log.WarnContext(ctx, "git import: left out of the repository", "space", p.Space, "job", r.Job.ID,
					"problems", tree.Problems)
			}
			if err := ctx.Err(); err != nil {
				return st, err
			}
			t2 := time.Now()
			parent, err := s.content.Current(ctx, p.Space)
			if err != nil {
				return st, err
			}
			files, err := s.upload(ctx, p.Space, tree.Files, repo)
			if err != nil {
				return st, err
			}
			t3 := time.Now()
			g := &contentapi.Git{OID: co.Commit, Message: strings.TrimSpace(co.Message), Ref: p.Ref}
			if p.CommitURL != "" {
				g.URL = strings.TrimRight(p.CommitURL, "/") + "/" + co.Commit
			}
			sync := syncOf(p, s.clock())
			rev, err := s.content.CreateRevision(ctx, p.Space, contentapi.Import{Parent: parent,
				Standalone: p.Standalone, Pages: toContent(tree.Pages), Files: files, Git: g,
				ReusableContents: toReusable(tree.Includes), GitSync: &sync, Redirects: toRedirects(tree.Redirects)})
			if err != nil {
				return st, err // ErrMoved: tried again, on the space's new revision
			}
			s.log.InfoContext(ctx, "git import written", "space", p.Space, "job", r.Job.ID, "files", len(repo.entries),
				"queued_ms", t0.Sub(r.Job.CreatedAt).Milliseconds(), "fetch_ms", t1.Sub(t0).Milliseconds(),
				"read_ms", t2.Sub(t1).Milliseconds(), "upload_ms", t3.Sub(t2).Milliseconds(),
				"revision_ms", time.Since(t3).Milliseconds())
			commit = co.Commit
			if err := r.SaveProgress(ctx, progress{Revision: rev, Commit: commit}); err != nil {
				return st, err
			}
		} else if err := s.content.SetSync(ctx, p.Space, syncOf(p, s.clock())); err != nil {
			// A job resumed after its revision was written: the sync
			// state may not be the one it wrote with it.
			return st, err
		}
		st.LastCommit, st.LastTimestamp = commit, later(st.LastTimestamp, p.Timestamp)
		return st, nil
	})
}

// exportBatchBytes bounds the bytes of files an export reads from content
// in one request.
const exportBatchBytes = 64 << 20

// runExport writes the space's current revision in the layout over the
// ref's head (which must be the commit the space last synced with, unless
// forced), commits and pushes it.
func (s *Service) runExport(ctx context.Context, r *jobs.Run) error {
	return s.run(ctx, r, func(ctx context.Context, p payload, remote gitrepo.Remote, st State) (State, error) {
		// A job taken again after its push (its replica stopped before it
		// recorded the end) does not push again: the branch's head is its
		// own commit, which another push would take for a moved branch.
		var prog progress
		if err := r.Progress(&prog); err != nil {
			return st, err
		}
		if prog.Commit != "" {
			if err := s.content.SetSync(ctx, p.Space, syncOf(p, s.clock())); err != nil {
				return st, err
			}
			st.LastCommit, st.LastTimestamp = prog.Commit, later(st.LastTimestamp, p.Timestamp)
			return st, nil
		}
		cur, err := s.content.Content(ctx, p.Space)
		if err != nil {
			return st, err
		}
		e := newExport(s, p, cur)
		if e.total > s.cfg.Limits.MaxBytes {
			return st, gitrepo.ErrTooLarge
		}
		base := ""
		if st.URL == p.URL && st.Ref == p.Ref {
			base = st.LastCommit
		}
		write := func(fs gitrepo.Files) error { return e.write(ctx, fs) }
		oid, err := gitrepo.Push(ctx, s.cfg.Guard, remote, gitrepo.Commit{Ref: p.Ref, Base: base, Message: p.Message,
			Author: object.Signature{Name: p.AuthorName, Email: p.AuthorEmail, When: s.now()}, Force: p.Force, From: p.FromRef, Write: write},
			s.cfg.Limits)
		if err != nil {
			return st, err
		}
		if err := r.SaveProgress(ctx, progress{Commit: oid}); err != nil {
			return st, err
		}
		if err := s.content.SetSync(ctx, p.Space, syncOf(p, s.clock())); err != nil {
			return st, err
		}
		st.LastCommit, st.LastTimestamp = oid, later(st.LastTimestamp, p.Timestamp)
		return st, nil
	})
}

// export is one export's content: the space's current revision and its
// files by name (the first of each name).
type export struct {
	s      *Service
	p      payload
	cur    contentapi.Content
	names  []string
	byName map[string]contentapi.File
	total  int64 // the bytes of the files
}

// newExport is the export of cur, the space's current revision.
func newExport(s *Service, p payload, cur contentapi.Content) *export {
	e := &export{s: s, p: p, cur: cur, names: make([]string, 0, len(cur.Files)), byName: map[string]contentapi.File{}}
	for _, f := range cur.Files {
		if _, dup := e.byName[f.Name]; dup {
			continue
		}
		e.byName[f.Name] = f
		e.names = append(e.names, f.Name)
		e.total += f.Size
	}
	return e
}

// write writes the space in the layout into the worktree fs. The base
// commit's layout, when it has one: the export writes over it (where its
// SUMMARY.md is, a .gitbook.yaml root included), unchanged pages keep
// their files byte for byte, and the files it was read from that the space
// no longer has go. Every other file of the repository stays.
func (e *export) write(ctx context.Context, fs gitrepo.Files) error {
	dir, prev, err := previousLayout(fs, e.p.ProjectDir)
	if err != nil {
		return err
	}
	out, err := gitbook.WriteOver(fromContent(e.cur.Pages), e.names, dir, prev)
	if err != nil {
		return err
	}
	for _, path := range out.Remove {
		if err := fs.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	for path, b := range out.Text {
		if err := fs.Write(path, b); err != nil {
			return err
		}
	}
	return e.writeFiles(ctx, fs, out.Files)
}

// previousLayout reads the layout of the worktree fs under projectDir: the
// folder to write in (its SUMMARY.md's, when it has one) and the layout
// to write over (nil when it has no pages). Its markdown is read whole
// (at most MaxText bytes), its files only listed.
func previousLayout(fs gitrepo.Files, projectDir string) (string, *gitbook.Previous, error) {
	existing, err := fs.List()
	if err != nil {
		return "", nil, err
	}
	old := map[string][]byte{}
	var text int64
	for _, path := range existing {
		if !gitbook.Wanted(path, projectDir) {
			continue
		}
		if isAsset(path) {
			old[path] = nil
			continue
		}
		if old[path], err = fs.Read(path); err != nil {
			return "", nil, err
		}
		if text += int64(len(old[path])); text > MaxText {
			return "", nil, fmt.Errorf("%w: the markdown files are more than %d bytes", gitbook.ErrLayout, MaxText)
		}
	}
	dir := projectDir
	var prev *gitbook.Previous
	if t, err := gitbook.Read(old, projectDir); err == nil && len(t.Pages) > 0 {
		prev = &gitbook.Previous{Tree: t, Text: old}
		if t.Summary != "" {
			if dir = pathpkg.Dir(t.Summary); dir == "." {
				dir = ""
			}
		}
	}
	return dir, prev, nil
}

// writeFiles writes the space's files at their paths (by name) into the
// worktree fs, in a few streams from content (up to exportBatchBytes
// each, within the client's timeout), written as they come. Each file's
// bytes are checked against the SHA-256 content records for it (its
// blob's key) before they are written: a file damaged in storage, or on
// its way, fails the export naming it, and nothing is pushed.
func (e *export) writeFiles(ctx context.Context, fs gitrepo.Files, files map[string]string) error {
	ids := make([]string, 0, len(files))
	byID := map[string]contentapi.File{}
	paths := map[string]string{}
	for name, path := range files {
		f := e.byName[name]
		ids = append(ids, f.ID)
		byID[f.ID], paths[f.ID] = f, path
	}
	slices.Sort(ids)
	put := func(id string, b []byte) error {
		if err := blob.Verify(b, byID[id].SHA256); err != nil {
			return fmt.Errorf("%w: %s (file %s of revision %s): %w", errDamaged, paths[id], id, e.cur.Revision, err)
		}
		return fs.Write(paths[id], b)
	}
	for len(ids) > 0 {
		n, size := 0, int64(0)
		for n < len(ids) && (n == 0 || size+byID[ids[n]].Size <= exportBatchBytes) {
			size += byID[ids[n]].Size
			n++
		}
		if err := e.s.content.Files(ctx, e.p.Space, e.cur.Revision, ids[:n], e.s.cfg.Limits.MaxBytes, put); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

// errDamaged is a file whose bytes are not the ones the platform stored
// (an export pushes nothing) or read (an import writes no revision).
var errDamaged = errors.New("a file's stored bytes are damaged")

func later(a, b *time.Time) *time.Time {
	if b == nil || (a != nil && a.After(*b)) {
		return a
	}
	return b
}

func syncOf(p payload, now time.Time) contentapi.GitSync {
	return contentapi.GitSync{RepoName: repoName(p.URL), InstallationID: InstallationID, InstallationProvider: p.Provider,
		InstallationStatus: InstallationActive, Integration: Integration, URL: p.URL, UpdatedAt: now}
}

// toReusable makes the repository's includes reusable contents, titled
// by their file's base name (as pages include them).
func toReusable(in []gitbook.Include) []contentapi.ReusableContent {
	out := make([]contentapi.ReusableContent, 0, len(in))
	for _, i := range in {
		out = append(out, contentapi.ReusableContent{Title: i.Name, Markdown: i.Markdown})
	}
	return out
}

// toRedirects are the repository's redirects for content, never nil: the
// redirects of .gitbook.yaml replace the space's, and a repository without
// any leaves the space none.
func toRedirects(in []gitbook.Redirect) []contentapi.ImportRedirect {
	out := make([]contentapi.ImportRedirect, 0, len(in))
	for _, r := range in {
		out = append(out, contentapi.ImportRedirect{Path: r.Path, Page: r.Page})
	}
	return out
}

func toContent(ps []gitbook.Page) []contentapi.Page {
	out := make([]contentapi.Page, len(ps))
	for i, p := range ps {
		out[i] = contentapi.Page{Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description,
			Emoji: p.Emoji, Icon: p.Icon, Hidden: p.Hidden, Markdown: p.Markdown, Href: p.Href, Pages: toContent(p.Pages)}
		if o := p.Options; o != nil {
			out[i].Layout = &contentapi.Layout{Width: o.Width, Cover: o.Cover, CoverSize: o.CoverSize, Title: o.Title,
				Description: o.Description, TableOfContents: o.TableOfContents, Outline: o.Outline, Pagination: o.Pagination}
		}
		if c := p.Cover; c != nil {
			out[i].Cover = &contentapi.Cover{Src: c.Src, YPos: c.YPos, Height: c.Height}
		}
	}
	return out
}

func fromContent(ps []contentapi.Page) []gitbook.Page {
	out := make([]gitbook.Page, len(ps))
	for i, p := range ps {
		out[i] = gitbook.Page{Kind: p.Kind, Title: p.Title, Slug: p.Slug, Description: p.Description,
			Emoji: p.Emoji, Icon: p.Icon, Hidden: p.Hidden, Markdown: p.Markdown, Href: p.Href, Pages: fromContent(p.Pages)}
	}
	return out
}

// Uploads is how many batches of files an import stores at once.
const Uploads = 2

// MaxText bounds the text files (markdown, .gitbook.yaml) an import reads
// whole: what content accepts of a revision's markdown.
const MaxText = contentapi.MaxContentBytes

// repoFiles is what an import reads of a clone: its text files whole, the
// others (files under .gitbook/assets) only listed, read from disk when
// they are stored.
type repoFiles struct {
	co      *gitrepo.Checkout
	mu      sync.Mutex // the clone is read by one goroutine at a time
	text    map[string][]byte
	entries map[string]gitrepo.Entry
}

func readRepo(ctx context.Context, co *gitrepo.Checkout, projectDir string) (*repoFiles, error) {
	list, err := co.Files(ctx, func(path string) bool { return gitbook.Wanted(path, projectDir) })
	if err != nil {
		return nil, err
	}
	r := &repoFiles{co: co, text: map[string][]byte{}, entries: map[string]gitrepo.Entry{}}
	var text int64
	for _, e := range list {
		r.entries[e.Path] = e
		if isAsset(e.Path) {
			r.text[e.Path] = nil // listed: the layout reads its name
			continue
		}
		if text += e.Size; text > MaxText {
			return nil, fmt.Errorf("%w: the markdown files are more than %d bytes", gitbook.ErrLayout, MaxText)
		}
		if r.text[e.Path], err = co.ReadFile(e, gitbook.MaxFileBytes); err != nil {
			return nil, err
		}
	}
	return r, nil
}

func isAsset(path string) bool {
	return strings.HasPrefix(path, gitbook.AssetsDir+"/") || strings.Contains(path, "/"+gitbook.AssetsDir+"/")
}

// read reads a file's bytes from the clone.
func (r *repoFiles) read(path string) ([]byte, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.co.ReadFile(r.entries[path], gitbook.MaxFileBytes)
}

// upload stores the files' bytes in content, in batches of at most
// contentapi.MaxUploadFiles files and MaxBatchBytes (a file alone in its
// batch when larger), Uploads batches at a time, each read from the clone
// when it goes: at most Uploads batches of bytes are in memory. It returns
// the files in order.
func (s *Service) upload(ctx context.Context, space string, files []gitbook.File, repo *repoFiles) ([]contentapi.File, error) {
	var batches [][]int // indexes into files
	var size int64
	for i, f := range files {
		n := repo.entries[f.Path].Size
		if n > gitbook.MaxFileBytes {
			return nil, fmt.Errorf("%w: %s is larger than %d bytes", gitbook.ErrLayout, f.Path, gitbook.MaxFileBytes)
		}
		if last := len(batches) - 1; last < 0 || len(batches[last]) == contentapi.MaxUploadFiles ||
			(len(batches[last]) > 0 && size+n > contentapi.MaxUploadBytes) {
			batches, size = append(batches, nil), 0
		}
		batches[len(batches)-1] = append(batches[len(batches)-1], i)
		size += n
	}
	out := make([]contentapi.File, len(files))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g := make(chan struct{}, Uploads)
	errs := make([]error, len(batches))
	var wg sync.WaitGroup
	for bi, batch := range batches {
		select {
		case g <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return nil, errors.Join(append(errs, ctx.Err())...)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-g }()
			blobs := make([]contentapi.Upload, len(batch))
			for j, i := range batch {
				data, err := repo.read(files[i].Path)
				if err != nil {
					errs[bi] = err
					cancel()
					return
				}
				blobs[j] = contentapi.Upload{Name: files[i].Name, ContentType: files[i].ContentType, Data: data}
			}
			stored, err := s.content.PutBlobs(ctx, space, blobs)
			if err != nil {
				errs[bi] = fmt.Errorf("store files %s…: %w", files[batch[0]].Name, err)
				cancel()
				return
			}
			for j, i := range batch {
				// The bytes content stored are the ones read (its key is their SHA-256).
				if err := blob.Verify(blobs[j].Data, blob.Sum(stored[j].Blob)); err != nil {
					errs[bi] = fmt.Errorf("%w: %s stored as %s: %w", errDamaged, files[i].Path, stored[j].Blob, err)
					cancel()
					return
				}
				out[i] = stored[j]
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
