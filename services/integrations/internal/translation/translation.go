// Package translation is the organization's translation settings: a title
// and the languages its content is translated into. Any member reads them;
// only admins create, change and delete them.
package translation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/integrations/internal/access"
)

// Limits.
const (
	MaxTitle     = 100
	MaxLanguages = 39 // every language of Languages, once
)

// Languages are the language codes a translation may target.
var Languages = contentapi.Languages

// ErrNotFound answers for settings that do not exist or belong to another organization.
var ErrNotFound = apierr.NotFound("translation settings not found")

// Settings are stored translation settings.
type Settings struct {
	ID           string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Title        string    `bson:"title"`
	Languages    []string  `bson:"languages"`
	CreatedAt    time.Time `bson:"createdAt"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// Store keeps settings; reads of missing settings are apierr not-found errors.
type Store interface {
	Insert(ctx context.Context, s Settings, ev envelope.Event) error
	Get(ctx context.Context, org, id string) (Settings, error)
	// List returns one page of org's settings by id (at most p.Limit, after p.AfterID) and counts them all.
	List(ctx context.Context, org string, p paging.Request) ([]Settings, int, error)
	Replace(ctx context.Context, s Settings, ev envelope.Event) error
	Remove(ctx context.Context, org, id string, ev envelope.Event) error
}

// View is settings as the API returns them (translation-settings).
type View struct {
	Object      string      `json:"object"`
	ID          string      `json:"id"`
	Title       string      `json:"title"`
	Languages   []string    `json:"languages"`
	CreatedAt   time.Time   `json:"createdAt"`
	UpdatedAt   time.Time   `json:"updatedAt"`
	Permissions Permissions `json:"permissions"`
	URLs        URLs        `json:"urls"`
}

// Permissions say what the caller may do with the settings.
type Permissions struct {
	View bool `json:"view"`
	Edit bool `json:"edit"`
}

// URLs are the settings' URLs.
type URLs struct {
	Location string `json:"location"`
}

// Input is the body of a create or a replace.
type Input struct {
	Title     *string  `json:"title"`
	Languages []string `json:"languages"`
}

func (in Input) validate() error {
	var p apierr.Problems
	if in.Title == nil {
		p.Add("title", "is required")
	} else {
		p.Text("title", *in.Title, 1, MaxTitle)
	}
	if len(in.Languages) > MaxLanguages {
		p.Add("languages", "must have at most %d items", MaxLanguages)
	}
	seen := map[string]bool{}
	for i, l := range in.Languages {
		field := fmt.Sprintf("languages[%d]", i)
		switch {
		case !slices.Contains(Languages, l):
			p.Add(field, "must be a supported language code")
		case seen[l]:
			p.Add(field, "is listed twice")
		}
		seen[l] = true
	}
	return p.Err()
}

// Service carries out the translation settings operations.
type Service struct {
	store  Store
	public string // gateway URL
	now    func() time.Time
}

// New returns a service on store; public is the gateway URL of urls.location.
func New(store Store, public string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, public: public, now: now}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

func (s *Service) view(st Settings, role access.Caller) View {
	r, _ := role.Role(st.Organization)
	langs := st.Languages
	if langs == nil {
		langs = []string{}
	}
	return View{Object: "translation-settings", ID: st.ID, Title: st.Title, Languages: langs,
		CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt,
		Permissions: Permissions{View: access.Allows(r, access.View), Edit: access.Allows(r, access.Manage)},
		URLs:        URLs{Location: s.public + "/v1/orgs/" + st.Organization + "/translations/" + st.ID}}
}

func (s *Service) get(ctx context.Context, org, id string) (Settings, error) {
	st, err := s.store.Get(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return st, ErrNotFound
	}
	if err != nil {
		return st, fmt.Errorf("load translation settings %s: %w", id, err)
	}
	return st, nil
}

// List lists org's settings by id.
func (s *Service) List(ctx context.Context, c access.Caller, org string, p paging.Request) (paging.List[View], error) {
	if _, err := access.Enter(c, org, access.View, ErrNotFound, "view translation settings"); err != nil {
		return paging.List[View]{}, err
	}
	l, err := paging.Fetch(p, func(limit int) ([]Settings, int, error) {
		p.Limit = limit
		return s.store.List(ctx, org, p)
	}, func(st Settings) string { return paging.IDCursor(st.ID) })
	if err != nil {
		return paging.List[View]{}, err
	}
	views := make([]View, len(l.Items))
	for i, st := range l.Items {
		views[i] = s.view(st, c)
	}
	return paging.With(l, views), nil
}

// Get returns one of org's settings.
func (s *Service) Get(ctx context.Context, c access.Caller, org, id string) (View, error) {
	if _, err := access.Enter(c, org, access.View, ErrNotFound, "view translation settings"); err != nil {
		return View{}, err
	}
	st, err := s.get(ctx, org, id)
	if err != nil {
		return View{}, err
	}
	return s.view(st, c), nil
}

// Create makes new settings.
func (s *Service) Create(ctx context.Context, c access.Caller, org string, in Input) (View, error) {
	if _, err := access.Enter(c, org, access.Manage, ErrNotFound, "create translation settings"); err != nil {
		return View{}, err
	}
	if err := in.validate(); err != nil {
		return View{}, err
	}
	now := s.clock()
	st := Settings{ID: ids.New(), Organization: org, Title: *in.Title, Languages: in.Languages, CreatedAt: now, UpdatedAt: now}
	if st.Languages == nil {
		st.Languages = []string{}
	}
	v := s.view(st, c)
	if err := s.store.Insert(ctx, st, s.event(integrationsapi.NewTranslationSettingsCreated, st)); err != nil {
		return View{}, err
	}
	return v, nil
}

// Replace sets the title (and the languages, when given) of settings.
func (s *Service) Replace(ctx context.Context, c access.Caller, org, id string, in Input) (View, error) {
	if _, err := access.Enter(c, org, access.Manage, ErrNotFound, "change translation settings"); err != nil {
		return View{}, err
	}
	if err := in.validate(); err != nil {
		return View{}, err
	}
	st, err := s.get(ctx, org, id)
	if err != nil {
		return View{}, err
	}
	st.Title, st.UpdatedAt = *in.Title, s.clock()
	if in.Languages != nil {
		st.Languages = in.Languages
	}
	if err := s.store.Replace(ctx, st, s.event(integrationsapi.NewTranslationSettingsUpdated, st)); err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return View{}, ErrNotFound
		}
		return View{}, err
	}
	return s.view(st, c), nil
}

// Delete removes settings.
func (s *Service) Delete(ctx context.Context, c access.Caller, org, id string) error {
	if _, err := access.Enter(c, org, access.Manage, ErrNotFound, "delete translation settings"); err != nil {
		return err
	}
	st, err := s.get(ctx, org, id)
	if err != nil {
		return err
	}
	err = s.store.Remove(ctx, org, id, s.event(integrationsapi.NewTranslationSettingsDeleted, st))
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// event is the event of a change of st: the settings without a caller's permissions.
func (s *Service) event(newEvent func(org, subject string, data any) envelope.Event, st Settings) envelope.Event {
	v := s.view(st, access.Caller{})
	return newEvent(st.Organization, st.ID, v)
}
