package site

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/limits"
)

// PublishingAuth is how a site authenticates its visitors
// (SITE/publishing/auth): the private key that signs visitor JWTs (HS256)
// and where a visitor without a valid one is sent. A document of its own
// (site_publishing_auth), made the first time it is asked for. Its key is
// a secret: events never carry it.
type PublishingAuth struct {
	Site         string    `bson:"_id"`
	Organization string    `bson:"organization"`
	Backend      string    `bson:"backend"`
	PrivateKey   string    `bson:"privateKey"`
	FallbackURL  string    `bson:"fallbackURL,omitempty"`
	LogoutURL    string    `bson:"logoutURL,omitempty"`
	UpdatedAt    time.Time `bson:"updatedAt"`
}

// Visitor authentication backends (VisitorAuthCustomBackend,
// VisitorAuthIntegrationBackend).
const (
	BackendCustom      = "custom"
	BackendIntegration = "integration"
)

// Private keys: KeyBytes random bytes as base62.
const (
	privateKeyBytes  = 32
	privateKeyLength = 43
)

func newPrivateKey() string { return ids.Random(privateKeyBytes, privateKeyLength) }

// PublishingAuthView is a site's publishing auth as the API returns it
// (SitePublishingAuth).
type PublishingAuthView struct {
	Object      string `json:"object"`
	Backend     string `json:"backend"`
	PrivateKey  string `json:"privateKey,omitempty"`
	FallbackURL string `json:"fallbackURL,omitempty"`
	LogoutURL   string `json:"logoutURL,omitempty"`
}

// PublishingAuthEvent is the data of site_publishing_auth.updated: the
// settings without the key, and the site.
type PublishingAuthEvent struct {
	PublishingAuthView
	Site      string    `json:"site"`
	UpdatedAt time.Time `json:"updatedAt"`
}

func publishingView(pa PublishingAuth) PublishingAuthView {
	return PublishingAuthView{Object: "publishing-auth", Backend: pa.Backend, PrivateKey: pa.PrivateKey,
		FallbackURL: pa.FallbackURL, LogoutURL: pa.LogoutURL}
}

// publishingEvent is the event of a change of pa: never its key.
func publishingEvent(org string, pa PublishingAuth) envelope.Event {
	v := publishingView(pa)
	v.PrivateKey = ""
	return sitesapi.NewSitePublishingAuthUpdated(org, pa.Site,
		PublishingAuthEvent{PublishingAuthView: v, Site: pa.Site, UpdatedAt: pa.UpdatedAt})
}

// PublishingAuth returns a site's publishing auth (the manage permission is
// needed: it shows the private key), making it with a new key the first
// time.
func (s *Service) PublishingAuth(ctx context.Context, c access.Caller, org, siteID string) (PublishingAuthView, error) {
	st, _, err := s.enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return PublishingAuthView{}, err
	}
	pa, err := s.publishingAuth(ctx, st)
	return publishingView(pa), err
}

// publishingAuth loads a site's publishing auth, making it on first use.
// Two first uses at once make one: the loser of the insert reads the
// winner's.
func (s *Service) publishingAuth(ctx context.Context, st Site) (PublishingAuth, error) {
	pa, err := s.store.PublishingAuth(ctx, st.ID)
	if !errors.Is(err, apierr.ErrNotFound) {
		return pa, err
	}
	pa = PublishingAuth{Site: st.ID, Organization: st.Organization, Backend: BackendCustom,
		PrivateKey: newPrivateKey(), UpdatedAt: s.clock()}
	err = s.store.InsertPublishingAuth(ctx, pa, publishingEvent(st.Organization, pa))
	if errors.Is(err, apierr.ErrConflict) {
		return s.store.PublishingAuth(ctx, st.ID)
	}
	return pa, err
}

// PublishingAuthInput changes a site's publishing auth: absent fields
// stay; a null URL removes it.
type PublishingAuthInput struct {
	Backend     *string
	FallbackURL nullable.Field[string]
	LogoutURL   nullable.Field[string]
}

// UpdatePublishingAuth changes a site's publishing auth (the manage
// permission is needed).
func (s *Service) UpdatePublishingAuth(ctx context.Context, c access.Caller, org, siteID string, in PublishingAuthInput) (PublishingAuthView, error) {
	var p apierr.Problems
	if in.Backend != nil {
		p.OneOf("backend", *in.Backend, BackendCustom, BackendIntegration)
	}
	if in.FallbackURL.Set && !in.FallbackURL.Null {
		p.HTTPURL("fallbackURL", in.FallbackURL.Value, limits.PublishingURL)
	}
	if in.LogoutURL.Set && !in.LogoutURL.Null {
		p.HTTPURL("logoutURL", in.LogoutURL.Value, limits.PublishingURL)
	}
	if err := p.Err(); err != nil {
		return PublishingAuthView{}, err
	}
	st, _, err := s.enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return PublishingAuthView{}, err
	}
	pa, err := s.publishingAuth(ctx, st)
	if err != nil || (in.Backend == nil && !in.FallbackURL.Set && !in.LogoutURL.Set) {
		return publishingView(pa), err
	}
	pa, err = s.store.UpdatePublishingAuth(ctx, st.ID, func(pa *PublishingAuth) (envelope.Event, error) {
		if in.Backend != nil {
			pa.Backend = *in.Backend
		}
		if in.FallbackURL.Set {
			pa.FallbackURL = in.FallbackURL.Value // "" when null
		}
		if in.LogoutURL.Set {
			pa.LogoutURL = in.LogoutURL.Value
		}
		pa.UpdatedAt = s.clock()
		return publishingEvent(org, *pa), nil
	})
	if err != nil {
		return PublishingAuthView{}, err
	}
	return publishingView(pa), nil
}

// RegeneratePublishingAuth gives a site a new private key (the manage
// permission is needed): tokens signed with the old one stop opening the
// site at once. It is a compare-and-set on the key it replaces: of two
// regenerations at once, the second is a 409.
func (s *Service) RegeneratePublishingAuth(ctx context.Context, c access.Caller, org, siteID string) (PublishingAuthView, error) {
	st, _, err := s.enter(ctx, c, org, siteID, access.Manage)
	if err != nil {
		return PublishingAuthView{}, err
	}
	pa, err := s.publishingAuth(ctx, st)
	if err != nil {
		return PublishingAuthView{}, err
	}
	old := pa.PrivateKey
	pa, err = s.store.UpdatePublishingAuth(ctx, st.ID, func(pa *PublishingAuth) (envelope.Event, error) {
		if pa.PrivateKey != old {
			return envelope.Event{}, apierr.Conflict("the private key was regenerated meanwhile")
		}
		pa.PrivateKey, pa.UpdatedAt = newPrivateKey(), s.clock()
		return publishingEvent(org, *pa), nil
	})
	if err != nil {
		return PublishingAuthView{}, err
	}
	return publishingView(pa), nil
}
