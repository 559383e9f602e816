package revision

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/links"
	"golang.org/x/sync/semaphore"
)

// Errors.
var (
	ErrRevisionNotFound = apierr.NotFound("revision not found")
	ErrPageNotFound     = apierr.NotFound("page not found")
	ErrFileNotFound     = apierr.NotFound("file not found")
)

// Window asks for one keyset page of a list: the items after After (a
// key of the list's order; "" for the first page), at most Limit of them
// (0: all).
type Window struct {
	After string
	Limit int
}

// List is one page of a list and the count of all its items.
type List[T any] struct {
	Items []T
	Count int
}

// MergedFromFunc renders the change request a merge revision came from
// (the API's mergedFrom is a ChangeRequest); the change request package
// provides it.
type MergedFromFunc func(ctx context.Context, g access.Grant, changeRequestID string) (any, error)

// Service reads revisions for the API. Every method takes the grant the
// space gate handed out for access.View and answers a not-found error for
// a revision of another space.
type Service struct {
	store      Store
	urls       links.URLs
	mergedFrom MergedFromFunc
	reads      *quota.Limiter      // an organization's whole large revisions read at once
	budget     *semaphore.Weighted // memory of whole large revisions read at once
	wait       time.Duration       // the longest wait for budget
}

// New returns a service on store; urls build resource URLs, mergedFrom
// renders a merge revision's change request (nil: a merge revision
// reports {"object":"change-request","id":...}).
func New(store Store, urls links.URLs, mergedFrom MergedFromFunc) *Service {
	return &Service{store: store, urls: urls, mergedFrom: mergedFrom, reads: quota.New("whole revision reads", limits.RevisionReadQuota),
		budget: semaphore.NewWeighted(limits.RevisionReadBytes), wait: limits.RevisionReadQuota.MaxWait}
}

// load reads a revision of the granted space with every page's markdown,
// and returns the function that gives back what it took (call it once
// done with the revision): a revision of more than
// limits.RevisionReadFree bytes of markdown is read in a turn of the
// organization's quota of such reads and with its memory taken from the
// budget all organizations share (a 429 when the organization already
// reads as many as it may, or no budget frees in time).
func (s *Service) load(ctx context.Context, g access.Grant, revID string) (*Revision, func(), error) {
	tree, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return nil, nil, err
	}
	release := func() {}
	if tree.MarkdownBytes > limits.RevisionReadFree {
		if release, err = s.take(ctx, g.Organization, tree.MarkdownBytes); err != nil {
			return nil, nil, err
		}
	}
	r, err := s.read(ctx, g, revID, s.store.Get)
	if err != nil {
		release()
		return nil, nil, err
	}
	return r, release, nil
}

// take waits for a turn of org and the memory of reading markdown bytes.
func (s *Service) take(ctx context.Context, org string, markdown int64) (func(), error) {
	turn, err := s.reads.Acquire(ctx, org)
	if err != nil {
		return nil, err
	}
	cost := min(markdown*limits.RevisionReadCost, limits.RevisionReadBytes)
	wait, cancel := context.WithTimeout(ctx, s.wait)
	defer cancel()
	if err := s.budget.Acquire(wait, cost); err != nil {
		turn()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, apierr.TooMany(time.Second, "too many large revisions are being read; retry shortly")
	}
	return func() { s.budget.Release(cost); turn() }, nil
}

// loadTree reads a revision of the granted space without its pages'
// markdown (see Store.Tree): what reads of files and of one page need.
func (s *Service) loadTree(ctx context.Context, g access.Grant, revID string) (*Revision, error) {
	return s.read(ctx, g, revID, s.store.Tree)
}

func (s *Service) read(ctx context.Context, g access.Grant, revID string, get func(context.Context, string) (Revision, error)) (*Revision, error) {
	if revID == "" {
		return nil, ErrRevisionNotFound
	}
	r, err := get(ctx, revID)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, ErrRevisionNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("load revision %s: %w", revID, err)
	}
	if r.Space != g.Space {
		return nil, ErrRevisionNotFound
	}
	return &r, nil
}

