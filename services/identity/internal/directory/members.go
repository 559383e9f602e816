package directory

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/keyset"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/golang-jwt/jwt/v5"
)

// MemberFilter is the query of GET ORG/members.
type MemberFilter struct {
	Role   string // a role, "guest", or "" for any
	Search string
	Sort   string // SortJoinedAt (default), SortLastSeenAt, SortName
	Desc   bool
}

// MemberPage asks for a page of members: those after (AfterValue, AfterID)
// in the order of the list's sort, AfterID empty for the first page.
type MemberPage struct {
	AfterValue, AfterID string
	Limit               int
}

// MemberList is a page of members; its next page starts after (LastValue,
// LastID), LastValue being the sort key of its last member.
type MemberList struct {
	keyset.List[MemberView]
	LastValue string
}

// ListMembers lists an organization's members, keyset-paged on the sort key.
func (s *Service) ListMembers(ctx context.Context, userID, orgID string, f MemberFilter, p MemberPage) (MemberList, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ListMembers, "list members")
	if err != nil {
		return MemberList{}, err
	}
	if err := checkFilter("search", f.Search); err != nil {
		return MemberList{}, err
	}
	q := MemberQuery{Organization: c.org.ID, Search: f.Search, Sort: f.Sort, Desc: f.Desc,
		AfterValue: p.AfterValue, AfterID: p.AfterID, Limit: p.Limit + 1}
	if q.Sort == "" {
		q.Sort = SortJoinedAt
	}
	if q.AfterValue != "" && q.Sort != SortName {
		if _, err := time.Parse(time.RFC3339Nano, q.AfterValue); err != nil {
			return MemberList{}, apierr.Invalid("page", "is not a valid page cursor")
		}
	}
	switch f.Role {
	case "":
	case "guest":
		g := roles.Guest
		q.Role = &g
	default:
		r := roles.Role(f.Role)
		q.Role = &r
	}
	ms, count, err := s.store.Members(ctx, q)
	if err != nil {
		return MemberList{}, err
	}
	l := keyset.Cut(ms, p.Limit, count, func(m Member) (int64, string) { return 0, m.ID })
	views, err := s.memberViews(ctx, c.org.ID, l.Items)
	if err != nil {
		return MemberList{}, err
	}
	out := MemberList{List: keyset.With(l, views)}
	if n := len(l.Items); n > 0 {
		out.LastValue = memberSortValue(l.Items[n-1], q.Sort)
	}
	return out, nil
}

func memberSortValue(m Member, sort string) string {
	switch sort {
	case SortName:
		return m.Name
	case SortLastSeenAt:
		if m.LastSeenAt != nil {
			return m.LastSeenAt.UTC().Format(time.RFC3339Nano)
		}
		return ""
	}
	return m.JoinedAt.UTC().Format(time.RFC3339Nano)
}

// memberViews renders members with their users and team counts.
func (s *Service) memberViews(ctx context.Context, org string, ms []Member) ([]MemberView, error) {
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.User
	}
	users, err := s.store.Users(ctx, ids)
	if err != nil {
		return nil, err
	}
	teams, err := s.store.TeamCounts(ctx, org, ids)
	if err != nil {
		return nil, err
	}
	out := make([]MemberView, len(ms))
	for i, m := range ms {
		out[i] = s.urls.MemberView(m, users[m.User], teams[m.User])
	}
	return out, nil
}

func (s *Service) memberView(ctx context.Context, m Member) (MemberView, error) {
	vs, err := s.memberViews(ctx, m.Organization, []Member{m})
	if err != nil {
		return MemberView{}, err
	}
	return vs[0], nil
}

// member loads a member of the caller's organization.
func (s *Service) member(ctx context.Context, org, user string) (Member, error) {
	m, err := s.store.Member(ctx, org, user)
	if errors.Is(err, apierr.ErrNotFound) {
		return Member{}, ErrMemberNotFound
	}
	return m, err
}

