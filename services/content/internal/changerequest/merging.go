package changerequest

import (
	"context"
	"errors"
	"net/url"
	"strconv"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/limits"
	"github.com/docspub/platform/services/content/internal/merge"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/space"
)

// Merge results.
const (
	ResultMerge     = "merge"
	ResultUpdate    = "update"
	ResultConflicts = "conflicts"
)

// Outcome is the answer of merge and update: the revision the change request
// or space now points at, the result, and the conflicts when there are some
// (then nothing was written).
type Outcome struct {
	Revision  string           `json:"revision"`
	Result    string           `json:"result"`
	Conflicts []merge.Conflict `json:"conflicts,omitempty"`
}

// Merge merges a change request into its space: three ways from the space
// revision the change request last took in. On a conflict nothing changes
// and the outcome lists the conflicts. It needs the merge level on a space
// that is not locked.
//
// A merge writes two documents, so it goes in three compare-and-sets that
// never leave the space moved and the change request not merged: it claims
// the change request (on the status and revision it merged, recording the
// revision it moves the space to), advances the space (on the revision it
// merged into, leaving the change request's id on it as the unfinished
// merge), then marks the change request merged and clears the space's mark.
// Whoever finds a mark or a claim left by a merge that died finishes it
// (the space moved) or undoes it (the space did not, and the claim's lease
// ran out); Recover does so for every claim when the service starts.
func (s *Service) Merge(ctx context.Context, g access.Grant, idOrNumber string, reenter func(context.Context) (access.Grant, error)) (Outcome, error) {
	for attempt := 0; ; attempt++ {
		out, err := s.mergeOnce(ctx, g, idOrNumber)
		if err != errSpaceMovedOn { // identity: apierr's Is matches any error of the same status
			return out, err
		}
		if attempt == 3 {
			return out, space.ErrSpaceMovedOn
		}
		// The space moved on between reading it and advancing it: merge again
		// against its new revision.
		if g, err = reenter(ctx); err != nil {
			return Outcome{}, err
		}
	}
}

// changing finds a change request whose content the caller changes (import)
// or merges: the grant must allow a on a space that is not locked, and the
// change request must be neither merged nor archived nor being merged.
func (s *Service) changing(ctx context.Context, g access.Grant, idOrNumber string, a access.Action) (ChangeRequest, error) {
	cr, err := s.Find(ctx, g, idOrNumber)
	if err != nil {
		return cr, err
	}
	if err := can(g, a); err != nil {
		return cr, err
	}
	if g.Locked {
		return cr, ErrLocked
	}
	if cr.MergingTo != "" {
		if cr, err = s.settle(ctx, cr); err != nil {
			return cr, err
		}
	}
	switch cr.Status {
	case StatusMerged:
		return cr, ErrMerged
	case StatusArchived:
		return cr, ErrArchived
	}
	return cr, nil
}

// errSpaceMovedOn says the space moved on between reading and advancing it.
var errSpaceMovedOn = errors.New("space moved on during the merge")

// mergeMargin is how long before its claim's lease ends a merge no longer
// starts to advance the space.
const mergeMargin = 15 * time.Second

