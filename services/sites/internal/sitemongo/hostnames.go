package sitemongo

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/services/sites/internal/site"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// verifiedHostname is a verified custom hostname: the site it opens.
// Documents written before hostnames were verified have no verified field:
// they open nothing, and the first site to verify the hostname takes them
// over.
type verifiedHostname struct {
	Host         string    `bson:"_id"`
	Site         string    `bson:"site"`
	Organization string    `bson:"organization"`
	At           time.Time `bson:"at"`
	Verified     bool      `bson:"verified"`
}

// SiteByHostname returns the live site that verified host and holds it.
func (s *Store) SiteByHostname(ctx context.Context, host string) (site.Site, error) {
	h, err := docstore.FindOne[verifiedHostname](ctx, s.d, Hostnames, bson.M{"_id": host})
	if err != nil {
		return site.Site{}, err
	}
	if !h.Verified {
		return site.Site{}, apierr.NotFound("site not found")
	}
	st, err := s.Site(ctx, h.Site)
	if err == nil && !st.HostnameVerified(host) {
		return site.Site{}, apierr.NotFound("site not found")
	}
	return st, err
}

// HostnameHolder returns the live site that verified host and still holds
// it; not found when none does.
func (s *Store) HostnameHolder(ctx context.Context, host string) (site.Site, error) {
	return s.SiteByHostname(ctx, host)
}

// VerifyHostname records that siteID verified host: the first site to
// verify a hostname holds it. A hostname verified by another live site
// that still claims it (verified, or still pending: it is recording its
// verification) is a conflict; one recorded for a site that no longer
// claims it (deleted, changed, failed, or recorded before verification)
// is taken over with a compare-and-set on the record.
func (s *Store) VerifyHostname(ctx context.Context, host, org, siteID string) error {
	taken := apierr.Conflict("hostname %q is verified by another site", host)
	for range 3 {
		err := s.d.Insert(ctx, Hostnames, verifiedHostname{Host: host, Site: siteID, Organization: org, At: time.Now().UTC(), Verified: true})
		if !errors.Is(err, apierr.ErrConflict) {
			return err
		}
		h, err := docstore.FindOne[verifiedHostname](ctx, s.d, Hostnames, bson.M{"_id": host})
		if errors.Is(err, apierr.ErrNotFound) {
			continue // released meanwhile
		}
		if err != nil {
			return err
		}
		if h.Site != siteID {
			holder, err := s.Site(ctx, h.Site)
			switch {
			case err == nil && h.Verified && holder.Hostname == host && holder.HostnameClaim != nil &&
				holder.HostnameClaim.State != site.HostnameFailed:
				return taken // verified (or recording its verification right now)
			case err != nil && !errors.Is(err, apierr.ErrNotFound):
				return err
			}
		}
		cond := bson.M{"site": h.Site, "verified": true}
		if !h.Verified {
			cond["verified"] = bson.M{"$ne": true}
		}
		err = s.d.Update(ctx, Hostnames, host, cond,
			bson.M{"$set": bson.M{"site": siteID, "organization": org, "at": time.Now().UTC(), "verified": true}})
		if !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
	}
	return taken
}

// ReleaseHostname frees host if site holds it.
func (s *Store) ReleaseHostname(ctx context.Context, host, siteID string) error {
	return s.d.Delete(ctx, Hostnames, bson.M{"_id": host, "site": siteID})
}

// HostnameClaims returns up to limit live sites whose hostname claim is
// pending (or that name a hostname without a claim, set before hostnames
// were verified), those checked longest ago first, none checked after
// checkedBefore.
func (s *Store) HostnameClaims(ctx context.Context, checkedBefore time.Time, limit int) ([]site.Site, error) {
	f := bson.M{"$or": bson.A{
		bson.M{"hostnameClaim.state": site.HostnamePending, "hostnameClaim.checkedAt": bson.M{"$lt": checkedBefore}},
		bson.M{"hostname": bson.M{"$gt": ""}, "hostnameClaim": nil},
	}}
	return docstore.Find[site.Site](ctx, s.d, Sites, f,
		options.Find().SetSort(bson.D{{Key: "hostnameClaim.checkedAt", Value: 1}, {Key: "_id", Value: 1}}).SetLimit(int64(limit)))
}

// SitesClaiming returns the live sites other than except whose claim of
// host is pending.
func (s *Store) SitesClaiming(ctx context.Context, host, except string) ([]site.Site, error) {
	return docstore.Find[site.Site](ctx, s.d, Sites, bson.M{"hostname": host, "hostnameClaim.state": site.HostnamePending,
		"_id": bson.M{"$ne": except}})
}
