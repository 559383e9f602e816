package sitemongo

import (
	"context"
	"errors"
	"time"

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

// SetPublishingAuth changes a site's publishing auth while its key is key
// ("" for any).
func (s *Store) SetPublishingAuth(ctx context.Context, siteID, key string, set site.Fields, ev kafkax.Event) error {
	var cond bson.M
	if key != "" {
		cond = bson.M{"privateKey": key}
	}
	return s.d.Update(ctx, PublishingAuths, siteID, cond, docstore.Setter(setDoc(set)), ev)
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

// hostnameClaim is a claimed custom hostname.
type hostnameClaim struct {
	Host         string    `bson:"_id"`
	Site         string    `bson:"site"`
	Organization string    `bson:"organization"`
	At           time.Time `bson:"at"`
}

// staleClaim is how old a claim must be before another site may take it
// over when the claiming site does not name the hostname: its claimer
// names it right after claiming, or crashed in between.
const staleClaim = time.Minute

// SiteByHostname returns the live site that claimed host and names it.
func (s *Store) SiteByHostname(ctx context.Context, host string) (site.Site, error) {
	c, err := docstore.FindOne[hostnameClaim](ctx, s.d, Hostnames, bson.M{"_id": host})
	if err != nil {
		return site.Site{}, err
	}
	st, err := s.Site(ctx, c.Site)
	if err == nil && st.Hostname != host {
		return site.Site{}, apierr.NotFound("site not found")
	}
	return st, err
}

// ClaimHostname reserves host for a site. A hostname another live site
// names is a conflict; a claim whose site does not name it (deleted, or a
// crash between claiming and naming) is taken over once it is older than
// staleClaim, with a compare-and-set on the claim.
func (s *Store) ClaimHostname(ctx context.Context, host, org, siteID string) error {
	taken := apierr.Conflict("hostname %q is used by another site", host)
	for range 3 {
		err := s.d.Insert(ctx, Hostnames, hostnameClaim{Host: host, Site: siteID, Organization: org, At: time.Now().UTC()})
		if !errors.Is(err, apierr.ErrConflict) {
			return err
		}
		c, err := docstore.FindOne[hostnameClaim](ctx, s.d, Hostnames, bson.M{"_id": host})
		if errors.Is(err, apierr.ErrNotFound) {
			continue // released meanwhile
		}
		if err != nil {
			return err
		}
		if c.Site == siteID {
			return nil
		}
		holder, err := s.Site(ctx, c.Site)
		switch {
		case err == nil && holder.Hostname == host:
			return taken
		case err != nil && !errors.Is(err, apierr.ErrNotFound):
			return err
		case time.Since(c.At) < staleClaim:
			return taken
		}
		err = s.d.Update(ctx, Hostnames, host, bson.M{"site": c.Site},
			bson.M{"$set": bson.M{"site": siteID, "organization": org, "at": time.Now().UTC()}})
		if !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
	}
	return taken
}

// ReleaseHostname frees host if site claimed it.
func (s *Store) ReleaseHostname(ctx context.Context, host, siteID string) error {
	return s.d.Delete(ctx, Hostnames, bson.M{"_id": host, "site": siteID})
}