func (s *Service) mergeOnce(ctx context.Context, g access.Grant, idOrNumber string) (Outcome, error) {
	cr, err := s.changing(ctx, g, idOrNumber, access.Merge)
	if err != nil {
		return Outcome{}, err
	}
	if settled, err := s.settleSpace(ctx, g.Organization, g.Space); err != nil {
		return Outcome{}, err
	} else if settled {
		return Outcome{}, errSpaceMovedOn // the space moved: merge against its revision now
	}
	ours, next, conflicts, err := s.combine(ctx, cr.RevisionMergedAncestor, g.Revision, cr.Revision, revision.TypeMerge, cr.ID)
	if err != nil || len(conflicts) > 0 {
		return Outcome{Revision: cr.Revision, Result: ResultConflicts, Conflicts: conflicts}, err
	}
	// 1. Claim the change request as it was merged.
	until := time.Now().Add(limits.MergeLease).UTC().Truncate(time.Millisecond)
	was := cr
	cr.MergingTo, cr.MergingFrom, cr.MergingBy, cr.MergingUntil = next.ID, ours.ID, g.User, until
	if err := s.store.Update(ctx, was, cr); err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return Outcome{}, s.lost(ctx, cr)
		}
		return Outcome{}, err
	}
	// 2. Advance the space, unless the claim is about to run out.
	if time.Now().After(until.Add(-mergeMargin)) {
		s.undo(ctx, cr)
		return Outcome{}, ErrConcurrentMod
	}
	if err := s.spaces.Advance(ctx, g, ours.ID, next.ID, cr.ID); err != nil {
		s.undo(ctx, cr)
		if errors.Is(err, apierr.ErrConflict) {
			return Outcome{}, errSpaceMovedOn
		}
		return Outcome{}, err
	}
	// 3. Mark the change request merged, then clear the space's mark.
	g.Revision = next.ID
	if err := s.finish(ctx, g, cr, next); err != nil {
		return Outcome{}, err
	}
	for _, h := range s.hooks.Merged {
		if err := h(ctx, g, next); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Revision: next.ID, Result: ResultMerge}, nil
}

// finish marks a claimed change request merged into the revision its claim
// moved the space to (compare-and-set on the claim), with its events, and
// clears the space's mark. A claim finished meanwhile is fine.
func (s *Service) finish(ctx context.Context, g access.Grant, cr ChangeRequest, next revision.Revision) error {
	now := s.clock()
	was := cr
	cr.Status, cr.RevisionMerged, cr.MergedBy, cr.MergedAt, cr.UpdatedAt = StatusMerged, next.ID, cr.MergingBy, &now, now
	cr.MergingTo, cr.MergingFrom, cr.MergingBy, cr.MergingUntil = "", "", "", time.Time{}
	_, err := s.save(ctx, g, was, cr, contentapi.NewChangeRequestMerged, next)
	// lost tells a claim finished (ErrMerged), taken again (ErrMerging) or
	// undone meanwhile (ErrConcurrentMod): all leave nothing to finish here.
	if err != nil && !errors.Is(err, ErrMerged) && !errors.Is(err, ErrMerging) && !errors.Is(err, ErrConcurrentMod) {
		return err
	}
	return s.spaces.Settled(ctx, cr.Organization, cr.Space, cr.ID)
}

// undo frees a change request from a claim whose merge did not move the
// space; a failure leaves the claim to Recover.
func (s *Service) undo(ctx context.Context, cr ChangeRequest) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	was := cr
	cr.MergingTo, cr.MergingFrom, cr.MergingBy, cr.MergingUntil = "", "", "", time.Time{}
	_ = s.store.Update(uctx, was, cr)
}

// settle finishes or undoes the unfinished merge that claimed cr: finished
// when the space points at the revision the claim planned, undone when it
// does not and the claim's lease ran out. A merge still running is a
// conflict. It returns the change request as it is now.
func (s *Service) settle(ctx context.Context, cr ChangeRequest) (ChangeRequest, error) {
	head, _, err := s.spaces.Head(ctx, cr.Space)
	if err != nil {
		return cr, err
	}
	switch {
	case head == cr.MergingTo:
		next, err := s.revisions.Get(ctx, cr.MergingTo)
		if err != nil {
			return cr, err
		}
		g := access.Grant{Organization: cr.Organization, Space: cr.Space, Revision: head, User: cr.MergingBy}
		if err := s.finish(ctx, g, cr, next); err != nil {
			return cr, err
		}
		for _, h := range s.hooks.Merged { // the merge that died did not run them
			if err := h(ctx, g, next); err != nil {
				return cr, err
			}
		}
	case time.Now().After(cr.MergingUntil):
		s.undo(ctx, cr)
	default:
		return cr, ErrMerging
	}
	now, err := s.store.Get(ctx, cr.Space, cr.ID)
	if errors.Is(err, apierr.ErrNotFound) {
		return cr, ErrNotFound
	}
	return now, err
}

