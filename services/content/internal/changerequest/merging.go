package changerequest

import (
	"context"
	"errors"
	"net/url"
	"strconv"

	"github.com/docspub/platform/libs/apierr"
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
// change request must be neither merged nor archived.
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

func (s *Service) mergeOnce(ctx context.Context, g access.Grant, idOrNumber string) (Outcome, error) {
	cr, err := s.changing(ctx, g, idOrNumber, access.Merge)
	if err != nil {
		return Outcome{}, err
	}
	ours, next, conflicts, err := s.combine(ctx, cr.RevisionMergedAncestor, g.Revision, cr.Revision, revision.TypeMerge, cr.ID)
	if err != nil || len(conflicts) > 0 {
		return Outcome{Revision: cr.Revision, Result: ResultConflicts, Conflicts: conflicts}, err
	}
	now := next.CreatedAt
	if err := s.spaces.Advance(ctx, g, ours.ID, next.ID); err != nil {
		if errors.Is(err, apierr.ErrConflict) {
			return Outcome{}, errSpaceMovedOn
		}
		return Outcome{}, err
	}
	g.Revision = next.ID
	cr.Status, cr.RevisionMerged, cr.MergedBy, cr.MergedAt, cr.UpdatedAt = StatusMerged, next.ID, g.User, &now, now
	if _, err := s.save(ctx, g, cr, nil, Fields{"status": StatusMerged, "revisionMerged": next.ID,
		"mergedBy": g.User, "mergedAt": now, "updatedAt": now}, "change_request.merged", next); err != nil {
		return Outcome{}, err
	}
	for _, h := range s.hooks.Merged {
		if err := h(ctx, g, next); err != nil {
			return Outcome{}, err
		}
	}
	return Outcome{Revision: next.ID, Result: ResultMerge}, nil
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
	now := next.CreatedAt
	from := cr.Revision
	cr.Revision, cr.RevisionMergedAncestor, cr.UpdatedAt = next.ID, g.Revision, now
	if _, err := s.save(ctx, g, cr, Fields{"revision": from}, Fields{"revision": next.ID,
		"revisionMergedAncestor": g.Revision, "updatedAt": now}, "change_request.updated", next); err != nil {
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
	next.ReusableContents = res.ReusableContents
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
	set := Fields{"revision": next.ID, "updatedAt": now}
	cr.Revision, cr.UpdatedAt = next.ID, now
	if !contains(cr.Contributors, g.User) {
		cr.Contributors = append(cr.Contributors, g.User)
		set["contributors"] = cr.Contributors
	}
	if _, err := s.save(ctx, g, cr, Fields{"revision": base.ID}, set, "change_request.updated", next); err != nil {
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
