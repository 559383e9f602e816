package customfield

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/links"
)

// Errors the service returns besides field problems.
var (
	ErrOrganizationNotFound = apierr.NotFound("organization not found")
	ErrFieldNotFound        = apierr.NotFound("custom field not found")
)

// Service carries out the custom field operations for a caller.
type Service struct {
	store Store
	urls  links.URLs
	now   func() time.Time
}

// New returns a service over store rendering URLs with urls.
func New(store Store, urls links.URLs) *Service {
	return &Service{store: store, urls: urls, now: now}
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// enter returns the caller's role in org. A caller who is not a member
// learns nothing (the organization is not found); a member whose role does
// not allow a (guests allow nothing) is refused.
func enter(c access.Caller, org string, a access.Action) (roles.Role, error) {
	role, member := c.Role(org)
	if !member {
		return role, ErrOrganizationNotFound
	}
	if !access.Allows(role, a) {
		if a == access.Configure {
			return role, apierr.Forbidden("your role in this organization does not allow you to define custom fields")
		}
		return role, apierr.Forbidden("your role in this organization does not allow you to see custom fields")
	}
	return role, nil
}

func conflict(name string) error {
	return apierr.Conflict("a custom field named %q already exists in this organization", name)
}

// field loads a definition, translating not-found.
func (s *Service) field(ctx context.Context, org, name string) (Field, error) {
	f, err := s.store.Field(ctx, org, name)
	if errors.Is(err, apierr.ErrNotFound) {
		return f, ErrFieldNotFound
	}
	return f, err
}

// List returns one page of the organization's definitions by name and how
// many there are.
func (s *Service) List(ctx context.Context, c access.Caller, org string, p Page) ([]View, int, error) {
	role, err := enter(c, org, access.View)
	if err != nil {
		return nil, 0, err
	}
	fs, n, err := s.store.Fields(ctx, org, p)
	if err != nil {
		return nil, 0, fmt.Errorf("list custom fields of %s: %w", org, err)
	}
	out := make([]View, len(fs))
	for i, f := range fs {
		out[i] = Render(s.urls, f, role)
	}
	return out, n, nil
}

// Get returns one definition.
func (s *Service) Get(ctx context.Context, c access.Caller, org, name string) (View, error) {
	role, err := enter(c, org, access.View)
	if err != nil {
		return View{}, err
	}
	f, err := s.field(ctx, org, name)
	if err != nil {
		return View{}, err
	}
	return Render(s.urls, f, role), nil
}

// Create defines a new field; its name must be free in the organization.
func (s *Service) Create(ctx context.Context, c access.Caller, org string, in NewField) (View, error) {
	role, err := enter(c, org, access.Configure)
	if err != nil {
		return View{}, err
	}
	if err := in.validate(); err != nil {
		return View{}, err
	}
	t := s.now()
	f := Field{
		ID: ids.New(), Organization: org, Name: in.Name, Type: Type(in.Type), Title: in.Title,
		Description: in.Description, Placeholder: in.Placeholder, CreatedAt: t, UpdatedAt: t,
	}
	if f.Type.HasOptions() {
		f.Options = in.Options.Value
	}
	switch _, err := s.store.Field(ctx, org, f.Name); {
	case err == nil:
		return View{}, conflict(f.Name)
	case !errors.Is(err, apierr.ErrNotFound):
		return View{}, fmt.Errorf("load custom field %s: %w", f.Name, err)
	}
	// A new field starts without values, even where a deleted field of the
	// same name left some behind (its purge failed or raced a write).
	if err := s.store.ClearValues(ctx, org, f.Name); err != nil {
		return View{}, fmt.Errorf("clear values of custom field %s: %w", f.Name, err)
	}
	v := Render(s.urls, f, role)
	err = s.store.InsertField(ctx, f, contentapi.NewCustomFieldCreated(org, v))
	if errors.Is(err, apierr.ErrConflict) {
		return View{}, conflict(f.Name)
	}
	if err != nil {
		return View{}, fmt.Errorf("create custom field %s: %w", f.Name, err)
	}
	return v, nil
}

// Update changes a definition's title, description, placeholder or options.
// Values whose option is removed stop showing (see Field.Fit).
func (s *Service) Update(ctx context.Context, c access.Caller, org, name string, p Patch) (View, error) {
	role, err := enter(c, org, access.Configure)
	if err != nil {
		return View{}, err
	}
	f, err := s.field(ctx, org, name)
	if err != nil {
		return View{}, err
	}
	f, err = s.store.UpdateField(ctx, f.ID, func(f *Field) ([]envelope.Event, error) {
		changed, err := p.apply(f)
		if err != nil || !changed {
			return nil, err
		}
		f.UpdatedAt = s.now()
		return []envelope.Event{contentapi.NewCustomFieldUpdated(org, Render(s.urls, *f, role))}, nil
	})
	if errors.Is(err, apierr.ErrNotFound) {
		return View{}, ErrFieldNotFound
	}
	if err != nil {
		return View{}, fmt.Errorf("update custom field %s: %w", name, err)
	}
	return Render(s.urls, f, role), nil
}

// Delete removes a definition and then its values from every space.
func (s *Service) Delete(ctx context.Context, c access.Caller, org, name string) error {
	role, err := enter(c, org, access.Configure)
	if err != nil {
		return err
	}
	f, err := s.field(ctx, org, name)
	if err != nil {
		return err
	}
	err = s.store.RemoveField(ctx, f, contentapi.NewCustomFieldDeleted(org, Render(s.urls, f, role)))
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrFieldNotFound
	}
	if err != nil {
		return fmt.Errorf("delete custom field %s: %w", name, err)
	}
	if err := s.store.ClearValues(ctx, org, name); err != nil {
		return fmt.Errorf("clear values of custom field %s: %w", name, err)
	}
	return nil
}

