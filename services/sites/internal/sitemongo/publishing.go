package sitemongo

import (
	"context"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/services/sites/internal/site"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// PublishingAuth returns a site's publishing auth.
func (s *Store) PublishingAuth(ctx context.Context, siteID string) (site.PublishingAuth, error) {
	return docstore.FindOne[site.PublishingAuth](ctx, s.d, PublishingAuths, bson.M{"_id": siteID})
}

// InsertPublishingAuth stores a site's first publishing auth.
func (s *Store) InsertPublishingAuth(ctx context.Context, pa site.PublishingAuth, ev kafkax.Event) error {
	return s.d.Insert(ctx, PublishingAuths, pa, ev)
}

// UpdatePublishingAuth applies change to a site's publishing auth and
// stores what it changed with its event (docstore.Modify).
func (s *Store) UpdatePublishingAuth(ctx context.Context, siteID string, change func(*site.PublishingAuth) (kafkax.Event, error)) (site.PublishingAuth, error) {
	return docstore.Modify(ctx, s.d, PublishingAuths, siteID, one(change))
}

// SiteByName returns org's live site whose basename is name, else the one
// whose id is name (basenameKey is the id of a site without a basename).
func (s *Store) SiteByName(ctx context.Context, org, name string) (site.Site, error) {
	sts, err := docstore.Find[site.Site](ctx, s.d, Sites, bson.M{"organization": org,
		"$or": bson.A{bson.M{"basenameKey": name}, bson.M{"_id": name}}})
	if err != nil {
		return site.Site{}, err
	}
	for _, st := range sts {
		if st.BasenameKey == name {
			return st, nil
		}
	}
	if len(sts) > 0 {
		return sts[0], nil
	}
	return site.Site{}, apierr.NotFound("site not found")
}
