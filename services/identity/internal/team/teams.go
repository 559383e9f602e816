package team

import (
	"context"
	"errors"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/identity/internal/access"
	"github.com/docspub/platform/services/identity/internal/member"
	"github.com/docspub/platform/services/identity/internal/organization"
)

// teamRoleOf returns the caller's role in a team, NotInTeam when none.
func (s *Service) teamRoleOf(ctx context.Context, team, user string) (access.TeamRole, error) {
	tm, err := s.store.Membership(ctx, team, user)
	if errors.Is(err, apierr.ErrNotFound) {
		return access.NotInTeam, nil
	}
	if err != nil {
		return access.NotInTeam, err
	}
	return access.TeamRole(tm.Role), nil
}

// teamViews renders teams with their sizes and the caller's permissions.
func (s *Service) teamViews(ctx context.Context, c organization.Caller, teams []Team) ([]View, error) {
	teamIDs := make([]string, len(teams))
	for i, t := range teams {
		teamIDs[i] = t.ID
	}
	sizes, err := s.store.Sizes(ctx, teamIDs)
	if err != nil {
		return nil, err
	}
	mine, _, err := s.store.Memberships(ctx, MembershipQuery{Organization: c.Org.ID, User: c.User})
	if err != nil {
		return nil, err
	}
	roleIn := map[string]access.TeamRole{}
	for _, tm := range mine {
		roleIn[tm.Team] = access.TeamRole(tm.Role)
	}
	out := make([]View, len(teams))
	for i, t := range teams {
		perms := c.Team(roleIn[t.ID])
		out[i] = render(s.urls, t, sizes[t.ID], &perms)
	}
	return out, nil
}

func (s *Service) teamView(ctx context.Context, c organization.Caller, t Team) (View, error) {
	vs, err := s.teamViews(ctx, c, []Team{t})
	if err != nil {
		return View{}, err
	}
	return vs[0], nil
}

// teamEventData renders a team for events (no permissions).
func (s *Service) teamEventData(ctx context.Context, t Team) (View, error) {
	sizes, err := s.store.Sizes(ctx, []string{t.ID})
	if err != nil {
		return View{}, err
	}
	return render(s.urls, t, sizes[t.ID], nil), nil
}

// Filter is the query of GET ORG/teams.
type Filter struct {
	Owner string // member (user) id: only the teams that member may manage
	Title string // case-insensitive contains
}

// ListTeams lists an organization's teams, by id.
func (s *Service) ListTeams(ctx context.Context, userID, orgID string, f Filter, p paging.Request) (paging.List[View], error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.ListTeams, "list teams")
	if err != nil {
		return paging.List[View]{}, err
	}
	if err := organization.CheckFilter("title", f.Title); err != nil {
		return paging.List[View]{}, err
	}
	q := Query{Organization: c.Org.ID, Title: f.Title, After: p.AfterID}
	if f.Owner != "" {
		owner, err := s.members.Member(ctx, c.Org.ID, f.Owner)
		switch {
		case errors.Is(err, apierr.ErrNotFound):
			q.IDs = []string{}
		case err != nil:
			return paging.List[View]{}, err
		case access.Membership{Member: true, Role: owner.Role}.Can(access.ManageTeam):
			// admins manage every team
		default:
			owned, _, err := s.store.Memberships(ctx, MembershipQuery{Organization: c.Org.ID, User: f.Owner, Role: RoleOwner})
			if err != nil {
				return paging.List[View]{}, err
			}
			q.IDs = []string{}
			for _, tm := range owned {
				q.IDs = append(q.IDs, tm.Team)
			}
		}
	}
	l, err := paging.Fetch(p, func(limit int) ([]Team, int, error) {
		q.Limit = limit
		return s.store.Teams(ctx, q)
	}, teamCursor)
	if err != nil {
		return paging.List[View]{}, err
	}
	views, err := s.teamViews(ctx, c, l.Items)
	if err != nil {
		return paging.List[View]{}, err
	}
	return paging.With(l, views), nil
}

// Input is the body of PUT ORG/teams and PATCH ORG/teams/{teamId}.
type Input struct {
	Title   *string  `json:"title"`
	Members []string `json:"members"`
}

