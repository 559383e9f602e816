package organization

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/identity/internal/access"
)

var (
	hostnamePattern    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$`)
	emailDomainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)
)

// ListOrganizations returns the organizations the user is a member of, by id.
func (s *Service) ListOrganizations(ctx context.Context, userID string, p paging.Request) (paging.List[OrganizationView], error) {
	role, err := s.members.Roles(ctx, userID)
	if err != nil {
		return paging.List[OrganizationView]{}, err
	}
	ids := make([]string, 0, len(role))
	for org := range role {
		ids = append(ids, org)
	}
	slices.Sort(ids)
	count := len(ids)
	if p.AfterID != "" {
		i, _ := slices.BinarySearch(ids, p.AfterID)
		for i < len(ids) && ids[i] <= p.AfterID {
			i++
		}
		ids = ids[i:]
	}
	l, err := paging.Fetch(p, func(limit int) ([]Organization, int, error) {
		orgs, err := s.store.OrganizationsByID(ctx, ids[:min(limit, len(ids))])
		return orgs, count, err
	}, func(o Organization) string { return paging.IDCursor(o.ID) })
	if err != nil {
		return paging.List[OrganizationView]{}, err
	}
	out := paging.With(l, []OrganizationView{})
	for _, o := range l.Items {
		perms := access.Membership{Member: true, Role: roles.Role(role[o.ID])}.Organization()
		out.Items = append(out.Items, s.urls.OrganizationView(o, &perms))
	}
	return out, nil
}

// GetOrganization returns an organization the user is a member of.
func (s *Service) GetOrganization(ctx context.Context, userID, orgID string) (OrganizationView, error) {
	c, err := s.EnterFor(ctx, userID, orgID, access.ViewOrganization, "view it")
	if err != nil {
		return OrganizationView{}, err
	}
	perms := c.Organization()
	return s.urls.OrganizationView(c.Org, &perms), nil
}

// Patch is the body of PATCH ORG. Absent fields stay unchanged.
type Patch struct {
	Title          nullable.Field[string]         `json:"title"`
	EmailDomains   nullable.Field[[]string]       `json:"emailDomains"`
	Hostname       nullable.Field[string]         `json:"hostname"`
	DefaultRole    nullable.Field[string]         `json:"defaultRole"`
	DefaultContent nullable.Field[DefaultContent] `json:"defaultContent"`
	Logo           nullable.Field[string]         `json:"logo"`
	SSO            nullable.Field[bool]           `json:"sso"`
	AI             nullable.Field[bool]           `json:"ai"`
	InviteLinks    nullable.Field[bool]           `json:"inviteLinks"`
}

// apply validates the patch, applies it to o and returns the change it makes.
func (p Patch) apply(o *Organization) (Change, error) {
	var pr apierr.Problems
	var ch Change
	if p.Title.Set {
		if p.Title.Null {
			pr.Add("title", "must not be null")
		} else {
			CheckTitle(&pr, "title", p.Title.Value, MinOrganizationTitle, MaxOrganizationTitle)
			o.Title = p.Title.Value
			ch.Title = &o.Title
		}
	}
	if p.EmailDomains.Set {
		domains := cleanEmailDomains(&pr, p.EmailDomains.Value)
		o.EmailDomains = domains
		ch.EmailDomains = &domains
	}
	if p.Hostname.Set {
		if p.Hostname.Null {
			o.Hostname = ""
		} else {
			pr.Length("hostname", p.Hostname.Value, MinHostname, MaxHostname)
			if n := len(p.Hostname.Value); n >= MinHostname && n <= MaxHostname {
				pr.Pattern("hostname", p.Hostname.Value, hostnamePattern)
			}
			o.Hostname = p.Hostname.Value
		}
		ch.Hostname = &o.Hostname
	}
	if p.DefaultRole.Set {
		r, err := ParseRoleOrGuest("defaultRole", p.DefaultRole)
		if err != nil {
			pr.Add("defaultRole", "must be one of %v or null", roles.Names)
		}
		o.DefaultRole = r
		ch.DefaultRole = &r
	}
	if p.DefaultContent.Set {
		if p.DefaultContent.Null {
			o.DefaultContent = nil
		} else {
			dc := p.DefaultContent.Value
			if dc.Type != "site" {
				pr.Add("defaultContent.type", "must be site")
			}
			pr.Text("defaultContent.site", dc.Site, 1, MaxSiteID)
			o.DefaultContent = &dc
		}
		ch.SetDefaultContent, ch.DefaultContent = true, o.DefaultContent
	}
	if p.Logo.Set {
		if p.Logo.Null {
			o.Logo = ""
		} else {
			CheckURL(&pr, "logo", p.Logo.Value)
			o.Logo = p.Logo.Value
		}
		ch.Logo = &o.Logo
	}
	p.applySwitches(&pr, o, &ch)
	return ch, pr.Err()
}

// cleanEmailDomains checks the email domains of a patch (at most
// MaxEmailDomains of them, the rest unread) and returns them lower-cased,
// trimmed, without repeats, the invalid ones left out.
func cleanEmailDomains(pr *apierr.Problems, in []string) []string {
	domains := []string{}
	if len(in) > MaxEmailDomains {
		pr.Add("emailDomains", "must list at most %d domains", MaxEmailDomains)
	}
	for i, d := range in {
		if i == MaxEmailDomains {
			break
		}
		d = strings.ToLower(strings.TrimSpace(d))
		if len(d) > MaxEmailDomain || !emailDomainPattern.MatchString(d) {
			pr.Add(Field("emailDomains", i), "must be a domain name like example.com")
			continue
		}
		if !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	return domains
}

// applySwitches applies the patch's on/off settings (sso, ai,
// inviteLinks) to o and records them in ch; null is refused.
func (p Patch) applySwitches(pr *apierr.Problems, o *Organization, ch *Change) {
	for _, b := range []struct {
		name string
		f    nullable.Field[bool]
		dst  *bool
		set  **bool
	}{{"sso", p.SSO, &o.SSO, &ch.SSO}, {"ai", p.AI, &o.AI, &ch.AI}, {"inviteLinks", p.InviteLinks, &o.InviteLinks, &ch.InviteLinks}} {
		if !b.f.Set {
			continue
		}
		if b.f.Null {
			pr.Add(b.name, "must be a boolean")
			continue
		}
		*b.dst = b.f.Value
		*b.set = b.dst
	}
}

// UpdateOrganization changes an organization; admins only.
func (s *Service) UpdateOrganization(ctx context.Context, userID, orgID string, p Patch) (OrganizationView, error) {
	c, err := s.EnterFor(ctx, userID, orgID, access.AdminOrganization, "change the organization")
	if err != nil {
		return OrganizationView{}, err
	}
	org := c.Org
	ch, err := p.apply(&org)
	if err != nil {
		return OrganizationView{}, err
	}
	if org.Hostname != "" && org.Hostname != c.Org.Hostname {
		taken, err := s.store.HostnameTaken(ctx, org.Hostname, org.ID)
		if err != nil {
			return OrganizationView{}, err
		}
		if taken {
			return OrganizationView{}, apierr.Conflict("hostname: %q is taken by another organization", org.Hostname)
		}
	}
	if !ch.Empty() {
		ev := identityapi.NewOrganizationUpdated(org.ID, s.urls.OrganizationView(org, nil))
		if err := s.store.Update(ctx, org.ID, ch, ev); err != nil {
			return OrganizationView{}, err
		}
	}
	perms := c.Organization()
	return s.urls.OrganizationView(org, &perms), nil
}

// OrganizationsForEmailDomain lists the organizations whose e-mail domains
// contain domain and that the caller may see: those the caller belongs to,
// and those the caller could join by e-mail domain (the caller's own e-mail
// is at that domain).
func (s *Service) OrganizationsForEmailDomain(ctx context.Context, userID, domain string) ([]OrganizationView, error) {
	domain = strings.ToLower(strings.TrimSpace(domain))
	email, err := s.members.Email(ctx, userID)
	if err != nil {
		return nil, err
	}
	ownDomain := false
	if _, d, ok := strings.Cut(strings.ToLower(email), "@"); ok && d == domain {
		ownDomain = true
	}
	orgs, err := s.store.OrganizationsByEmailDomain(ctx, domain)
	if err != nil {
		return nil, err
	}
	role, err := s.members.Roles(ctx, userID)
	if err != nil {
		return nil, err
	}
	out := []OrganizationView{}
	for _, o := range orgs {
		r, member := role[o.ID]
		if !member && !ownDomain {
			continue
		}
		perms := access.Membership{Member: member, Role: roles.Role(r)}.Organization()
		out = append(out, s.urls.OrganizationView(o, &perms))
	}
	return out, nil
}

// ParseRoleOrGuest reads a Role-or-null field: null is a guest.
func ParseRoleOrGuest(name string, f nullable.Field[string]) (roles.Role, error) {
	if f.Null {
		return roles.Guest, nil
	}
	r := roles.Role(f.Value)
	if !roles.Valid(r) {
		return roles.Guest, apierr.Invalid(name, "must be one of %v or null", roles.Names)
	}
	return r, nil
}

// CheckTitle checks a single-line title: apierr.Problems.Text, and no
// leading or trailing whitespace when it must have at least 2 characters.
func CheckTitle(pr *apierr.Problems, name, s string, min, max int) {
	before := pr.Len()
	pr.Text(name, s, min, max)
	if pr.Len() == before && min >= 2 && strings.TrimSpace(s) != s {
		pr.Add(name, "must not start or end with whitespace")
	}
}

// CheckURL checks an absolute http(s) URL of at most MaxURL characters.
func CheckURL(pr *apierr.Problems, name, s string) {
	if len(s) > MaxURL {
		pr.Add(name, "must be at most %d characters", MaxURL)
		return
	}
	if why := apierr.TextProblem(s); why != "" {
		pr.Add(name, "%s", why)
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		pr.Add(name, "must be an absolute http(s) URL")
	}
}

// Field names the entry i of the list field name: name[i].
func Field(name string, i int) string { return name + "[" + strconv.Itoa(i) + "]" }
