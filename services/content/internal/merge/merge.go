// Package merge merges content three ways: a change request's revision
// (theirs) into the space's (ours) from their common ancestor (base). Pages
// are matched by id; a page's markdown is merged line by line. What both
// sides changed differently is a conflict: it is reported, never resolved by
// dropping one side.
//
// The rules, page by page:
//   - A page added on one side is kept where that side put it. Added under a
//     page the other side deleted, it is a conflict.
//   - A page deleted on one side is deleted when the other side left its
//     fields, markdown and parent alone; otherwise it is a conflict.
//   - A move (new parent, or new place among its siblings) made by one side
//     is applied; the same page moved differently by both is a conflict, and
//     so are moves that together would make a page its own ancestor.
//   - Kind, title, slug, emoji and description merge field by field; the
//     markdown merges line by line (diff3). Changes of the same lines that
//     differ are a conflict; the same change made by both is not.
//   - Sibling order merges like a list: ours' order, with theirs' insertions
//     and moves placed before the sibling that follows them in theirs.
//
// Files and reusable contents merge by id with the same add, delete and
// modify rules, and so do redirects by their path (a redirect sent to
// different pages by both sides is a conflict). Wherever a conflict is reported, the merged content keeps
// ours' version of that element; callers must not use it anyway.
package merge

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/docspub/platform/services/content/internal/revision"
)

// ErrConflict is what Result.Err wraps when the merge has conflicts.
var ErrConflict = errors.New("merge conflict")

// Conflict is a change both sides made differently.
type Conflict struct {
	PageID            string `json:"pageId,omitempty"`
	Path              string `json:"path,omitempty"`
	FileID            string `json:"fileId,omitempty"`
	ReusableContentID string `json:"reusableContentId,omitempty"`
	Reason            string `json:"reason"`
}

// String names the conflict's subject and reason.
func (c Conflict) String() string {
	switch {
	case c.PageID != "" && c.Path != "":
		return fmt.Sprintf("page %s (%s): %s", c.PageID, c.Path, c.Reason)
	case c.PageID != "":
		return fmt.Sprintf("page %s: %s", c.PageID, c.Reason)
	case c.FileID != "":
		return fmt.Sprintf("file %s: %s", c.FileID, c.Reason)
	case c.ReusableContentID != "":
		return fmt.Sprintf("reusable content %s: %s", c.ReusableContentID, c.Reason)
	}
	return c.Reason
}

// Result is a merge's outcome: the merged content, or the conflicts.
type Result struct {
	Pages            []revision.Page
	Files            []revision.File
	ReusableContents []revision.ReusableContent
	Redirects        []revision.Redirect
	Conflicts        []Conflict
}

// Err is nil for a clean merge and otherwise an error that wraps ErrConflict
// and names every conflict.
func (r Result) Err() error {
	if len(r.Conflicts) == 0 {
		return nil
	}
	parts := make([]string, len(r.Conflicts))
	for i, c := range r.Conflicts {
		parts[i] = c.String()
	}
	return fmt.Errorf("%d conflicts: %s: %w", len(r.Conflicts), strings.Join(parts, "; "), ErrConflict)
}

// Revisions merges theirs into ours from base. When Conflicts is not empty
// the merged content must not be used. The revisions are not changed, and
// the result shares no slices with them.
func Revisions(base, ours, theirs revision.Revision) Result {
	r, _ := RevisionsContext(context.Background(), base, ours, theirs)
	return r
}

// RevisionsContext is Revisions that stops, with ctx's error, as soon as
// ctx is done (between pages: a merge of huge revisions ends with its request).
func RevisionsContext(ctx context.Context, base, ours, theirs revision.Revision) (Result, error) {
	var r Result
	var err error
	if r.Pages, r.Conflicts, err = mergePages(ctx, base.Pages, ours.Pages, theirs.Pages); err != nil {
		return Result{}, err
	}
	var cs []Conflict
	r.Files, cs = mergeFiles(base.Files, ours.Files, theirs.Files)
	r.Conflicts = append(r.Conflicts, cs...)
	r.ReusableContents, cs = mergeReusable(base.ReusableContents, ours.ReusableContents, theirs.ReusableContents)
	r.Conflicts = append(r.Conflicts, cs...)
	r.Redirects, cs = mergeRedirects(base.Redirects, ours.Redirects, theirs.Redirects)
	r.Conflicts = append(r.Conflicts, cs...)
	return r, nil
}

// pick is a three-way merge of one value: a change made by one side wins, the
// same change by both is fine, different changes are a conflict (ok false,
// and ours is returned).
func pick[T comparable](base, ours, theirs T) (v T, ok bool) {
	switch {
	case ours == theirs, theirs == base:
		return ours, true
	case ours == base:
		return theirs, true
	}
	return ours, false
}
