package revision

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/quota"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/links"
)

// treeStore serves revisions whose pages' markdown lives in bodies: Tree
// names them (one body a page), Get reads them in.
type treeStore map[string]Revision

func (m treeStore) Insert(context.Context, Revision) error { return nil }
func (m treeStore) Get(_ context.Context, id string) (Revision, error) {
	r, ok := m[id]
	if !ok {
		return Revision{}, ErrRevisionNotFound
	}
	return r, nil
}
func (m treeStore) Tree(ctx context.Context, id string) (Revision, error) {
	r, err := m.Get(ctx, id)
	pages := make([]Page, len(r.Pages))
	for i, p := range r.Pages {
		r.MarkdownBytes += int64(len(p.Markdown))
		p.Markdown, p.Body = "", []string{p.ID}
		pages[i] = p
	}
	r.Pages = pages
	return r, err
}
func (m treeStore) Markdown(context.Context, []*Page) error { return nil }
func (m treeStore) PutBlob(context.Context, Owner, string, string, io.Reader) (string, int64, error) {
	return "", 0, nil
}
func (m treeStore) OpenBlob(context.Context, string, int64) (io.ReadSeekCloser, error) {
	return nil, nil
}

// pagesOf makes pages of markdown bytes in all.
func pagesOf(markdown int) []Page {
	ps := make([]Page, 4)
	for i := range ps {
		ps[i] = Page{ID: fmt.Sprint("p", i), Kind: KindDocument, Title: "P", Slug: fmt.Sprint("p", i), Markdown: strings.Repeat("x", markdown/4)}
	}
	return ps
}

var quotaStore = treeStore{
	"big":   {ID: "big", Space: "sp1", Organization: "org1", Pages: pagesOf(limits.RevisionReadFree + 4)},
	"small": {ID: "small", Space: "sp1", Organization: "org1", Pages: pagesOf(limits.RevisionReadFree)},
	"other": {ID: "other", Space: "sp2", Organization: "org2", Pages: pagesOf(limits.RevisionReadFree + 4)},
}

// TestLargeRevisionReadsTakeATurn: an organization reading as many large
// revisions whole as its quota allows gets a 429 for one more, while
// another organization, and its own small revisions, are read at once.
func TestLargeRevisionReadsTakeATurn(t *testing.T) {
	ctx := context.Background()
	store := quotaStore
	s := New(store, links.URLs{}, nil)
	// One turn, taken; no waiting: the next read of org1 is refused at once.
	s.reads = quota.New("whole revision reads", quota.Limits{PerKey: 1, Total: 2})
	release, err := s.reads.Acquire(ctx, "org1")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	g1 := access.Grant{Organization: "org1", Space: "sp1", Revision: "big", Level: "read"}
	_, err = s.Revision(ctx, g1, "big")
	if apierr.ToBody(err).Error.Code != http.StatusTooManyRequests {
		t.Errorf("a large revision over the organization's quota: %v, want a 429", err)
	}
	if v, err := s.Revision(ctx, g1, "small"); err != nil || len(v.Pages) != 4 {
		t.Errorf("a small revision: %d pages, %v", len(v.Pages), err)
	}
	g2 := access.Grant{Organization: "org2", Space: "sp2", Revision: "other", Level: "read"}
	if v, err := s.Revision(ctx, g2, "other"); err != nil || len(v.Pages) != 4 {
		t.Errorf("another organization's large revision: %d pages, %v", len(v.Pages), err)
	}
}

// TestLargeRevisionReadsShareAMemoryBudget: with the budget all taken, a
// large read waits, then gets a 429 (giving back its organization's turn);
// once the budget frees it is read, and a small read never waits.
func TestLargeRevisionReadsShareAMemoryBudget(t *testing.T) {
	ctx := context.Background()
	s := New(quotaStore, links.URLs{}, nil)
	s.wait = 50 * time.Millisecond
	if err := s.budget.Acquire(ctx, limits.RevisionReadBytes); err != nil {
		t.Fatal(err)
	}
	g2 := access.Grant{Organization: "org2", Space: "sp2", Revision: "other", Level: "read"}
	start := time.Now()
	_, err := s.Revision(ctx, g2, "other")
	if apierr.ToBody(err).Error.Code != http.StatusTooManyRequests || time.Since(start) < s.wait {
		t.Errorf("a large read with no budget: %v after %v, want a 429 after %v", err, time.Since(start), s.wait)
	}
	g1 := access.Grant{Organization: "org1", Space: "sp1", Revision: "small", Level: "read"}
	if _, err := s.Revision(ctx, g1, "small"); err != nil {
		t.Errorf("a small read with no budget: %v", err)
	}
	s.budget.Release(limits.RevisionReadBytes)
	for range limits.RevisionReadQuota.PerKey + 1 { // the refused read gave its turn back
		if _, err := s.Revision(ctx, g2, "other"); err != nil {
			t.Fatalf("a large read with budget: %v", err)
		}
	}
	if !s.budget.TryAcquire(limits.RevisionReadBytes) {
		t.Error("reads done, the budget is not whole again")
	}
}
