package member

import (
	"context"
	"encoding/json"
	"errors"
	"net/mail"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// addMember makes u a member of org and publishes member.created.
func (s *Service) addMember(ctx context.Context, org string, u User, r roles.Role, sso bool) (Member, error) {
	m := Member{ID: ids.New(), Key: Key(org, u.ID), Organization: org, User: u.ID, Role: r, JoinedAt: s.now(),
		SSO: sso, Name: strings.ToLower(u.DisplayName), Email: strings.ToLower(u.Email)}
	v := NewView(s.urls, m, u, 0)
	if err := s.store.Insert(ctx, m, identityapi.NewMemberCreated(org, v)); err != nil {
		return Member{}, err
	}
	return m, nil
}

// InviteUsersInput is the body of POST ORG/invites.
type InviteUsersInput struct {
	Emails []EmailInvite          `json:"emails"`
	Role   nullable.Field[string] `json:"role"`
	SSO    bool                   `json:"sso"`
}

// EmailInvite is an e-mail, alone or with a role: "a@b.c" or {"email","role"}.
type EmailInvite struct {
	Email string
	Role  nullable.Field[string]
}

// UnmarshalJSON accepts both forms.
func (e *EmailInvite) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &e.Email)
	}
	var obj struct {
		Email string                 `json:"email"`
		Role  nullable.Field[string] `json:"role"`
	}
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	e.Email, e.Role = obj.Email, obj.Role
	return nil
}

// InviteUsersResult is the answer of POST ORG/invites.
type InviteUsersResult struct {
	Users   []string `json:"users"`
	Invited int      `json:"invited"`
}

// InviteUsers adds users to the organization by e-mail; admins only. An
// e-mail of a known user adds that user; an unknown e-mail creates the user
// (display name: the e-mail's local part), who becomes a member at once and
// can be given an API token later (identity-admin bootstrap reuses the user).
// Users already members are left as they are. The role is the entry's, else
// the body's, else the organization's default role.
func (s *Service) InviteUsers(ctx context.Context, userID, orgID string, in InviteUsersInput) (InviteUsersResult, error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ManageMembers, "invite members")
	if err != nil {
		return InviteUsersResult{}, err
	}
	var pr apierr.Problems
	if len(in.Emails) == 0 {
		pr.Add("emails", "must list at least one e-mail")
	}
	if len(in.Emails) > MaxInvites {
		pr.Add("emails", "must list at most %d e-mails", MaxInvites)
	}
	def := c.Org.DefaultRole
	if in.Role.Set {
		r, err := organization.ParseRoleOrGuest("role", in.Role)
		if err != nil {
			pr.Add("role", "must be one of %v or null", roles.Names)
		}
		def = r
	}
	type entry struct {
		email string
		role  roles.Role
	}
	entries := make([]entry, 0, len(in.Emails))
	for i, e := range in.Emails {
		name := organization.Field("emails", i)
		addr, err := mail.ParseAddress(e.Email)
		if err != nil || addr.Address != e.Email || len(e.Email) > MaxEmail || apierr.TextProblem(e.Email) != "" {
			pr.Add(name, "must be an e-mail address")
			continue
		}
		r := def
		if e.Role.Set {
			rr, err := organization.ParseRoleOrGuest(name+".role", e.Role)
			if err != nil {
				pr.Add(name+".role", "must be one of %v or null", roles.Names)
			}
			r = rr
		}
		entries = append(entries, entry{email: e.Email, role: r})
	}
	if err := pr.Err(); err != nil {
		return InviteUsersResult{}, err
	}
	res := InviteUsersResult{Users: []string{}}
	for _, e := range entries {
		u, err := s.findOrCreateUser(ctx, e.email, "")
		if err != nil {
			return InviteUsersResult{}, err
		}
		if _, err := s.store.Member(ctx, c.Org.ID, u.ID); err == nil {
			continue
		} else if !errors.Is(err, apierr.ErrNotFound) {
			return InviteUsersResult{}, err
		}
		if _, err := s.addMember(ctx, c.Org.ID, u, e.role, in.SSO); err != nil {
			if errors.Is(err, apierr.ErrConflict) {
				continue
			}
			return InviteUsersResult{}, err
		}
		res.Users = append(res.Users, u.ID)
		res.Invited++
	}
	return res, nil
}

// findOrCreateUser returns the user with the e-mail, creating it when there is none.
func (s *Service) findOrCreateUser(ctx context.Context, email, displayName string) (User, error) {
	u, err := s.store.UserByEmail(ctx, email)
	if err == nil || !errors.Is(err, apierr.ErrNotFound) {
		return u, err
	}
	if displayName == "" {
		displayName, _, _ = strings.Cut(email, "@")
	}
	u = User{ID: ids.New(), DisplayName: displayName, Email: email, EmailKey: strings.ToLower(email), CreatedAt: s.now()}
	err = s.store.InsertUser(ctx, u, identityapi.NewUserCreated(NewUserView(s.urls, u)))
	if errors.Is(err, apierr.ErrConflict) {
		return s.store.UserByEmail(ctx, email)
	}
	return u, err
}
