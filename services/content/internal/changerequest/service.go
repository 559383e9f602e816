package changerequest

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/people"
	"github.com/docspub/platform/services/content/internal/revision"
)

// Errors besides field problems.
var (
	ErrNotFound      = apierr.NotFound("change request not found")
	ErrMerged        = apierr.Conflict("change request is already merged")
	ErrArchived      = apierr.Conflict("change request is archived; reopen it first")
	ErrLocked        = apierr.Forbidden("space is locked; unlock it (editMode live) to change its content")
	ErrConcurrentMod = apierr.Conflict("the change request changed meanwhile; try again")
	ErrMerging       = apierr.Conflict("the change request is being merged; try again shortly")
)

// Hooks follow content changes.
type Hooks struct {
	// Merged runs after a change request's content became the space's.
	Merged []func(ctx context.Context, g access.Grant, rev revision.Revision) error
}

// Service carries out change-request operations within a space grant.
type Service struct {
	store     Store
	revisions Revisions
	spaces    Spaces
	people    people.Directory
	importer  Importer
	printer   Printer
	urls      links.URLs
	hooks     Hooks
	now       func() time.Time
}

// Deps are the service's collaborators.
type Deps struct {
	Store     Store
	Revisions Revisions
	Spaces    Spaces
	People    people.Directory
	Importer  Importer
	Printer   Printer
	URLs      links.URLs
	Hooks     Hooks
	Now       func() time.Time
}