// GetMember returns a member: any member may read themselves, and those who
// may list members may read the others.
func (s *Service) GetMember(ctx context.Context, userID, orgID, target string) (MemberView, error) {
	c, err := s.enter(ctx, userID, orgID)
	if err != nil {
		return MemberView{}, err
	}
	if target != userID && !c.Can(access.ListMembers) {
		return MemberView{}, forbidden("read other members")
	}
	m, err := s.member(ctx, c.org.ID, target)
	if err != nil {
		return MemberView{}, err
	}
	return s.memberView(ctx, m)
}

// MemberPatch is the body of PATCH ORG/members/{userId}.
type MemberPatch struct {
	Role nullable.Field[string] `json:"role"`
}

// UpdateMember changes a member's role; admins only. The last admin keeps the role.
func (s *Service) UpdateMember(ctx context.Context, userID, orgID, target string, p MemberPatch) (MemberView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageMembers, "change members")
	if err != nil {
		return MemberView{}, err
	}
	m, err := s.member(ctx, c.org.ID, target)
	if err != nil {
		return MemberView{}, err
	}
	if !p.Role.Set {
		return s.memberView(ctx, m)
	}
	r, err := ParseRoleOrGuest("role", p.Role)
	if err != nil {
		return MemberView{}, err
	}
	if r == m.Role {
		return s.memberView(ctx, m)
	}
	if m.Role == roles.Admin {
		unlock := s.admins.lock(c.org.ID)
		defer unlock()
		if err := s.keepAnAdmin(ctx, c.org.ID); err != nil {
			return MemberView{}, err
		}
	}
	m.Role = r
	return s.saveMember(ctx, m, Fields{"role": r})
}

// keepAnAdmin refuses to take away the organization's only admin. Callers
// hold s.admins' lock of the organization from this check to their write, so
// two admins demoting each other at once cannot leave it without one (within
// one identity process; replicas would need a transaction).
func (s *Service) keepAnAdmin(ctx context.Context, org string) error {
	n, err := s.store.CountAdmins(ctx, org)
	if err != nil {
		return err
	}
	if n <= 1 {
		return ErrLastAdmin
	}
	return nil
}

// saveMember stores changed fields of m and publishes member.updated.
func (s *Service) saveMember(ctx context.Context, m Member, set Fields) (MemberView, error) {
	v, err := s.memberView(ctx, m)
	if err != nil {
		return MemberView{}, err
	}
	if err := s.store.Set(ctx, Members, m.ID, set, s.event("member.updated", m.Organization, m.User, v)); err != nil {
		return MemberView{}, err
	}
	return v, nil
}

// RemoveMember removes a member and their team memberships: admins may remove
// anyone, members themselves. The last admin stays.
func (s *Service) RemoveMember(ctx context.Context, userID, orgID, target string) error {
	c, err := s.enter(ctx, userID, orgID)
	if err != nil {
		return err
	}
	if target != userID && !c.Can(access.ManageMembers) {
		return forbidden("remove other members")
	}
	m, err := s.member(ctx, c.org.ID, target)
	if err != nil {
		return err
	}
	if m.Role == roles.Admin {
		unlock := s.admins.lock(c.org.ID)
		defer unlock()
		if err := s.keepAnAdmin(ctx, c.org.ID); err != nil {
			return err
		}
	}
	tms, _, err := s.store.TeamMemberships(ctx, TeamMembershipQuery{Organization: c.org.ID, User: target})
	if err != nil {
		return err
	}
	for _, tm := range tms {
		if err := s.removeTeamMembership(ctx, tm); err != nil {
			return err
		}
	}
	v, err := s.memberView(ctx, m)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, Members, m.ID, s.event("member.deleted", m.Organization, m.User, v))
}

