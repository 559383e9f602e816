package space

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// GitSync is a space's Git sync state as the integrations service reports
// it (GitSyncState): never credentials.
type GitSync struct {
	RepoName             string    `bson:"repoName,omitempty" json:"repoName,omitempty"`
	InstallationID       string    `bson:"installationId" json:"installationId"`
	InstallationProvider string    `bson:"installationProvider" json:"installationProvider"`
	InstallationStatus   string    `bson:"installationStatus" json:"installationStatus"`
	Integration          string    `bson:"integration,omitempty" json:"integration,omitempty"`
	URL                  string    `bson:"url,omitempty" json:"url,omitempty"`
	UpdatedAt            time.Time `bson:"updatedAt" json:"updatedAt"`
}

// ServiceGrant lets a platform service (not a user) into a live space: the
// integrations service writing the revision a Git import built. Its level
// is admin; the service checked the user who started the work.
func (s *Service) ServiceGrant(ctx context.Context, spaceID string) (access.Grant, error) {
	sp, err := s.store.Space(ctx, spaceID)
	if errors.Is(err, apierr.ErrNotFound) {
		return access.Grant{}, ErrSpaceNotFound
	}
	if err != nil {
		return access.Grant{}, err
	}
	if sp.DeletedAt != nil {
		return access.Grant{}, ErrSpaceDeleted
	}
	return grant(access.Caller{}, sp, roles.Admin), nil
}

// SetGitSync records a space's Git sync state (shown as gitSync) and
// publishes space.updated; a deleted space is ErrSpaceDeleted.
func (s *Service) SetGitSync(ctx context.Context, spaceID string, gs GitSync) error {
	gs.UpdatedAt = gs.UpdatedAt.UTC().Truncate(time.Millisecond)
	_, err := s.store.UpdateSpace(ctx, spaceID, func(sp *Space) (envelope.Event, error) {
		if sp.DeletedAt != nil {
			return envelope.Event{}, ErrSpaceDeleted
		}
		sp.GitSync, sp.UpdatedAt = &gs, s.clock()
		v, err := s.eventView(ctx, *sp)
		if err != nil {
			return envelope.Event{}, err
		}
		return contentapi.NewSpaceUpdated(v.Space), nil
	})
	if errors.Is(err, apierr.ErrNotFound) {
		return ErrSpaceNotFound
	}
	return err
}
