package identityapi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/roles"
)

var (
	t0     = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1     = t0.Add(time.Hour)
	editor = roles.Role("editor")
	user   = identityapi.User{Object: "user", ID: "u1", DisplayName: "Ada", Email: "ada@example.com",
		PhotoURL: "https://img.example.com/u1.png", URLs: identityapi.LocationURLs{Location: "https://api.example.com/v1/users/u1"}}
	member = identityapi.Member{Object: "member", ID: "u1", Role: &editor, User: user, JoinedAt: t0, LastSeenAt: &t1,
		SSO: true, Teams: 2}
	guest = identityapi.Member{Object: "member", ID: "u1", User: user, JoinedAt: t0}
	team  = identityapi.Team{Object: "team", ID: "t1", Title: "Writers", Members: 3, CreatedAt: t0,
		URLs: identityapi.LocationURLs{Location: "https://api.example.com/v1/orgs/o1/teams/t1"}}
	teamMember = identityapi.TeamMember{Object: "team-member", Organization: "o1", Team: "t1", User: "u1", Role: "owner", AddedAt: t0}
	invite     = identityapi.Invite{Object: "invite", ID: "i1", Role: &editor, CreatedAt: t0,
		URLs: identityapi.LocationURLs{Location: "https://api.example.com/v1/orgs/o1/invites/i1"}}
	token   = identityapi.Token{ID: "k1", User: "u1", Hash: "9f86d081884c7d65", CreatedAt: t0}
	revoked = identityapi.Token{ID: "k1", User: "u1", Hash: "9f86d081884c7d65", CreatedAt: t0, RevokedAt: &t1}
	// organization and provider stand for the producer's views (untyped payloads).
	organization = map[string]any{"object": "organization", "id": "o1", "title": "Acme", "createdAt": t0,
		"emailDomains": []string{"example.com"}, "type": "business", "defaultRole": nil, "sso": false}
	provider = map[string]any{"object": "saml-provider", "id": "p1", "label": "Okta",
		"ssoURL": "https://idp.example.com/sso", "entityID": "https://idp.example.com", "createdAt": t0}
)

func events() []envelope.Event {
	return []envelope.Event{
		identityapi.NewOrganizationCreated("o1", organization), identityapi.NewOrganizationUpdated("o1", organization),
		identityapi.NewUserCreated(user),
		identityapi.NewMemberCreated("o1", member), identityapi.NewMemberUpdated("o1", guest),
		identityapi.NewMemberDeleted("o1", member),
		identityapi.NewTeamCreated("o1", team), identityapi.NewTeamUpdated("o1", team), identityapi.NewTeamDeleted("o1", team),
		identityapi.NewTeamMemberCreated(teamMember), identityapi.NewTeamMemberUpdated(teamMember),
		identityapi.NewTeamMemberDeleted(teamMember),
		identityapi.NewInviteCreated("o1", invite), identityapi.NewInviteUpdated("o1", invite),
		identityapi.NewInviteDeleted("o1", invite),
		identityapi.NewSAMLProviderCreated("o1", "p1", provider), identityapi.NewSAMLProviderUpdated("o1", "p1", provider),
		identityapi.NewSAMLProviderDeleted("o1", "p1", provider),
		identityapi.NewTokenCreated(token), identityapi.NewTokenRevoked(revoked),
	}
}

func TestGoldenEvents(t *testing.T) {
	t.Parallel()
	evs := events()
	if len(evs) != len(identityapi.Events) {
		t.Errorf("%d events built, %d types declared", len(evs), len(identityapi.Events))
	}
	eventtest.Golden(t, evs...)
	eventtest.Catalogue(t, identityapi.Events, identityapi.Goldens())
}

func decode(ev envelope.Event) error {
	var err error
	switch ev.Type {
	case identityapi.UserCreated:
		_, err = identityapi.UserSchema.Decode(ev)
	case identityapi.MemberCreated, identityapi.MemberUpdated, identityapi.MemberDeleted:
		_, err = identityapi.MemberSchema.Decode(ev)
	case identityapi.TeamCreated, identityapi.TeamUpdated, identityapi.TeamDeleted:
		_, err = identityapi.TeamSchema.Decode(ev)
	case identityapi.TeamMemberCreated, identityapi.TeamMemberUpdated, identityapi.TeamMemberDeleted:
		_, err = identityapi.TeamMemberSchema.Decode(ev)
	case identityapi.InviteCreated, identityapi.InviteUpdated, identityapi.InviteDeleted:
		_, err = identityapi.InviteSchema.Decode(ev)
	case identityapi.TokenCreated, identityapi.TokenRevoked:
		_, err = identityapi.TokenSchema.Decode(ev)
	case identityapi.OrganizationCreated, identityapi.OrganizationUpdated,
		identityapi.SAMLProviderCreated, identityapi.SAMLProviderUpdated, identityapi.SAMLProviderDeleted:
		// untyped payloads: no decoder yet
	default:
		err = errors.New("no decoder")
	}
	return err
}

func TestGoldensDecode(t *testing.T) {
	t.Parallel()
	for _, ev := range eventtest.Goldens(t, identityapi.Goldens()) {
		if err := decode(ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
}
