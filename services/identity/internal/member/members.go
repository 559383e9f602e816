package member

import (
	"context"
	"errors"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/organization"
	"github.com/golang-jwt/jwt/v5"
)

// Filter is the query of GET ORG/members.
type Filter struct {
	Role   string // a role, "guest", or "" for any
	Search string
	Sort   string // SortJoinedAt (default), SortLastSeenAt, SortName
	Desc   bool
}

// Page asks for a page of members: those after (AfterValue, AfterID)
// in the order of the list's sort, AfterID empty for the first page.
type Page struct {
	AfterValue, AfterID string
	Limit               int
}

// List is a page of members; its cursor holds the sort key and id of its
// last member.
type List = paging.List[View]

// ListMembers lists an organization's members, keyset-paged on the sort key.
func (s *Service) ListMembers(ctx context.Context, userID, orgID string, f Filter, p Page) (List, error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ListMembers, "list members")
	if err != nil {
		return List{}, err
	}
	if err := organization.CheckFilter("search", f.Search); err != nil {
		return List{}, err
	}
	q := Query{Organization: c.Org.ID, Search: f.Search, Sort: f.Sort, Desc: f.Desc,
		AfterValue: p.AfterValue, AfterID: p.AfterID}
	if q.Sort == "" {
		q.Sort = SortJoinedAt
	}
	if q.AfterValue != "" && q.Sort != SortName {
		if _, err := time.Parse(time.RFC3339Nano, q.AfterValue); err != nil {
			return List{}, apierr.Invalid("page", "is not a valid page cursor")
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
	l, err := paging.Fetch(paging.Request{Limit: p.Limit}, func(limit int) ([]Member, int, error) {
		q.Limit = limit
		return s.store.Members(ctx, q)
	}, func(m Member) string { return paging.Cursor(memberSortValue(m, q.Sort), m.ID) })
	if err != nil {
		return List{}, err
	}
	views, err := s.memberViews(ctx, c.Org.ID, l.Items)
	if err != nil {
		return List{}, err
	}
	return paging.With(l, views), nil
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

// memberViews renders members of org with their users and team counts.
func (s *Service) memberViews(ctx context.Context, org string, ms []Member) ([]View, error) {
	return Views(ctx, s.urls, s.store, s.teams, org, ms)
}

func (s *Service) memberView(ctx context.Context, m Member) (View, error) {
	vs, err := s.memberViews(ctx, m.Organization, []Member{m})
	if err != nil {
		return View{}, err
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
func (s *Service) GetMember(ctx context.Context, userID, orgID, target string) (View, error) {
	c, err := s.orgs.Enter(ctx, userID, orgID)
	if err != nil {
		return View{}, err
	}
	if target != userID && !c.Can(access.ListMembers) {
		return View{}, organization.Forbidden("read other members")
	}
	m, err := s.member(ctx, c.Org.ID, target)
	if err != nil {
		return View{}, err
	}
	return s.memberView(ctx, m)
}

// Patch is the body of PATCH ORG/members/{userId}.
type Patch struct {
	Role nullable.Field[string] `json:"role"`
}

// UpdateMember changes a member's role; admins only. The last admin keeps the role.
func (s *Service) UpdateMember(ctx context.Context, userID, orgID, target string, p Patch) (View, error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageMembers, "change members")
	if err != nil {
		return View{}, err
	}
	m, err := s.member(ctx, c.Org.ID, target)
	if err != nil {
		return View{}, err
	}
	if !p.Role.Set {
		return s.memberView(ctx, m)
	}
	r, err := organization.ParseRoleOrGuest("role", p.Role)
	if err != nil {
		return View{}, err
	}
	if r == m.Role {
		return s.memberView(ctx, m)
	}
	if m.Role == roles.Admin {
		unlock := s.admins.lock(c.Org.ID)
		defer unlock()
		if err := s.keepAnAdmin(ctx, c.Org.ID); err != nil {
			return View{}, err
		}
	}
	m.Role = r
	return s.saveMember(ctx, m, Change{Role: &r})
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

// saveMember stores ch, already applied to m, and publishes member.updated.
func (s *Service) saveMember(ctx context.Context, m Member, ch Change) (View, error) {
	v, err := s.memberView(ctx, m)
	if err != nil {
		return View{}, err
	}
	if err := s.store.Update(ctx, m.ID, ch, identityapi.NewMemberUpdated(m.Organization, v)); err != nil {
		return View{}, err
	}
	return v, nil
}

// RemoveMember removes a member and their team memberships: admins may remove
// anyone, members themselves. The last admin stays.
func (s *Service) RemoveMember(ctx context.Context, userID, orgID, target string) error {
	c, err := s.orgs.Enter(ctx, userID, orgID)
	if err != nil {
		return err
	}
	if target != userID && !c.Can(access.ManageMembers) {
		return organization.Forbidden("remove other members")
	}
	m, err := s.member(ctx, c.Org.ID, target)
	if err != nil {
		return err
	}
	if m.Role == roles.Admin {
		unlock := s.admins.lock(c.Org.ID)
		defer unlock()
		if err := s.keepAnAdmin(ctx, c.Org.ID); err != nil {
			return err
		}
	}
	if err := s.teams.Leave(ctx, c.Org.ID, target); err != nil {
		return err
	}
	v, err := s.memberView(ctx, m)
	if err != nil {
		return err
	}
	return s.store.Remove(ctx, m.ID, identityapi.NewMemberDeleted(m.Organization, v))
}

// SetSSOMember marks a member as an SSO member; admins only.
func (s *Service) SetSSOMember(ctx context.Context, userID, orgID, target string) (View, error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageMembers, "change members")
	if err != nil {
		return View{}, err
	}
	m, err := s.member(ctx, c.Org.ID, target)
	if err != nil {
		return View{}, err
	}
	if m.SSO {
		return s.memberView(ctx, m)
	}
	m.SSO = true
	return s.saveMember(ctx, m, Change{SSO: &m.SSO})
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
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ViewOrganization, "view it")
	if err != nil {
		return PingResult{}, err
	}
	m, err := s.member(ctx, c.Org.ID, userID)
	if err != nil {
		return PingResult{}, err
	}
	t := s.now()
	m.LastSeenAt = &t
	v, err := s.saveMember(ctx, m, Change{LastSeenAt: &t})
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