// New returns a service.
func New(d Deps) *Service {
	if d.Now == nil {
		d.Now = time.Now
	}
	return &Service{store: d.Store, revisions: d.Revisions, spaces: d.Spaces, people: d.People, importer: d.Importer,
		printer: d.Printer, urls: d.URLs, hooks: d.Hooks, now: d.Now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

func can(g access.Grant, a access.Action) error {
	if !g.Can(a) {
		return apierr.Forbidden("your access to this space does not allow you to %s", a)
	}
	return nil
}

// Find returns a change request of the granted space by id or number.
func (s *Service) Find(ctx context.Context, g access.Grant, idOrNumber string) (ChangeRequest, error) {
	if err := can(g, access.View); err != nil {
		return ChangeRequest{}, err
	}
	var cr ChangeRequest
	var err error
	if n, convErr := strconv.Atoi(idOrNumber); convErr == nil && n > 0 {
		cr, err = s.store.ByNumber(ctx, g.Space, n)
	} else {
		cr, err = s.store.Get(ctx, g.Space, idOrNumber)
	}
	if errors.Is(err, apierr.ErrNotFound) {
		return ChangeRequest{}, ErrNotFound
	}
	return cr, err
}

// Get returns a change request.
func (s *Service) Get(ctx context.Context, g access.Grant, idOrNumber string) (View, error) {
	cr, err := s.Find(ctx, g, idOrNumber)
	if err != nil {
		return View{}, err
	}
	return s.render(ctx, g, cr)
}

// List lists a space's change requests, newest first.
func (s *Service) List(ctx context.Context, g access.Grant, q Query) (List, error) {
	if err := can(g, access.View); err != nil {
		return List{}, err
	}
	q.Space = g.Space
	l, err := paging.Fetch(paging.Request{Limit: q.Limit}, func(limit int) ([]ChangeRequest, int, error) {
		q.Limit = limit
		return s.store.List(ctx, q)
	}, func(cr ChangeRequest) string { return paging.IDCursor(cr.ID) })
	if err != nil {
		return List{}, err
	}
	views, err := s.renderAll(ctx, g, l.Items)
	return paging.With(l, views), err
}

// Create starts a change request from the space's current revision; it
// needs the edit level.
func (s *Service) Create(ctx context.Context, g access.Grant, subject string) (View, error) {
	if err := can(g, access.Edit); err != nil {
		return View{}, err
	}
	subject = strings.TrimSpace(subject)
	var p apierr.Problems
	p.Text("subject", subject, 0, MaxSubject)
	if err := p.Err(); err != nil {
		return View{}, err
	}
	n, err := s.store.NextNumber(ctx, g.Space)
	if err != nil {
		return View{}, err
	}
	now := s.clock()
	cr := ChangeRequest{ID: ids.New(), Space: g.Space, Organization: g.Organization, Number: n, Status: StatusOpen,
		Subject: subject, CreatedBy: g.User, Contributors: []string{g.User}, CreatedAt: now, UpdatedAt: now,
		Revision: g.Revision, RevisionInitial: g.Revision, RevisionMergedAncestor: g.Revision}
	v, err := s.render(ctx, g, cr)
	if err != nil {
		return View{}, err
	}
	if err := s.store.Insert(ctx, cr, contentapi.NewChangeRequestCreated(cr.Organization, v)); err != nil {
		return View{}, err
	}
	return v, nil
}

// Patch is a change request PATCH.
type Patch struct {
	Subject *string
	Status  *string
}

// Update changes a change request's subject and status (draft, open,
// archived; merged is reached only by merging). It needs the edit level.
func (s *Service) Update(ctx context.Context, g access.Grant, idOrNumber string, p Patch) (View, error) {
	var probs apierr.Problems
	var subject string
	if p.Subject != nil {
		subject = strings.TrimSpace(*p.Subject)
		probs.Text("subject", subject, 0, MaxSubject)
	}
	if p.Status != nil {
		probs.OneOf("status", *p.Status, StatusDraft, StatusOpen, StatusArchived)
	}
	if err := probs.Err(); err != nil {
		return View{}, err
	}
	cr, err := s.Find(ctx, g, idOrNumber)
	if err != nil {
		return View{}, err
	}
	if err := can(g, access.Edit); err != nil {
		return View{}, err
	}
	if cr.Status == StatusMerged && p.Status != nil {
		return View{}, ErrMerged
	}
	if cr.MergingTo != "" {
		return View{}, ErrMerging
	}
	if p.Subject == nil && p.Status == nil {
		return s.render(ctx, g, cr)
	}
	was := cr
	if p.Subject != nil {
		cr.Subject = subject
	}
	if p.Status != nil {
		cr.Status = *p.Status
	}
	cr.UpdatedAt = s.clock()
	return s.save(ctx, g, was, cr, contentapi.NewChangeRequestUpdated)
}

// save stores the change of a change request from was to cr with its
// event, and the events of the revisions the change made
// (revision.created), recorded in the same write, provided the change
// request is still as was (see Store.Update); otherwise it writes nothing
// and says why: merged, being merged, or changed meanwhile.
func (s *Service) save(ctx context.Context, g access.Grant, was, cr ChangeRequest, newEvent func(string, View) envelope.Event, made ...revision.Revision) (View, error) {
	v, err := s.render(ctx, g, cr)
	if err != nil {
		return View{}, err
	}
	events := []envelope.Event{newEvent(cr.Organization, v)}
	for _, r := range made {
		events = append(events, contentapi.NewRevisionCreated(r.Organization, contentapi.Revision{
			ID: r.ID, Space: r.Space, Type: r.Type, Parents: r.Parents, MergedFrom: r.MergedFrom, ChangeRequest: cr.ID,
			Pages: len(revision.Flatten(r.Pages)), Files: len(r.Files), CreatedAt: r.CreatedAt}))
	}
	err = s.store.Update(ctx, was, cr, events...)
	if errors.Is(err, apierr.ErrNotFound) {
		return View{}, s.lost(ctx, cr)
	}
	return v, err
}

// lost says why a compare-and-set on cr wrote nothing.
func (s *Service) lost(ctx context.Context, cr ChangeRequest) error {
	now, err := s.store.Get(ctx, cr.Space, cr.ID)
	switch {
	case errors.Is(err, apierr.ErrNotFound):
		return ErrNotFound
	case err != nil:
		return err
	case now.Status == StatusMerged:
		return ErrMerged
	case now.MergingTo != "":
		return ErrMerging
	}
	return ErrConcurrentMod
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}