// settleSpace finishes the unfinished merge marked on a space of org, if
// any, and reports whether there was one.
func (s *Service) settleSpace(ctx context.Context, org, spaceID string) (bool, error) {
	head, merging, err := s.spaces.Head(ctx, spaceID)
	if err != nil || merging == "" {
		return false, err
	}
	cr, err := s.store.Get(ctx, spaceID, merging)
	switch {
	case errors.Is(err, apierr.ErrNotFound):
	case err != nil:
		return false, err
	case cr.MergingTo == head:
		if _, err := s.settle(ctx, cr); err != nil {
			return false, err
		}
	}
	return true, s.spaces.Settled(ctx, org, spaceID, merging)
}

// Recover settles the merges that claimed a change request and did not
// finish (the service stopped between their writes) once their lease ran
// out, and returns how many. The service runs it when it starts and then
// now and then.
func (s *Service) Recover(ctx context.Context) (int, error) {
	n := 0
	for {
		crs, err := s.store.Claimed(ctx, time.Now(), 100)
		if err != nil {
			return n, err
		}
		for _, cr := range crs {
			// A claim still running, or settled by another (a conflict), is not stuck.
			if _, err := s.settle(ctx, cr); err != nil && !errors.Is(err, apierr.ErrConflict) {
				return n, err
			}
			n++
		}
		if len(crs) < 100 {
			return n, nil
		}
	}
}

// UpdateFromSpace merges the space's current content into a change request
// (three ways from the space revision it last took in), which clears
// outdated. On a conflict nothing changes. It needs the edit level.
func (s *Service) UpdateFromSpace(ctx context.Context, g access.Grant, idOrNumber string) (Outcome, error) {
	cr, err := s.Find(ctx, g, idOrNumber)
	if err != nil {
		return Outcome{}, err
	}
	if err := can(g, access.Edit); err != nil {
		return Outcome{}, err
	}
	if cr.MergingTo != "" {
		if cr, err = s.settle(ctx, cr); err != nil {
			return Outcome{}, err
		}
	}
	if cr.Status == StatusMerged {
		return Outcome{}, ErrMerged
	}
	if cr.RevisionMergedAncestor == g.Revision {
		return Outcome{Revision: cr.Revision, Result: ResultUpdate}, nil // already up to date
	}
	_, next, conflicts, err := s.combine(ctx, cr.RevisionMergedAncestor, cr.Revision, g.Revision, revision.TypeUpdate, "")
	if err != nil || len(conflicts) > 0 {
		return Outcome{Revision: cr.Revision, Result: ResultConflicts, Conflicts: conflicts}, err
	}
	was := cr
	cr.Revision, cr.RevisionMergedAncestor, cr.UpdatedAt = next.ID, g.Revision, next.CreatedAt
	if _, err := s.save(ctx, g, was, cr, contentapi.NewChangeRequestUpdated, next); err != nil {
		return Outcome{}, err
	}
	return Outcome{Revision: next.ID, Result: ResultUpdate}, nil
}

// combine merges theirs into ours from base and stores the result as a new
// revision of type typ (parents ours and theirs). On conflicts nothing is
// stored and the conflicts are returned.
func (s *Service) combine(ctx context.Context, baseID, oursID, theirsID, typ, mergedFrom string) (revision.Revision, revision.Revision, []merge.Conflict, error) {
	base, ours, theirs, err := s.three(ctx, baseID, oursID, theirsID)
	if err != nil {
		return ours, revision.Revision{}, nil, err
	}
	res, err := merge.RevisionsContext(ctx, base, ours, theirs)
	if err != nil {
		return ours, revision.Revision{}, nil, err
	}
	if len(res.Conflicts) > 0 {
		return ours, revision.Revision{}, res.Conflicts, nil
	}
	next := revision.Build(ours, typ, res.Pages, res.Files, s.clock())
	next.Parents = []string{ours.ID, theirs.ID}
	next.MergedFrom = mergedFrom
	next.ReusableContents, next.Redirects = res.ReusableContents, res.Redirects
	return ours, next, nil, s.revisions.Insert(ctx, next)
}

