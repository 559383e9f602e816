package member

import (
	"context"

	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// UserView is User as the API returns it, and as user.created carries it.
type UserView = identityapi.User

// NewUserView renders a user.
func NewUserView(u organization.URLs, x User) UserView {
	return UserView{Object: "user", ID: x.ID, DisplayName: x.DisplayName, Email: x.Email, PhotoURL: x.PhotoURL,
		URLs: organization.LocationURLs{Location: u.Location("/users/" + x.ID)}}
}

// View is OrganizationMember as the API returns it, and as the member.*
// events carry it. Its id is the user's id.
type View = identityapi.Member

// NewView renders a member of teams teams; user is m's user (the copies
// of its name and e-mail on m stand in when it is missing). Spaces and
// sites are owned by other services and reported as 0.
func NewView(u organization.URLs, m Member, user User, teams int) View {
	if user.ID == "" {
		user = User{ID: m.User, DisplayName: m.Name, Email: m.Email}
	}
	return View{Object: "member", ID: m.User, Role: organization.RoleJSON(m.Role), User: NewUserView(u, user),
		Disabled: m.Disabled, JoinedAt: m.JoinedAt, LastSeenAt: m.LastSeenAt, SSO: m.SSO, Teams: teams}
}

// Users reads users by id (package membermongo's store).
type Users interface {
	Users(ctx context.Context, ids []string) (map[string]User, error)
}

// TeamCounts counts the teams of org each of users is in.
type TeamCounts interface {
	Counts(ctx context.Context, org string, users []string) (map[string]int, error)
}

// Views renders members of org with their users (from users) and team
// counts (from teams).
func Views(ctx context.Context, u organization.URLs, users Users, teams TeamCounts, org string, ms []Member) ([]View, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.User
	}
	byID, err := users.Users(ctx, ids)
	if err != nil {
		return nil, err
	}
	counts, err := teams.Counts(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(ms))
	for i, m := range ms {
		out[i] = NewView(u, m, byID[m.User], counts[m.User])
	}
	return out, nil
}