// Whole returns a revision of the granted space with every page's
// markdown, read within the bounds of whole reads (see load), and the
// function that gives them back once the caller is done with it.
func (s *Service) Whole(ctx context.Context, g access.Grant, revID string) (Revision, func(), error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return Revision{}, nil, err
	}
	return *r, release, nil
}

// Get returns a revision of the granted space (for other packages: merges,
// change requests).
func (s *Service) Get(ctx context.Context, g access.Grant, revID string) (Revision, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return Revision{}, err
	}
	release()
	return *r, nil
}

// Revision renders a revision.
func (s *Service) Revision(ctx context.Context, g access.Grant, revID string) (RevisionView, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return RevisionView{}, err
	}
	defer release()
	v := s.viewer(r, g.Revision).revision()
	if r.Type == TypeMerge && r.MergedFrom != "" {
		v.MergedFrom = map[string]string{"object": "change-request", "id": r.MergedFrom}
		if s.mergedFrom != nil {
			// A duplicated space's first revision copies a merge of the
			// original's change request, which its own space does not have.
			cr, err := s.mergedFrom(ctx, g, r.MergedFrom)
			switch {
			case err == nil:
				v.MergedFrom = cr
			case !errors.Is(err, apierr.ErrNotFound):
				return RevisionView{}, err
			}
		}
	}
	return v, nil
}

// Pages renders a revision's page tree.
func (s *Service) Pages(ctx context.Context, g access.Grant, revID string) ([]PageView, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return nil, err
	}
	defer release()
	return s.viewer(r, g.Revision).pages(r.Pages, ""), nil
}

// Page renders one page and its children; a document page carries its
// markdown (FormatMarkdown, also for "") or its JSON document
// (FormatDocument).
func (s *Service) Page(ctx context.Context, g access.Grant, revID, pageID, format string) (PageView, error) {
	if err := checkFormat(format); err != nil {
		return PageView{}, err
	}
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return PageView{}, err
	}
	f, ok := r.FindPage(pageID)
	if !ok {
		return PageView{}, ErrPageNotFound
	}
	if err := s.store.Markdown(ctx, subtree(f.Page)); err != nil {
		return PageView{}, fmt.Errorf("read page %s: %w", f.Page.ID, err)
	}
	return s.viewer(r, g.Revision).page(f, format), nil
}

// PageByPath renders the page at a path (slugs joined by "/").
func (s *Service) PageByPath(ctx context.Context, g access.Grant, revID, path, format string) (PageView, error) {
	if err := checkFormat(format); err != nil {
		return PageView{}, err
	}
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return PageView{}, err
	}
	f, ok := r.FindPath(path)
	if !ok {
		return PageView{}, ErrPageNotFound
	}
	if err := s.store.Markdown(ctx, subtree(f.Page)); err != nil {
		return PageView{}, fmt.Errorf("read page %s: %w", f.Page.ID, err)
	}
	return s.viewer(r, g.Revision).page(f, format), nil
}

// subtree is a page and its descendants: a page's view shows them all.
func subtree(p *Page) []*Page {
	out := []*Page{p}
	for i := range p.Pages {
		out = append(out, subtree(&p.Pages[i])...)
	}
	return out
}

// Files lists a revision's files by id.
func (s *Service) Files(ctx context.Context, g access.Grant, revID string, p Window) (List[FileView], error) {
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return List[FileView]{}, err
	}
	files := append([]File(nil), r.Files...)
	sort.Slice(files, func(i, j int) bool { return files[i].ID < files[j].ID })
	v := s.viewer(r, g.Revision)
	l := List[FileView]{Items: []FileView{}, Count: len(files)}
	for _, f := range files {
		if f.ID > p.After && (p.Limit <= 0 || len(l.Items) < p.Limit) {
			l.Items = append(l.Items, v.file(f))
		}
	}
	return l, nil
}

