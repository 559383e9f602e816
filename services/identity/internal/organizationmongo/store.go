// Package organizationmongo stores identity's organizations in MongoDB
// through libs/docstore: every write records its event on the written
// document in the same update (the outbox of libs/kafkax).
package organizationmongo

import (
	"context"

	"github.com/docspub/platform/libs/docstore"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/identity/internal/organization"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Collection holds the organizations; its documents carry pending events.
const Collection = "organizations"

// Store implements organization.Store.
type Store struct {
	d *docstore.Store
}

var _ organization.Store = (*Store)(nil)

// NewStore returns a store on db, whose document locks the outbox relay
// shares (see mongox.DB). written (nil: none) is called after every write
// that recorded events, with them: the relay's Notify, so that they leave
// at once, and the drop of the cached callers of their organization.
func NewStore(db mongox.DB, written func(events []envelope.Event)) *Store {
	return &Store{d: docstore.New(db, map[string]string{Collection: "organization"}, written)}
}

// Indexes are the indexes the store relies on.
func Indexes() []mongox.Index {
	return []mongox.Index{mongox.Keys(Collection, "emailDomains"), mongox.Keys(Collection, "hostname")}
}

// Insert stores a new organization with its event.
func (s *Store) Insert(ctx context.Context, o organization.Organization, ev envelope.Event) error {
	return s.d.Insert(ctx, Collection, o, ev)
}

// Update sets the fields ch changes and records the event.
func (s *Store) Update(ctx context.Context, id string, ch organization.Change, ev envelope.Event) error {
	set := bson.M{}
	if ch.Title != nil {
		set["title"] = *ch.Title
	}
	if ch.EmailDomains != nil {
		set["emailDomains"] = *ch.EmailDomains
	}
	if ch.Hostname != nil {
		set["hostname"] = *ch.Hostname
	}
	if ch.DefaultRole != nil {
		set["defaultRole"] = *ch.DefaultRole
	}
	if ch.SetDefaultContent {
		set["defaultContent"] = ch.DefaultContent
	}
	if ch.Logo != nil {
		set["logo"] = *ch.Logo
	}
	for name, b := range map[string]*bool{"sso": ch.SSO, "ai": ch.AI, "inviteLinks": ch.InviteLinks} {
		if b != nil {
			set[name] = *b
		}
	}
	return s.d.Set(ctx, Collection, id, set, ev)
}

// Organization returns a live organization.
func (s *Store) Organization(ctx context.Context, id string) (organization.Organization, error) {
	return docstore.FindOne[organization.Organization](ctx, s.d, Collection, bson.M{"_id": id})
}

// OrganizationsByID returns the organizations with the ids, by id.
func (s *Store) OrganizationsByID(ctx context.Context, ids []string) ([]organization.Organization, error) {
	if len(ids) == 0 {
		return []organization.Organization{}, nil
	}
	return docstore.Find[organization.Organization](ctx, s.d, Collection, bson.M{"_id": bson.M{"$in": ids}},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
}

// OrganizationsByEmailDomain returns the organizations whose e-mail domains contain domain.
func (s *Store) OrganizationsByEmailDomain(ctx context.Context, domain string) ([]organization.Organization, error) {
	return docstore.Find[organization.Organization](ctx, s.d, Collection, bson.M{"emailDomains": domain},
		options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(1000))
}

// HostnameTaken reports whether another organization uses hostname.
func (s *Store) HostnameTaken(ctx context.Context, hostname, exceptOrg string) (bool, error) {
	n, err := s.d.Count(ctx, Collection, bson.M{"hostname": hostname, "_id": bson.M{"$ne": exceptOrg}})
	return n > 0, err
}