// three loads the base, ours and theirs revisions of a merge.
func (s *Service) three(ctx context.Context, base, ours, theirs string) (revision.Revision, revision.Revision, revision.Revision, error) {
	var out [3]revision.Revision
	for i, id := range []string{base, ours, theirs} {
		r, err := s.revisions.Get(ctx, id)
		if err != nil {
			return out[0], out[1], out[2], err
		}
		out[i] = r
	}
	return out[0], out[1], out[2], nil
}

// ImportResult is the answer of an import.
type ImportResult struct {
	Revision          string `json:"revision"`
	ImportedResources int    `json:"importedResources"`
	TotalResources    int    `json:"totalResources"`
}

// Import brings outside content (source website) into a change request as a
// new revision; pages are matched by path, so a re-import updates them. It
// needs the edit level on a space that is not locked.
func (s *Service) Import(ctx context.Context, g access.Grant, idOrNumber, source, target string) (ImportResult, error) {
	var p apierr.Problems
	p.OneOf("source", source, "website")
	if target == "" {
		p.Add("url", "is required")
	}
	p.Length("url", target, 0, limits.ImportURL)
	if err := p.Err(); err != nil {
		return ImportResult{}, err
	}
	cr, err := s.changing(ctx, g, idOrNumber, access.Edit)
	if err != nil {
		return ImportResult{}, err
	}
	base, err := s.revisions.Get(ctx, cr.Revision)
	if err != nil {
		return ImportResult{}, err
	}
	pages, files, imported, total, err := s.importer.Import(ctx, base, source, target)
	if err != nil {
		return ImportResult{}, err
	}
	now := s.clock()
	next := revision.Build(base, revision.TypeEdits, pages, files, now)
	next.ReusableContents = base.ReusableContents
	if err := s.revisions.Insert(ctx, next); err != nil {
		return ImportResult{}, err
	}
	was := cr
	cr.Revision, cr.UpdatedAt = next.ID, now
	if !contains(cr.Contributors, g.User) {
		cr.Contributors = append(cr.Contributors, g.User)
	}
	// Compare-and-set on what the import started from: the revision, the
	// status (open or draft) and no merge under way.
	if _, err := s.save(ctx, g, was, cr, contentapi.NewChangeRequestUpdated, next); err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Revision: next.ID, ImportedResources: imported, TotalResources: total}, nil
}

// PDFURL is the URL that serves a change request's PDF (all pages, or one).
func (s *Service) PDFURL(ctx context.Context, g access.Grant, idOrNumber string, only bool, page string) (string, error) {
	cr, _, err := s.pdfSource(ctx, g, idOrNumber, only, page)
	if err != nil {
		return "", err
	}
	u := s.urls.Location("/spaces/" + cr.Space + "/change-requests/" + cr.ID + "/pdf/download")
	if only {
		u += "?only=true&page=" + url.QueryEscape(page)
	}
	return u, nil
}

// PDF renders a change request's pages (or one page) as a PDF.
func (s *Service) PDF(ctx context.Context, g access.Grant, idOrNumber string, only bool, page string) ([]byte, error) {
	cr, rev, err := s.pdfSource(ctx, g, idOrNumber, only, page)
	if err != nil {
		return nil, err
	}
	if !only {
		page = ""
	}
	title := cr.Subject
	if title == "" {
		title = "Change request #" + strconv.Itoa(cr.Number)
	}
	return s.printer.PDF(ctx, title, rev, page)
}

func (s *Service) pdfSource(ctx context.Context, g access.Grant, idOrNumber string, only bool, page string) (ChangeRequest, revision.Revision, error) {
	if only && page == "" {
		return ChangeRequest{}, revision.Revision{}, apierr.Invalid("page", "is required with only")
	}
	cr, err := s.Find(ctx, g, idOrNumber)
	if err != nil {
		return cr, revision.Revision{}, err
	}
	rev, err := s.revisions.Get(ctx, cr.Revision)
	if err != nil {
		return cr, rev, err
	}
	if only {
		if _, ok := rev.FindPage(page); !ok {
			return cr, rev, apierr.Invalid("page", "is not a page of this change request")
		}
	}
	return cr, rev, nil
}