func checkTeamTitle(pr *apierr.Problems, title *string) {
	if title == nil {
		pr.Add("title", "is required")
		return
	}
	pr.Text("title", *title, 1, MaxTitle)
	if strings.TrimSpace(*title) == "" && *title != "" {
		pr.Add("title", "must not be blank")
	}
}

// CreateTeam creates a team, with the given organization members in it; admins only.
func (s *Service) CreateTeam(ctx context.Context, userID, orgID string, in Input) (View, error) {
	c, err := s.orgs.EnterFor(ctx, userID, orgID, access.CreateTeam, "create teams")
	if err != nil {
		return View{}, err
	}
	var pr apierr.Problems
	checkTeamTitle(&pr, in.Title)
	checkRefs(&pr, "members", len(in.Members))
	if err := pr.Err(); err != nil {
		return View{}, err
	}
	members, err := s.resolveMembers(ctx, c.Org.ID, "members", in.Members)
	if err != nil {
		if !apierr.IsInvalid(err) {
			return View{}, err
		}
		pr.Add("", "%s", err.Error())
	}
	if err := pr.Err(); err != nil {
		return View{}, err
	}
	t := Team{ID: ids.New(), Organization: c.Org.ID, Title: *in.Title, CreatedAt: s.now()}
	if err := s.store.Insert(ctx, t, identityapi.NewTeamCreated(t.Organization, render(s.urls, t, 0, nil).Team)); err != nil {
		return View{}, err
	}
	for _, m := range members {
		if err := s.addMembership(ctx, t, m.User, RoleMember); err != nil {
			return View{}, err
		}
	}
	if len(members) > 0 {
		v, err := s.teamEventData(ctx, t)
		if err != nil {
			return View{}, err
		}
		if err := s.store.Record(ctx, t.ID, identityapi.NewTeamUpdated(t.Organization, v.Team)); err != nil {
			return View{}, err
		}
	}
	return s.teamView(ctx, c, t)
}

// resolveMembers maps user ids or e-mails to members of org. The error names
// the entry at fault (name[i]).
func (s *Service) resolveMembers(ctx context.Context, org, name string, refs []string) ([]member.Member, error) {
	out := make([]member.Member, 0, len(refs))
	seen := map[string]bool{}
	for i, ref := range refs {
		m, err := s.resolveMember(ctx, org, ref)
		if errors.Is(err, apierr.ErrNotFound) {
			return nil, apierr.Invalid(organization.Field(name, i), "%q is not a member of the organization", ref)
		}
		if err != nil {
			return nil, err
		}
		if !seen[m.User] {
			seen[m.User] = true
			out = append(out, m)
		}
	}
	return out, nil
}

// resolveMember finds a member by user id or e-mail.
func (s *Service) resolveMember(ctx context.Context, org, ref string) (member.Member, error) {
	user := ref
	if strings.Contains(ref, "@") {
		u, err := s.members.UserByEmail(ctx, ref)
		if err != nil {
			return member.Member{}, err
		}
		user = u.ID
	}
	return s.members.Member(ctx, org, user)
}

// teamFor enters the organization, loads one of its teams and checks that
// the caller may perform a on it (see access.Membership.CanInTeam); an empty
// a asks only for membership of the organization.
func (s *Service) teamFor(ctx context.Context, userID, orgID, teamID string, a access.Action, what string) (organization.Caller, Team, error) {
	c, err := s.orgs.Enter(ctx, userID, orgID)
	if err != nil {
		return organization.Caller{}, Team{}, err
	}
	t, err := s.store.Team(ctx, c.Org.ID, teamID)
	if errors.Is(err, apierr.ErrNotFound) {
		return organization.Caller{}, Team{}, ErrTeamNotFound
	}
	if err != nil || a == "" {
		return c, t, err
	}
	r, err := s.teamRoleOf(ctx, t.ID, c.User)
	if err != nil {
		return organization.Caller{}, Team{}, err
	}
	if !c.CanInTeam(a, r) {
		return organization.Caller{}, Team{}, organization.Forbidden(what)
	}
	return c, t, nil
}

// GetTeam returns a team the caller may view.
func (s *Service) GetTeam(ctx context.Context, userID, orgID, teamID string) (View, error) {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.ViewTeam, "view this team")
	if err != nil {
		return View{}, err
	}
	return s.teamView(ctx, c, t)
}