// SetSSOMember marks a member as an SSO member; admins only.
func (s *Service) SetSSOMember(ctx context.Context, userID, orgID, target string) (MemberView, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ManageMembers, "change members")
	if err != nil {
		return MemberView{}, err
	}
	m, err := s.member(ctx, c.org.ID, target)
	if err != nil {
		return MemberView{}, err
	}
	if m.SSO {
		return s.memberView(ctx, m)
	}
	m.SSO = true
	return s.saveMember(ctx, m, Fields{"sso": true})
}

// PingResult is the answer of POST ORG/ping.
type PingResult struct {
	ServiceVisitorClaims string `json:"serviceVisitorClaims"`
}

// ClaimsTTL is how long the visitor claims returned by ping stay valid.
const ClaimsTTL = time.Hour

// ClaimsIssuer is the iss of visitor claims.
const ClaimsIssuer = "docspub-identity"

// VisitorClaims are the claims of the JWT returned by ping.
type VisitorClaims struct {
	jwt.RegisteredClaims
	Email        string  `json:"email,omitempty"`
	DisplayName  string  `json:"displayName"`
	Organization string  `json:"organization"`
	Role         *string `json:"role"`
}

// Ping records that the caller was seen now and returns their claims as a
// signed JWT (HS256 with ClaimsKey).
func (s *Service) Ping(ctx context.Context, userID, orgID string) (PingResult, error) {
	c, err := s.enterFor(ctx, userID, orgID, access.ViewOrganization, "view it")
	if err != nil {
		return PingResult{}, err
	}
	t := s.now()
	m := c.me
	m.LastSeenAt = &t
	v, err := s.saveMember(ctx, m, Fields{"lastSeenAt": t})
	if err != nil {
		return PingResult{}, err
	}
	var role *string
	if v.Role != nil {
		r := string(*v.Role)
		role = &r
	}
	claims := VisitorClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: ClaimsIssuer, Subject: userID,
			IssuedAt: jwt.NewNumericDate(t), ExpiresAt: jwt.NewNumericDate(t.Add(ClaimsTTL)),
		},
		Email: v.User.Email, DisplayName: v.User.DisplayName, Organization: orgID, Role: role,
	}
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(s.claimsKey)
	if err != nil {
		return PingResult{}, err
	}
	return PingResult{ServiceVisitorClaims: tok}, nil
}

// MemberTeams lists the teams of a member, by team id, optionally filtered
// by title. Members may list their own teams; listing others' needs ListTeams.
func (s *Service) MemberTeams(ctx context.Context, userID, orgID, target, title string, p keyset.Page) (keyset.List[MemberTeamView], error) {
	c, err := s.enter(ctx, userID, orgID)
	if err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	if target != userID && !c.Can(access.ListTeams) {
		return keyset.List[MemberTeamView]{}, forbidden("list other members' teams")
	}
	if err := checkFilter("title", title); err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	if _, err := s.member(ctx, c.org.ID, target); err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	tms, _, err := s.store.TeamMemberships(ctx, TeamMembershipQuery{Organization: c.org.ID, User: target})
	if err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	roleIn := map[string]string{}
	ids := []string{}
	for _, tm := range tms {
		roleIn[tm.Team] = tm.Role
		ids = append(ids, tm.Team)
	}
	teams, count, err := s.store.Teams(ctx, TeamQuery{Organization: c.org.ID, IDs: ids, Title: title, After: p.AfterID, Limit: p.Limit + 1})
	if err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	l := keyset.Cut(teams, p.Limit, count, func(t Team) (int64, string) { return 0, t.ID })
	teams = l.Items
	views, err := s.teamViews(ctx, c, teams)
	if err != nil {
		return keyset.List[MemberTeamView]{}, err
	}
	out := keyset.With(l, make([]MemberTeamView, len(views)))
	for i, v := range views {
		out.Items[i] = MemberTeamView{Team: v, Member: TeamRoleView{Role: roleIn[v.ID]}}
	}
	return out, nil
}