// File renders one file of a revision.
func (s *Service) File(ctx context.Context, g access.Grant, revID, fileID string) (FileView, error) {
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return FileView{}, err
	}
	f, ok := r.FindFile(fileID)
	if !ok {
		return FileView{}, ErrFileNotFound
	}
	return s.viewer(r, g.Revision).file(f), nil
}

// Locate returns a file of a revision with its blob id, opening nothing.
func (s *Service) Locate(ctx context.Context, g access.Grant, revID, fileID string) (File, error) {
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return File{}, err
	}
	f, ok := r.FindFile(fileID)
	if !ok {
		return File{}, ErrFileNotFound
	}
	return f, nil
}

// Download opens a file's bytes for reading and seeking; the caller
// closes them.
func (s *Service) Download(ctx context.Context, g access.Grant, revID, fileID string) (File, io.ReadSeekCloser, error) {
	r, err := s.loadTree(ctx, g, revID)
	if err != nil {
		return File{}, nil, err
	}
	f, ok := r.FindFile(fileID)
	if !ok {
		return File{}, nil, ErrFileNotFound
	}
	rc, err := s.store.OpenBlob(ctx, f.Blob, f.Size)
	if errors.Is(err, apierr.ErrNotFound) {
		return File{}, nil, ErrFileNotFound
	}
	if err != nil {
		return File{}, nil, fmt.Errorf("open blob of file %s: %w", fileID, err)
	}
	return f, rc, nil
}

// FileBacklinks lists the pages whose markdown links or embeds a file,
// by page id.
func (s *Service) FileBacklinks(ctx context.Context, g access.Grant, revID, fileID string, p Window) (BacklinkList, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return BacklinkList{}, err
	}
	defer release()
	if _, ok := r.FindFile(fileID); !ok {
		return BacklinkList{}, ErrFileNotFound
	}
	pages := map[string]bool{}
	var ids []string
	for _, o := range NewResolver(r, s.urls).Occurrences("") {
		if o.Target.Kind == TargetFile && o.Target.File == fileID && !pages[o.Page.Page.ID] {
			pages[o.Page.Page.ID] = true
			ids = append(ids, o.Page.Page.ID)
		}
	}
	sort.Strings(ids)
	l := BacklinkList{Items: []BacklinkView{}, Count: len(ids)}
	for _, id := range ids {
		if id > p.After && (p.Limit <= 0 || len(l.Items) < p.Limit) {
			ref := pageReference(r, id)
			ref.File = fileID
			l.Items = append(l.Items, ref)
		}
	}
	return l, nil
}

// Links lists every link of a revision's pages, grouped by target and
// relation, in key order; status ("" for all, or a Statuses value) filters
// the items but not the stats.
func (s *Service) Links(ctx context.Context, g access.Grant, revID, status string, p Window) (LinkList, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return LinkList{}, err
	}
	defer release()
	return listLinks(linkViews(r, NewResolver(r, s.urls).Occurrences("")), status, p), nil
}

// PageLinks lists the links of one page.
func (s *Service) PageLinks(ctx context.Context, g access.Grant, revID, pageID string, p Window) (LinkList, error) {
	r, release, err := s.load(ctx, g, revID)
	if err != nil {
		return LinkList{}, err
	}
	defer release()
	if _, ok := r.FindPage(pageID); !ok {
		return LinkList{}, ErrPageNotFound
	}
	return listLinks(linkViews(r, NewResolver(r, s.urls).Occurrences(pageID)), "", p), nil
}

func checkFormat(format string) error {
	switch format {
	case "", FormatMarkdown, FormatDocument:
		return nil
	}
	return apierr.Invalid("format", "must be %s or %s", FormatMarkdown, FormatDocument)
}