// UpdateTeam renames a team; admins and the team's owners.
func (s *Service) UpdateTeam(ctx context.Context, userID, orgID, teamID string, in Input) (View, error) {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.ManageTeam, "change this team")
	if err != nil {
		return View{}, err
	}
	var pr apierr.Problems
	checkTeamTitle(&pr, in.Title)
	if err := pr.Err(); err != nil {
		return View{}, err
	}
	t.Title = *in.Title
	v, err := s.teamEventData(ctx, t)
	if err != nil {
		return View{}, err
	}
	if err := s.store.Rename(ctx, t.ID, t.Title, identityapi.NewTeamUpdated(t.Organization, v.Team)); err != nil {
		return View{}, err
	}
	return s.teamView(ctx, c, t)
}

// DeleteTeam deletes a team and its memberships; admins only.
func (s *Service) DeleteTeam(ctx context.Context, userID, orgID, teamID string) error {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.DeleteTeam, "delete teams")
	if err != nil {
		return err
	}
	tms, _, err := s.store.Memberships(ctx, MembershipQuery{Organization: c.Org.ID, Team: t.ID})
	if err != nil {
		return err
	}
	for _, tm := range tms {
		if err := s.removeMembership(ctx, tm); err != nil {
			return err
		}
	}
	return s.store.Remove(ctx, t.ID, identityapi.NewTeamDeleted(t.Organization, render(s.urls, t, 0, nil).Team))
}

// ListTeamMembers lists a team's members, by membership id.
func (s *Service) ListTeamMembers(ctx context.Context, userID, orgID, teamID string, p paging.Request) (paging.List[MemberView], error) {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.ViewTeam, "view this team")
	if err != nil {
		return paging.List[MemberView]{}, err
	}
	l, err := paging.Fetch(p, func(limit int) ([]Membership, int, error) {
		return s.store.Memberships(ctx, MembershipQuery{Organization: c.Org.ID, Team: t.ID, After: p.AfterID, Limit: limit})
	}, func(tm Membership) string { return paging.IDCursor(tm.ID) })
	if err != nil {
		return paging.List[MemberView]{}, err
	}
	tms := l.Items
	users := make([]string, len(tms))
	for i, tm := range tms {
		users[i] = tm.User
	}
	members, err := s.members.MembersOf(ctx, c.Org.ID, users)
	if err != nil {
		return paging.List[MemberView]{}, err
	}
	ms := make([]member.Member, len(tms))
	for i, tm := range tms {
		ms[i] = members[tm.User]
		if ms[i].User == "" {
			ms[i] = member.Member{Organization: c.Org.ID, User: tm.User}
		}
	}
	views, err := s.memberViews(ctx, c.Org.ID, ms)
	if err != nil {
		return paging.List[MemberView]{}, err
	}
	canView := c.Can(access.ListMembers)
	out := paging.With(l, make([]MemberView, len(tms)))
	for i, tm := range tms {
		out.Items[i] = MemberView{Organization: views[i], Team: RoleView{Role: tm.Role},
			Permissions: &ViewPermission{View: canView || tm.User == c.User}}
	}
	return out, nil
}

// MembersUpdate is the body of PUT ORG/teams/{teamId}/members.
type MembersUpdate struct {
	Add         []string            `json:"add"`
	Remove      []string            `json:"remove"`
	Memberships map[string]RoleView `json:"memberships"`
}

// UpdateTeamMembers adds, removes and changes team members at once, after
// validating every entry (nothing is written when one is wrong). A user both
// added and removed is removed; memberships add or update with the given role.
func (s *Service) UpdateTeamMembers(ctx context.Context, userID, orgID, teamID string, in MembersUpdate) error {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.ManageTeam, "change this team's members")
	if err != nil {
		return err
	}
	var pr apierr.Problems
	checkRefs(&pr, "add", len(in.Add))
	checkRefs(&pr, "remove", len(in.Remove))
	checkRefs(&pr, "memberships", len(in.Memberships))
	if err := pr.Err(); err != nil {
		return err
	}
	add, err := s.resolveMembers(ctx, c.Org.ID, "add", in.Add)
	if err != nil {
		if !apierr.IsInvalid(err) {
			return err
		}
		pr.Add("", "%s", err.Error())
	}
	remove, err := s.resolveMembers(ctx, c.Org.ID, "remove", in.Remove)
	if err != nil {
		if !apierr.IsInvalid(err) {
			return err
		}
		pr.Add("", "%s", err.Error())
	}
	setRole, err := s.resolveRoles(ctx, &pr, c.Org.ID, in.Memberships)
	if err != nil {
		return err
	}
	if err := pr.Err(); err != nil {
		return err
	}
	want, removed := memberChanges(add, remove, setRole)
	changed, err := s.changeMembers(ctx, t, want, removed)
	if err != nil {
		return err
	}
	return s.teamSizeChanged(ctx, t, changed)
}