// SpaceValues returns every definition of the space's organization by name,
// each with the space's value when it has one. The grant comes from the
// space service (Gate) and must allow access.View.
func (s *Service) SpaceValues(ctx context.Context, c access.Caller, g access.Grant) ([]FieldValue, error) {
	if !g.Can(access.View) {
		return nil, apierr.Forbidden("your level on this space does not allow you to see it")
	}
	role, _ := c.Role(g.Organization)
	defs, _, err := s.store.Fields(ctx, g.Organization, Page{})
	if err != nil {
		return nil, fmt.Errorf("list custom fields of %s: %w", g.Organization, err)
	}
	sv, err := s.values(ctx, g)
	if err != nil {
		return nil, err
	}
	return s.render(defs, sv, role), nil
}

// values loads a space's values; values written in another organization
// (before a transfer) do not count.
func (s *Service) values(ctx context.Context, g access.Grant) (Values, error) {
	sv, err := s.store.SpaceValues(ctx, g.Space)
	if err != nil {
		return nil, fmt.Errorf("load custom field values of space %s: %w", g.Space, err)
	}
	if sv.Organization != g.Organization {
		return Values{}, nil
	}
	return sv.Values, nil
}

func (s *Service) render(defs []Field, vals Values, role roles.Role) []FieldValue {
	out := make([]FieldValue, len(defs))
	for i, f := range defs {
		out[i].CustomField = Render(s.urls, f, role)
		if v, ok := vals[f.Name]; ok {
			if v, ok := f.Fit(v); ok {
				out[i].Value = v
			}
		}
	}
	return out
}

// SetSpaceValues validates every value of the patch against the
// organization's definitions and then writes them at once; one problem
// writes nothing. The grant must allow access.Edit; a locked space allows
// it too (values are metadata, not content).
func (s *Service) SetSpaceValues(ctx context.Context, c access.Caller, g access.Grant, p ValuesPatch) error {
	if !g.Can(access.Edit) {
		return apierr.Forbidden("your level on this space does not allow you to edit its custom fields")
	}
	defs, _, err := s.store.Fields(ctx, g.Organization, Page{})
	if err != nil {
		return fmt.Errorf("list custom fields of %s: %w", g.Organization, err)
	}
	ch, err := p.parse(byName(defs))
	if err != nil {
		return err
	}
	if len(ch.Set) == 0 && len(ch.Clear) == 0 {
		return nil
	}
	role, _ := c.Role(g.Organization)
	return s.write(ctx, g, defs, ch, role)
}

// write stores the changes with an event carrying the space's values after
// them: a compare-and-set on the values it read, so that the event never
// leaves out a value another request wrote meanwhile (that one gets 409).
func (s *Service) write(ctx context.Context, g access.Grant, defs []Field, ch Changes, role roles.Role) error {
	err := s.store.UpdateSpaceValues(ctx, g.Space, func(sv *SpaceValues) ([]envelope.Event, error) {
		if sv.Organization != g.Organization {
			sv.Organization, sv.Values = g.Organization, Values{}
		}
		for k, v := range ch.Set {
			sv.Values[k] = v
		}
		for _, k := range ch.Clear {
			delete(sv.Values, k)
		}
		return []envelope.Event{contentapi.NewCustomFieldValuesUpdated(g.Organization, g.Space, s.render(defs, sv.Values, role))}, nil
	})
	if err != nil {
		return fmt.Errorf("set custom field values of space %s: %w", g.Space, err)
	}
	return nil
}

// CopyValues copies the values of the space from to the space to (space
// duplication): those of fields defined in to's organization that still
// fit them. It writes nothing when there is nothing to copy.
func (s *Service) CopyValues(ctx context.Context, from, to access.Grant) error {
	if !from.Can(access.View) {
		return apierr.Forbidden("your level on this space does not allow you to see it")
	}
	vals, err := s.values(ctx, from)
	if err != nil || len(vals) == 0 {
		return err
	}
	defs, _, err := s.store.Fields(ctx, to.Organization, Page{})
	if err != nil {
		return fmt.Errorf("list custom fields of %s: %w", to.Organization, err)
	}
	ch := Changes{Set: Values{}}
	for _, f := range defs {
		if v, ok := vals[f.Name]; ok {
			if v, ok := f.Fit(v); ok {
				ch.Set[f.Name] = v
			}
		}
	}
	if len(ch.Set) == 0 {
		return nil
	}
	return s.write(ctx, to, defs, ch, to.Level)
}
