package openapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/jobs"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/urlguard"
	"github.com/docspub/platform/services/integrations/internal/access"
)

// JobKind is the kind of the processing jobs.
const JobKind = "openapi.process"

// slugPattern is OpenAPISpecSlug's pattern, lower case as api.md has it.
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(?:-[a-z0-9]+)*$`)

// Config tunes processing.
type Config struct {
	Guard        urlguard.Guard
	FetchTimeout time.Duration
	// ParseTimeout bounds how long a job waits for the OpenAPI library
	// (default 20s); Parses is how many parses run at once (default 2).
	ParseTimeout time.Duration
	Parses       int
}

// Service carries out the OpenAPI spec operations and processes specs.
type Service struct {
	store  Store
	queue  jobs.Queue
	cfg    Config
	public string
	app    string
	now    func() time.Time
	log    *slog.Logger
	parses chan struct{} // parse slots
}

// New returns a service on store whose processing jobs go to queue. public
// and app are the bases of urls.location and urls.app.
func New(store Store, queue jobs.Queue, cfg Config, public, app string, log *slog.Logger) *Service {
	if cfg.FetchTimeout <= 0 {
		cfg.FetchTimeout = 30 * time.Second
	}
	if cfg.ParseTimeout <= 0 {
		cfg.ParseTimeout = 20 * time.Second
	}
	if cfg.Parses <= 0 {
		cfg.Parses = 2
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{store: store, queue: queue, cfg: cfg, public: public, app: app, now: time.Now, log: log,
		parses: make(chan struct{}, cfg.Parses)}
}

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// Source is a spec's source: a URL or a text.
type Source struct {
	URL  *string `json:"url"`
	Text *string `json:"text"`
}

// CreateInput is the body of a create.
type CreateInput struct {
	Slug   *string `json:"slug"`
	Source *Source `json:"source"`
}

// checkSource validates a source and returns its URL and text.
func (s *Service) checkSource(p *apierr.Problems, src *Source) (string, []byte) {
	switch {
	case src == nil:
		p.Add("source", "is required")
	case src.URL != nil && src.Text != nil:
		p.Add("source", "must have either url or text, not both")
	case src.URL != nil:
		u := *src.URL
		switch {
		case len(u) == 0:
			p.Add("source.url", "must not be empty")
		case len(u) > MaxSourceURL:
			p.Add("source.url", "must be at most %d characters", MaxSourceURL)
		default:
			if pu, err := url.Parse(u); err != nil || !pu.IsAbs() {
				p.Add("source.url", "must be an absolute http or https URL")
			} else if _, err := s.cfg.Guard.CheckURL(u); err != nil {
				p.Add("source.url", "must be a public http or https URL")
			} else if pu.User != nil {
				p.Add("source.url", "must not carry credentials")
			}
		}
		return u, nil
	case src.Text != nil:
		switch t := *src.Text; {
		case len(t) == 0:
			p.Add("source.text", "must not be empty")
		case len(t) > MaxTextBytes:
			p.Add("source.text", "must be at most %d bytes", MaxTextBytes)
		}
		return "", []byte(*src.Text)
	default:
		p.Add("source", "must have url or text")
	}
	return "", nil
}

// List lists org's specs by id.
func (s *Service) List(ctx context.Context, c access.Caller, org string, p paging.Request) (paging.List[View], error) {
	if _, err := access.Enter(c, org, access.View, ErrNotFound, "view OpenAPI specs"); err != nil {
		return paging.List[View]{}, err
	}
	l, err := paging.Fetch(p, func(limit int) ([]Spec, int, error) {
		p.Limit = limit
		return s.store.List(ctx, org, p)
	}, func(sp Spec) string { return paging.IDCursor(sp.ID) })
	if err != nil {
		return paging.List[View]{}, err
	}
	views := make([]View, len(l.Items))
	for i, sp := range l.Items {
		views[i] = s.view(sp, c)
	}
	return paging.With(l, views), nil
}

// spec loads org's spec by slug.
func (s *Service) spec(ctx context.Context, c access.Caller, org, slug string, a access.Action, what string) (Spec, error) {
	if _, err := access.Enter(c, org, a, ErrNotFound, what); err != nil {
		return Spec{}, err
	}
	sp, err := s.store.BySlug(ctx, org, slug)
	if errors.Is(err, apierr.ErrNotFound) {
		return sp, ErrNotFound
	}
	if err != nil {
		return sp, fmt.Errorf("load OpenAPI spec %s: %w", slug, err)
	}
	return sp, nil
}

// Get returns org's spec by slug.
func (s *Service) Get(ctx context.Context, c access.Caller, org, slug string) (View, error) {
	sp, err := s.spec(ctx, c, org, slug, access.View, "view OpenAPI specs")
	if err != nil {
		return View{}, err
	}
	return s.view(sp, c), nil
}

// Create makes a spec and starts its processing; a taken slug is a 409.
func (s *Service) Create(ctx context.Context, c access.Caller, org string, in CreateInput) (View, error) {
	if _, err := access.Enter(c, org, access.Edit, ErrNotFound, "create OpenAPI specs"); err != nil {
		return View{}, err
	}
	var p apierr.Problems
	if in.Slug == nil {
		p.Add("slug", "is required")
	} else {
		checkSlug(&p, *in.Slug)
	}
	u, text := s.checkSource(&p, in.Source)
	if err := p.Err(); err != nil {
		return View{}, err
	}
	return s.create(ctx, c, org, *in.Slug, u, text)
}

func checkSlug(p *apierr.Problems, slug string) {
	if n := len(slug); n < 1 || n > MaxSlug {
		p.Length("slug", slug, 1, MaxSlug)
		return
	}
	p.Pattern("slug", slug, slugPattern)
}

// admit refuses a new processing when org already has MaxPendingPerOrg.
func (s *Service) admit(ctx context.Context, org string) error {
	n, err := s.store.Pending(ctx, org)
	if err != nil {
		return err
	}
	if n >= MaxPendingPerOrg {
		return apierr.TooMany(5*time.Second, "your organization has %d OpenAPI specs waiting for processing; retry when they are done", n)
	}
	return nil
}

func (s *Service) create(ctx context.Context, c access.Caller, org, slug, u string, text []byte) (View, error) {
	if err := s.admit(ctx, org); err != nil {
		return View{}, err
	}
	now := s.clock()
	sp := Spec{ID: ids.New(), Organization: org, Slug: slug, SlugKey: org + "/" + slug, SourceURL: u,
		Visibility: VisibilityPrivate, State: StatePending, Generation: 1, CreatedAt: now, UpdatedAt: now}
	err := s.store.Insert(ctx, sp, text, s.event(integrationsapi.NewOpenAPISpecCreated, sp))
	if errors.Is(err, apierr.ErrConflict) {
		return View{}, ErrSlugTaken
	}
	if err != nil {
		return View{}, err
	}
	s.enqueue(ctx, sp)
	return s.view(sp, c), nil
}

// Replace sets the source of org's spec slug, creating the spec when there
// is none, and starts its processing.
func (s *Service) Replace(ctx context.Context, c access.Caller, org, slug string, src *Source) (View, error) {
	if _, err := access.Enter(c, org, access.Edit, ErrNotFound, "change OpenAPI specs"); err != nil {
		return View{}, err
	}
	var p apierr.Problems
	checkSlug(&p, slug)
	u, text := s.checkSource(&p, src)
	if err := p.Err(); err != nil {
		return View{}, err
	}
	sp, err := s.store.BySlug(ctx, org, slug)
	if errors.Is(err, apierr.ErrNotFound) {
		v, err := s.create(ctx, c, org, slug, u, text)
		if errors.Is(err, ErrSlugTaken) {
			return View{}, ErrChanged // created meanwhile
		}
		return v, err
	}
	if err != nil {
		return View{}, err
	}
	if err := s.admit(ctx, org); err != nil {
		return View{}, err
	}
	sp.Generation++
	sp.SourceURL, sp.State, sp.UpdatedAt = u, StatePending, s.clock()
	if err := s.store.SetSource(ctx, sp, text, s.event(integrationsapi.NewOpenAPISpecUpdated, sp)); err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return View{}, ErrChanged
		}
		return View{}, err
	}
	s.enqueue(ctx, sp)
	return s.view(sp, c), nil
}

// UpdateInput is the body of a PATCH.
type UpdateInput struct {
	Visibility *string `json:"visibility"`
}

// Update changes a spec's visibility.
func (s *Service) Update(ctx context.Context, c access.Caller, org, slug string, in UpdateInput) (View, error) {
	sp, err := s.spec(ctx, c, org, slug, access.Edit, "change OpenAPI specs")
	if err != nil {
		return View{}, err
	}
	var p apierr.Problems
	if in.Visibility == nil {
		p.Add("visibility", "is required")
	} else {
		p.OneOf("visibility", *in.Visibility, VisibilityPrivate, VisibilityPublic)
	}
	if err := p.Err(); err != nil {
		return View{}, err
	}
	sp.Visibility, sp.UpdatedAt = *in.Visibility, s.clock()
	if err := s.store.SetVisibility(ctx, sp, s.event(integrationsapi.NewOpenAPISpecUpdated, sp)); err != nil {
		if errors.Is(err, apierr.ErrNotFound) {
			return View{}, ErrNotFound
		}
		return View{}, err
	}
	return s.view(sp, c), nil
}

// Delete removes a spec; its versions go with it.
func (s *Service) Delete(ctx context.Context, c access.Caller, org, slug string) error {
	sp, err := s.spec(ctx, c, org, slug, access.Edit, "delete OpenAPI specs")
	if err != nil {
		return err
	}
	err = s.store.Remove(ctx, sp, s.event(integrationsapi.NewOpenAPISpecDeleted, sp))
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// Versions lists a spec's versions, newest first.
func (s *Service) Versions(ctx context.Context, c access.Caller, org, slug string, p paging.Request) (paging.List[VersionView], error) {
	sp, err := s.spec(ctx, c, org, slug, access.View, "view OpenAPI specs")
	if err != nil {
		return paging.List[VersionView]{}, err
	}
	l, err := paging.Fetch(p, func(limit int) ([]Version, int, error) {
		p.Limit = limit
		return s.store.Versions(ctx, sp.ID, p)
	}, func(v Version) string { return paging.IDCursor(v.ID) })
	if err != nil {
		return paging.List[VersionView]{}, err
	}
	views := make([]VersionView, len(l.Items))
	for i, v := range l.Items {
		views[i] = s.versionView(sp, v)
	}
	return paging.With(l, views), nil
}

// version loads a version of org's spec; "latest" names the spec's last one.
func (s *Service) version(ctx context.Context, c access.Caller, org, slug, id string) (Spec, Version, error) {
	sp, err := s.spec(ctx, c, org, slug, access.View, "view OpenAPI specs")
	if err != nil {
		return sp, Version{}, err
	}
	if id == "latest" {
		id = sp.LastVersion
	}
	if id == "" {
		return sp, Version{}, ErrVersionNotFound
	}
	v, err := s.store.Version(ctx, sp.ID, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return sp, v, ErrVersionNotFound
	}
	return sp, v, err
}

// Version returns a version ("latest": the last one).
func (s *Service) Version(ctx context.Context, c access.Caller, org, slug, id string) (VersionView, error) {
	sp, v, err := s.version(ctx, c, org, slug, id)
	if err != nil {
		return VersionView{}, err
	}
	return s.versionView(sp, v), nil
}

// Content returns a version's content: the document as JSON, as a stream
// of the rendering stored with the version (the caller closes it). A
// version stored before renderings were is rendered here.
func (s *Service) Content(ctx context.Context, c access.Caller, org, slug, id string) (ContentStream, error) {
	sp, v, err := s.version(ctx, c, org, slug, id)
	if err != nil {
		return ContentStream{}, err
	}
	return s.stream(ctx, sp, v)
}

// stream opens a version's content as JSON.
func (s *Service) stream(ctx context.Context, sp Spec, v Version) (ContentStream, error) {
	urls := s.contentView(sp, v, nil).URLs
	if v.Format == "json" || v.JSONBlob != "" {
		doc, size, err := s.store.OpenContent(ctx, v, v.Format != "json")
		if err != nil {
			return ContentStream{}, fmt.Errorf("read version %s: %w", v.ID, err)
		}
		return ContentStream{Filesystem: doc, Size: size, URLs: urls}, nil
	}
	raw, err := s.store.Content(ctx, v)
	if err != nil {
		return ContentStream{}, fmt.Errorf("read version %s: %w", v.ID, err)
	}
	_, node, problem := bound(raw)
	if problem != "" {
		return ContentStream{}, fmt.Errorf("render version %s: %s", v.ID, problem)
	}
	doc, err := renderJSON(raw, node)
	if err != nil {
		return ContentStream{}, fmt.Errorf("render version %s: %w", v.ID, err)
	}
	return ContentStream{Filesystem: io.NopCloser(bytes.NewReader(doc)), Size: int64(len(doc)), URLs: urls}, nil
}

// Published returns the last version of org's spec slug as JSON, for the
// published pages of org's sites (the sites service asks; no user, no
// permission: a published page of the organization shows it), with the
// version. A spec without a version is ErrVersionNotFound.
func (s *Service) Published(ctx context.Context, org, slug string) (ContentStream, Version, error) {
	return s.published(ctx, org, slug, s.store.BySlug)
}

// PublishedByURL is Published of org's first spec whose source is the URL
// u (an {% openapi src="<URL>" %} block: nothing is fetched for it).
func (s *Service) PublishedByURL(ctx context.Context, org, u string) (ContentStream, Version, error) {
	return s.published(ctx, org, u, s.store.BySourceURL)
}

func (s *Service) published(ctx context.Context, org, name string, find func(ctx context.Context, org, name string) (Spec, error)) (ContentStream, Version, error) {
	sp, err := find(ctx, org, name)
	if errors.Is(err, apierr.ErrNotFound) {
		return ContentStream{}, Version{}, ErrNotFound
	}
	if err != nil {
		return ContentStream{}, Version{}, fmt.Errorf("load OpenAPI spec %s: %w", name, err)
	}
	if sp.Organization != org || sp.LastVersion == "" {
		return ContentStream{}, Version{}, ErrVersionNotFound
	}
	v, err := s.store.Version(ctx, sp.ID, sp.LastVersion)
	if errors.Is(err, apierr.ErrNotFound) {
		return ContentStream{}, Version{}, ErrVersionNotFound
	}
	if err != nil {
		return ContentStream{}, Version{}, err
	}
	cs, err := s.stream(ctx, sp, v)
	cs.Slug = sp.Slug
	return cs, v, err
}

// ContentStream is a version's content (OpenAPISpecContent) with the
// document as a stream of JSON.
type ContentStream struct {
	Filesystem io.ReadCloser
	Size       int64
	URLs       ContentURLs
	// Slug is the spec's.
	Slug string
}

// Raw returns a version's content exactly as fetched.
func (s *Service) Raw(ctx context.Context, c access.Caller, org, slug, id string) (RawView, error) {
	_, v, err := s.version(ctx, c, org, slug, id)
	if err != nil {
		return RawView{}, err
	}
	raw, err := s.store.Content(ctx, v)
	if err != nil {
		return RawView{}, fmt.Errorf("read version %s: %w", v.ID, err)
	}
	return RawView{Text: string(raw), Format: v.Format}, nil
}

func (s *Service) event(newEvent func(org, subject string, data any) envelope.Event, sp Spec) envelope.Event {
	return newEvent(sp.Organization, sp.ID, s.view(sp, access.Caller{}))
}

// enqueue starts processing sp. A failure to enqueue is logged, not
// answered: the spec is stored as pending and the sweeper enqueues it.
func (s *Service) enqueue(ctx context.Context, sp Spec) {
	if _, _, err := s.queue.Enqueue(ctx, JobKind, jobKey(sp.ID), jobPayload{Spec: sp.ID}, jobs.Tenant(sp.Organization)); err != nil {
		s.log.WarnContext(ctx, "enqueue OpenAPI processing; the sweeper will", "spec", sp.ID, "err", err)
	}
}

func jobKey(spec string) string { return "openapi/" + spec }

type jobPayload struct {
	Spec string `bson:"spec"`
}