// resolveRoles resolves the users of memberships (member reference →
// team role) in organization org and returns their roles by user. A role
// other than owner or member, or a reference to no member, is a problem
// added to pr; a failed look-up is the error returned.
func (s *Service) resolveRoles(ctx context.Context, pr *apierr.Problems, org string, memberships map[string]RoleView) (map[string]string, error) {
	setRole := map[string]string{}
	for ref, tr := range memberships {
		name := "memberships." + ref
		if tr.Role != RoleOwner && tr.Role != RoleMember {
			pr.Add(name+".role", "must be one of [owner member]")
			continue
		}
		m, err := s.resolveMember(ctx, org, ref)
		if errors.Is(err, apierr.ErrNotFound) {
			pr.Add(name, "%q is not a member of the organization", ref)
			continue
		}
		if err != nil {
			return nil, err
		}
		setRole[m.User] = tr.Role
	}
	return setRole, nil
}

// memberChanges is what an update of a team's members does: the users to
// make members with their role ("": a new member's default, an existing
// one's unchanged) and the users to remove. A user both added and removed
// is removed.
func memberChanges(add, remove []member.Member, setRole map[string]string) (map[string]string, map[string]bool) {
	removed := map[string]bool{}
	for _, m := range remove {
		removed[m.User] = true
	}
	want := map[string]string{} // user → role to have
	for _, m := range add {
		if !removed[m.User] {
			want[m.User] = ""
		}
	}
	for u, role := range setRole {
		if !removed[u] {
			want[u] = role
		}
	}
	return want, removed
}

// changeMembers puts the memberships of want (user → role) in team t, then
// removes those of the users removed that have one, and reports whether
// anything changed.
func (s *Service) changeMembers(ctx context.Context, t Team, want map[string]string, removed map[string]bool) (bool, error) {
	changed := false
	for u, role := range want {
		did, err := s.putMembership(ctx, t, u, role)
		if err != nil {
			return false, err
		}
		changed = changed || did
	}
	for u := range removed {
		tm, err := s.store.Membership(ctx, t.ID, u)
		if errors.Is(err, apierr.ErrNotFound) {
			continue
		}
		if err != nil {
			return false, err
		}
		if err := s.removeMembership(ctx, tm); err != nil {
			return false, err
		}
		changed = true
	}
	return changed, nil
}

// teamSizeChanged publishes team.updated after its members changed.
func (s *Service) teamSizeChanged(ctx context.Context, t Team, changed bool) error {
	if !changed {
		return nil
	}
	v, err := s.teamEventData(ctx, t)
	if err != nil {
		return err
	}
	return s.store.Record(ctx, t.ID, identityapi.NewTeamUpdated(t.Organization, v.Team))
}

// putMembership adds user to the team with role (RoleMember when empty),
// or changes the role of a present member (kept when role is empty). It
// reports whether anything changed.
func (s *Service) putMembership(ctx context.Context, t Team, user, role string) (bool, error) {
	tm, err := s.store.Membership(ctx, t.ID, user)
	if errors.Is(err, apierr.ErrNotFound) {
		if role == "" {
			role = RoleMember
		}
		return true, s.addMembership(ctx, t, user, role)
	}
	if err != nil {
		return false, err
	}
	if role == "" || role == tm.Role {
		return false, nil
	}
	tm.Role = role
	return true, s.store.SetMembershipRole(ctx, tm.ID, role,
		identityapi.NewTeamMemberUpdated(membershipEvent(tm)))
}

func (s *Service) addMembership(ctx context.Context, t Team, user, role string) error {
	tm := Membership{ID: ids.New(), Key: MembershipKey(t.ID, user), Organization: t.Organization,
		Team: t.ID, User: user, Role: role, AddedAt: s.now()}
	return s.store.InsertMembership(ctx, tm, identityapi.NewTeamMemberCreated(membershipEvent(tm)))
}

