package organizationmongo_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/docspub/platform/services/identity/internal/organizationmongo"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T) *organizationmongo.Store {
	t.Helper()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(context.Background(), db, organizationmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	return organizationmongo.NewStore(mongox.NewDB(db), nil)
}

func ev(id string) envelope.Event { return envelope.New(identityapi.OrganizationUpdated, id, id, nil) }

func ptr[T any](v T) *T { return &v }

// TestUpdateSetsOnlyItsChange: an update writes the fields its change
// names and nothing else, so two changes of different fields at once both
// stay; a removed hostname, logo or default content is gone.
func TestUpdateSetsOnlyItsChange(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	o := organization.Organization{ID: "o1", Title: "Acme", CreatedAt: time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC),
		EmailDomains: []string{}, Hostname: "acme", Type: organization.DefaultOrganizationType, Plan: organization.DefaultPlan,
		DefaultRole: roles.Read, DefaultContent: &organization.DefaultContent{Type: "site", Site: "s1"}, Logo: "https://x.test/l.png", InviteLinks: true}
	if err := s.Insert(ctx, o, envelope.New(identityapi.OrganizationCreated, o.ID, o.ID, nil)); err != nil {
		t.Fatal(err)
	}
	changes := []organization.Change{
		{Title: ptr("Acme Docs")},
		{EmailDomains: ptr([]string{"acme.test"})},
		{DefaultRole: ptr(roles.Guest), SSO: ptr(true)},
		{AI: ptr(true), InviteLinks: ptr(false)},
		{Hostname: ptr(""), Logo: ptr(""), SetDefaultContent: true},
	}
	var wg sync.WaitGroup
	errs := make([]error, len(changes))
	for i, ch := range changes {
		wg.Go(func() { errs[i] = s.Update(ctx, o.ID, ch, ev(o.ID)) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	got, err := s.Organization(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := o
	want.Title, want.EmailDomains, want.DefaultRole, want.SSO = "Acme Docs", []string{"acme.test"}, roles.Guest, true
	want.AI, want.InviteLinks, want.Hostname, want.Logo, want.DefaultContent = true, false, "", "", nil
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("organization after the changes (-want +got):\n%s", diff)
	}
}

func TestUpdateOfAMissingOrganization(t *testing.T) {
	s := newStore(t)
	err := s.Update(context.Background(), "nope", organization.Change{Title: ptr("X")}, ev("nope"))
	if !errors.Is(err, apierr.ErrNotFound) {
		t.Errorf("Update = %v, want a not-found error", err)
	}
}