func (s *Service) removeMembership(ctx context.Context, tm Membership) error {
	return s.store.RemoveMembership(ctx, tm.ID, identityapi.NewTeamMemberDeleted(membershipEvent(tm)))
}

// PutTeamMember adds a member to a team or changes their team role.
func (s *Service) PutTeamMember(ctx context.Context, userID, orgID, teamID, target string, role *string) error {
	c, t, err := s.teamFor(ctx, userID, orgID, teamID, access.ManageTeam, "change this team's members")
	if err != nil {
		return err
	}
	want := ""
	if role != nil {
		if *role != RoleOwner && *role != RoleMember {
			return apierr.Invalid("role", "must be one of [owner member]")
		}
		want = *role
	}
	if _, err := s.member(ctx, c.Org.ID, target); err != nil {
		return err
	}
	changed, err := s.putMembership(ctx, t, target, want)
	if err != nil {
		return err
	}
	return s.teamSizeChanged(ctx, t, changed)
}

// RemoveTeamMember removes a member from a team: admins, the team's owners,
// and members leaving the team themselves.
func (s *Service) RemoveTeamMember(ctx context.Context, userID, orgID, teamID, target string) error {
	need := access.ManageTeam
	if target == userID {
		need = "" // leaving a team needs no permission
	}
	_, t, err := s.teamFor(ctx, userID, orgID, teamID, need, "change this team's members")
	if err != nil {
		return err
	}
	tm, err := s.store.Membership(ctx, t.ID, target)
	if errors.Is(err, apierr.ErrNotFound) {
		return apierr.NotFound("team member not found")
	}
	if err != nil {
		return err
	}
	if err := s.removeMembership(ctx, tm); err != nil {
		return err
	}
	return s.teamSizeChanged(ctx, t, true)
}

// MemberTeams lists the teams of a member, by team id, optionally filtered
// by title. Members may list their own teams; listing others' needs ListTeams.
func (s *Service) MemberTeams(ctx context.Context, userID, orgID, target, title string, p paging.Request) (paging.List[MemberTeamView], error) {
	c, err := s.orgs.Enter(ctx, userID, orgID)
	if err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	if target != userID && !c.Can(access.ListTeams) {
		return paging.List[MemberTeamView]{}, organization.Forbidden("list other members' teams")
	}
	if err := organization.CheckFilter("title", title); err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	if _, err := s.member(ctx, c.Org.ID, target); err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	tms, _, err := s.store.Memberships(ctx, MembershipQuery{Organization: c.Org.ID, User: target})
	if err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	roleIn := map[string]string{}
	ids := []string{}
	for _, tm := range tms {
		roleIn[tm.Team] = tm.Role
		ids = append(ids, tm.Team)
	}
	l, err := paging.Fetch(p, func(limit int) ([]Team, int, error) {
		return s.store.Teams(ctx, Query{Organization: c.Org.ID, IDs: ids, Title: title, After: p.AfterID, Limit: limit})
	}, teamCursor)
	if err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	views, err := s.teamViews(ctx, c, l.Items)
	if err != nil {
		return paging.List[MemberTeamView]{}, err
	}
	out := paging.With(l, make([]MemberTeamView, len(views)))
	for i, v := range views {
		out.Items[i] = MemberTeamView{Team: v, Member: RoleView{Role: roleIn[v.ID]}}
	}
	return out, nil
}

// HasTeam reports whether org has the team id.
func (s *Service) HasTeam(ctx context.Context, org, id string) (bool, error) {
	_, err := s.store.Team(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// TeamOf renders org's team id as c sees it, or, when c is nil, as events
// carry it; nil when there is no such team.
func (s *Service) TeamOf(ctx context.Context, c *organization.Caller, org, id string) (*View, error) {
	t, err := s.store.Team(ctx, org, id)
	if errors.Is(err, apierr.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var v View
	if c != nil {
		v, err = s.teamView(ctx, *c, t)
	} else {
		v, err = s.teamEventData(ctx, t)
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// checkRefs checks the count of a team request's user references.
func checkRefs(pr *apierr.Problems, name string, n int) {
	if n > MaxMembers {
		pr.Add(name, "must list at most %d users", MaxMembers)
	}
}

// teamCursor is the cursor of a team in a list by id.
func teamCursor(t Team) string { return paging.IDCursor(t.ID) }
