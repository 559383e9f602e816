package site

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/sites/internal/access"
	"github.com/docspub/platform/services/sites/internal/condition"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/spaceview"
)

// checkedSpace is a space content confirmed, as the projection keeps it,
// with the caller's permissions on it as content reported them.
type checkedSpace struct {
	ID    string
	Title string
	View  string // the Space JSON without permissions
	Perms spacePermissions
}

// checkSpace asks content whether the caller sees the space and whether it
// belongs to org (a 400 naming field otherwise), and records content's
// answer in the projection unless a newer view is there.
func (s *Service) checkSpace(ctx context.Context, c access.Caller, org, spaceID, field string) (checkedSpace, error) {
	raw, err := s.content.Space(ctx, c, spaceID, field)
	if err != nil {
		return checkedSpace{}, err
	}
	var sp struct {
		ID           string            `json:"id"`
		Organization string            `json:"organization"`
		Title        string            `json:"title"`
		Permissions  *spacePermissions `json:"permissions"`
	}
	if err := json.Unmarshal(raw, &sp); err != nil || sp.ID == "" {
		return checkedSpace{}, fmt.Errorf("content answered an unreadable space %s: %w", spaceID, err)
	}
	if sp.Organization != org {
		return checkedSpace{}, apierr.Invalid(field, "space %s belongs to another organization", spaceID)
	}
	view, err := spaceJSON(string(raw), nil)
	if err != nil {
		return checkedSpace{}, err
	}
	if err := s.spaces.Put(ctx, view, false, time.Time{}); err != nil {
		return checkedSpace{}, err
	}
	out := checkedSpace{ID: sp.ID, Title: sp.Title, View: string(view), Perms: permissionsFor(roles.Read, locked(string(view)))}
	if sp.Permissions != nil {
		out.Perms = *sp.Permissions
	}
	return out, nil
}

// slug makes a site space path from a space title: lower-case letters and
// digits, other runs of characters become one "-".
func slug(title string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	out := []rune(b.String())
	if len(out) > limits.SiteSpacePath-4 { // room for a "-999" suffix
		out = out[:limits.SiteSpacePath-4]
	}
	if len(out) == 0 {
		return "space"
	}
	return strings.Trim(string(out), "-")
}

// freePath returns base, or base-2, base-3... whichever no sibling uses.
func freePath(base string, siblings []SiteSpace) string {
	used := map[string]bool{}
	for _, ss := range siblings {
		used[ss.Path] = true
	}
	p := base
	for n := 2; used[p]; n++ {
		p = fmt.Sprintf("%s-%d", base, n)
	}
	return p
}

// AddSiteSpace adds a space to a site, in a section or (sectionID "") at
// the site level; g must allow editing the site. Content is asked about
// the space (a 400 naming spaceId when it does not exist, is not visible to
// the caller or belongs to another organization); its path is the slug of
// the space title, unique among its siblings; the first site space of a
// section or of the site level is its default. A space already in the
// section is a conflict.
func (s *Service) AddSiteSpace(ctx context.Context, c access.Caller, g Grant, sectionID, spaceID string) (SiteSpaceView, error) {
	if !g.Can(access.Edit) {
		return SiteSpaceView{}, forbidden(actionText(access.Edit))
	}
	if strings.TrimSpace(spaceID) == "" {
		return SiteSpaceView{}, apierr.Invalid("spaceId", "is required")
	}
	st, err := s.load(ctx, g.Organization, g.Site)
	if err != nil {
		return SiteSpaceView{}, err
	}
	counts, err := s.store.CountSiteSpaces(ctx, []string{st.ID})
	if err != nil {
		return SiteSpaceView{}, err
	}
	if counts[st.ID] >= limits.SiteSpacesPerSite {
		return SiteSpaceView{}, apierr.Invalid("spaceId", "cannot add a site space: a site has at most %d site spaces", limits.SiteSpacesPerSite)
	}
	sp, err := s.checkSpace(ctx, c, g.Organization, spaceID, "spaceId")
	if err != nil {
		return SiteSpaceView{}, err
	}
	return s.addSiteSpace(ctx, st, g, sectionID, sp)
}

func (s *Service) addSiteSpace(ctx context.Context, st Site, g Grant, section string, sp checkedSpace) (SiteSpaceView, error) {
	const attempts = 3 // a concurrent addition may take the path first
	for try := 1; ; try++ {
		siblings, err := s.store.SiteSpacesIn(ctx, st.ID, []string{section})
		if err != nil {
			return SiteSpaceView{}, err
		}
		for _, o := range siblings {
			if o.Space == sp.ID {
				where := "this site"
				if section != "" {
					where = "this section"
				}
				return SiteSpaceView{}, apierr.Conflict("space %s is already in %s", sp.ID, where)
			}
		}
		now := s.clock()
		ss := SiteSpace{ID: ids.New(), Organization: st.Organization, Site: st.ID, Section: section,
			Space: sp.ID, Path: freePath(slug(sp.Title), siblings), Default: len(siblings) == 0,
			Position: s.position(), CreatedAt: now, UpdatedAt: now}
		proj := spaceview.Space{ID: sp.ID, Title: sp.Title, View: sp.View}
		prefixes, err := s.prefixes(ctx, st, ss)
		if err != nil {
			return SiteSpaceView{}, err
		}
		ev, err := s.siteSpaceView(st, prefixes, ss, proj, nil)
		if err != nil {
			return SiteSpaceView{}, err
		}
		err = s.store.InsertSiteSpace(ctx, ss, sitesapi.NewSiteSpaceCreated(st.Organization, ss.ID, ev))
		if errors.Is(err, apierr.ErrConflict) && try < attempts {
			continue
		}
		if err != nil {
			return SiteSpaceView{}, err
		}
		if err := s.keepWithinBound(ctx, st, ss, ev); err != nil {
			return SiteSpaceView{}, err
		}
		return s.siteSpaceView(st, prefixes, ss, proj, &sp.Perms)
	}
}

// keepWithinBound counts a site's site spaces again once ss is stored: the
// count AddSiteSpace checked was read before the insert, and concurrent
// additions may all have passed it. A site over its bound takes ss back
// (with its deletion event), so the bound holds whatever the interleaving:
// the last of two racing inserts always counts both.
func (s *Service) keepWithinBound(ctx context.Context, st Site, ss SiteSpace, ev any) error {
	counts, err := s.store.CountSiteSpaces(ctx, []string{st.ID})
	if err == nil && counts[st.ID] <= limits.SiteSpacesPerSite {
		return nil
	}
	if rerr := s.store.RemoveSiteSpace(ctx, ss.ID, sitesapi.NewSiteSpaceDeleted(st.Organization, ss.ID, ev)); rerr != nil {
		return fmt.Errorf("take back site space %s of site %s: %w", ss.ID, st.ID, rerr)
	}
	if err != nil {
		return err
	}
	return apierr.Invalid("spaceId", "cannot add a site space: a site has at most %d site spaces", limits.SiteSpacesPerSite)
}

// Variants are the site spaces of one section (or of the site level) as a
// grant's holder may see them: those shown, in order, and how many others
// the section has.
type Variants struct {
	Shown  []SiteSpaceView
	Hidden int
}

// Concealed reports whether the section has site spaces but none its
// viewer may be shown: then the section itself is not shown to them (its
// title is often its space's).
func (v Variants) Concealed() bool { return len(v.Shown) == 0 && v.Hidden > 0 }

// SiteSpaces returns the site spaces of the given sections ("" for the
// site-level ones), each in order, rendered for g: only those whose space
// g's holder may be shown (showable), with their permissions on it; for a
// visitor, only those g.Visible lists, without member-only fields
// (visitorView). A site space whose space is deleted comes back when the
// space is restored. Every asked section has an entry.
func (s *Service) SiteSpaces(ctx context.Context, g Grant, sectionIDs []string) (map[string]Variants, error) {
	out := make(map[string]Variants, len(sectionIDs))
	for _, id := range sectionIDs {
		out[id] = Variants{Shown: []SiteSpaceView{}}
	}
	if len(sectionIDs) == 0 {
		return out, nil
	}
	st, err := s.load(ctx, g.Organization, g.Site)
	if err != nil {
		return nil, err
	}
	sss, err := s.store.SiteSpacesIn(ctx, st.ID, sectionIDs)
	if err != nil {
		return nil, err
	}
	show, err := s.showable(ctx, g, spacesOf(sss))
	if err != nil {
		return nil, err
	}
	prefixes, err := s.prefixes(ctx, st, sss...)
	if err != nil {
		return nil, err
	}
	for _, ss := range sss {
		v := out[ss.Section]
		sh, ok := show[ss.Space]
		if !ok || (g.Visitor && (g.Visible == nil || !g.Visible.ListedSiteSpace(ss.ID))) {
			v.Hidden++
			out[ss.Section] = v
			continue
		}
		view, err := s.siteSpaceView(st, prefixes, ss, sh.space, &sh.perms)
		if err != nil {
			return nil, err
		}
		if g.Visitor {
			if view, err = visitorView(view); err != nil {
				return nil, err
			}
		}
		v.Shown = append(v.Shown, view)
		out[ss.Section] = v
	}
	return out, nil
}

func spacesOf(sss []SiteSpace) []string {
	out := make([]string, 0, len(sss))
	for _, ss := range sss {
		out = append(out, ss.Space)
	}
	return out
}

// shown is a space that a grant's holder may be shown, with their
// permissions on it.
type shown struct {
	space spaceview.Space
	perms spacePermissions
}

// showable returns, by id, the spaces among ids that g's holder may be
// shown. The projection must hold each one live and in the site's
// organization (a space transferred away or deleted is never shown). Then:
//   - a member is shown what content lets them view: content is asked once
//     for all the spaces, with the member's internal token; a space content
//     refuses, reports deleted or in another organization is left out, and
//     the permissions follow the level content reports. When content does
//     not answer, the answer is a 503: never more is shown;
//   - a visitor of the published view (g.Visitor) follows the site's
//     publishing rules: every such space, read-only.
func (s *Service) showable(ctx context.Context, g Grant, ids []string) (map[string]shown, error) {
	proj, err := s.spaces.Get(ctx, ids)
	if err != nil {
		return nil, err
	}
	live := make([]string, 0, len(proj))
	for id, sp := range proj {
		if !sp.Deleted && sp.Organization == g.Organization {
			live = append(live, id)
		}
	}
	out := make(map[string]shown, len(live))
	if g.Visitor {
		for _, id := range live {
			out[id] = shown{space: proj[id], perms: permissionsFor(roles.Read, locked(proj[id].View))}
		}
		return out, nil
	}
	if len(live) == 0 {
		return out, nil
	}
	acc, err := s.content.Access(ctx, g.Caller, live)
	if err != nil {
		return nil, err
	}
	for _, id := range live {
		a := acc[id]
		if a == nil || a.Deleted || a.Organization != g.Organization {
			continue
		}
		out[id] = shown{space: proj[id], perms: permissionsFor(a.Level, locked(proj[id].View))}
	}
	return out, nil
}

// showOne is showable for the space of one site space: a space its holder
// may not be shown makes the site space not found.
func (s *Service) showOne(ctx context.Context, g Grant, ss SiteSpace) (shown, error) {
	show, err := s.showable(ctx, g, []string{ss.Space})
	if err != nil {
		return shown{}, err
	}
	sh, ok := show[ss.Space]
	if !ok {
		return shown{}, ErrSiteSpaceNotFound
	}
	return sh, nil
}

// renderSiteSpaces renders the site spaces whose space is in show.
func (s *Service) renderSiteSpaces(ctx context.Context, st Site, sss []SiteSpace, show map[string]shown) ([]SiteSpaceView, error) {
	out := make([]SiteSpaceView, 0, len(sss))
	prefixes, err := s.prefixes(ctx, st, sss...)
	if err != nil {
		return nil, err
	}
	for _, ss := range sss {
		sh, ok := show[ss.Space]
		if !ok {
			continue
		}
		v, err := s.siteSpaceView(st, prefixes, ss, sh.space, &sh.perms)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// eventView renders a site space for its events (without permissions). A
// space the projection does not hold, or holds in another organization,
// is named by its id alone: the site's events never carry another
// organization's space.
func (s *Service) eventView(ctx context.Context, st Site, ss SiteSpace) (SiteSpaceView, error) {
	proj, err := s.spaces.Get(ctx, []string{ss.Space})
	if err != nil {
		return SiteSpaceView{}, err
	}
	sp, ok := proj[ss.Space]
	if !ok || sp.Organization != st.Organization {
		sp = spaceview.Space{ID: ss.Space, View: fmt.Sprintf(`{"object":"space","id":%q}`, ss.Space)}
	}
	prefixes, err := s.prefixes(ctx, st, ss)
	if err != nil {
		return SiteSpaceView{}, err
	}
	return s.siteSpaceView(st, prefixes, ss, sp, nil)
}

// RemoveSiteSpaces removes the site spaces of a deleted section, each with
// its event.
func (s *Service) RemoveSiteSpaces(ctx context.Context, g Grant, sectionID string) error {
	st, err := s.load(ctx, g.Organization, g.Site)
	if err != nil {
		return err
	}
	sss, err := s.store.SiteSpacesIn(ctx, st.ID, []string{sectionID})
	if err != nil {
		return err
	}
	for _, ss := range sss {
		v, err := s.eventView(ctx, st, ss)
		if err != nil {
			return err
		}
		err = s.store.RemoveSiteSpace(ctx, ss.ID, sitesapi.NewSiteSpaceDeleted(st.Organization, ss.ID, v))
		if err != nil && !errors.Is(err, apierr.ErrNotFound) {
			return err
		}
	}
	return nil
}

// ListSiteSpaces returns a page of all the site spaces of a site (site
// level and sections), by order of addition; def filters on the default
// flag. Only site spaces whose space the caller may be shown are listed
// (and counted): one question to content for all the site's spaces.
func (s *Service) ListSiteSpaces(ctx context.Context, c access.Caller, org, siteID string, def *bool, pg Page) (List[SiteSpaceView], error) {
	st, g, err := s.enter(ctx, c, org, siteID, access.View)
	if err != nil {
		return List[SiteSpaceView]{}, err
	}
	spaceIDs, err := s.store.SpacesOf(ctx, st.ID)
	if err != nil {
		return List[SiteSpaceView]{}, err
	}
	show, err := s.showable(ctx, g, spaceIDs)
	if err != nil {
		return List[SiteSpaceView]{}, err
	}
	hidden := []string{}
	for _, id := range spaceIDs {
		if _, ok := show[id]; !ok {
			hidden = append(hidden, id)
		}
	}
	page, err := paging.Fetch(pg, func(limit int) ([]SiteSpace, int, error) {
		return s.store.SiteSpaces(ctx, SiteSpaceQuery{Site: st.ID, Default: def, ExcludeSpaces: hidden,
			AfterPosition: pg.AfterPosition, AfterID: pg.AfterID, Limit: limit})
	}, siteSpaceKey)
	if err != nil {
		return List[SiteSpaceView]{}, err
	}
	views, err := s.renderSiteSpaces(ctx, st, page.Items, show)
	return paging.With(page, views), err
}

// AddSpace adds a space to a site (the edit permission is needed): to the
// section sectionID when it is set (a 400 naming sectionId when the site
// has no such section), else to the site's default section, else, for a
// site without sections, at the site level.
func (s *Service) AddSpace(ctx context.Context, c access.Caller, org, siteID, spaceID string, sectionID *string) (SiteSpaceView, error) {
	_, g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SiteSpaceView{}, err
	}
	section := ""
	switch {
	case sectionID != nil:
		why, err := s.sectionProblem(ctx, g, *sectionID)
		if err != nil {
			return SiteSpaceView{}, err
		}
		if why != "" {
			return SiteSpaceView{}, apierr.Invalid("sectionId", "%s", why)
		}
		section = *sectionID
	case s.sections != nil:
		if section, err = s.sections.DefaultSection(ctx, g.Site); err != nil {
			return SiteSpaceView{}, err
		}
	}
	return s.AddSiteSpace(ctx, c, g, section, spaceID)
}

// siteSpaceOf loads a site space of the site.
func (s *Service) siteSpaceOf(ctx context.Context, st Site, id string) (SiteSpace, error) {
	ss, err := s.store.SiteSpace(ctx, id)
	if errors.Is(err, apierr.ErrNotFound) || (err == nil && ss.Site != st.ID) {
		return SiteSpace{}, ErrSiteSpaceNotFound
	}
	return ss, err
}

// UpdateSiteSpaceInput is the body of a site space change; nil fields stay.
type UpdateSiteSpaceInput struct {
	Path      *string
	Hidden    *bool
	Default   *bool // true makes it the default of its section; false is refused on the default
	Condition nullable.Field[string]
}

// CheckSegment checks a name that is one segment of a published URL (a
// basename, a section or site space path): 1..max characters, no control
// or invisible format character, not "." or "..", no slash, backslash,
// '?', '#' or space.
func CheckSegment(p *apierr.Problems, field, name string, max int) {
	switch {
	case apierr.SegmentProblem(name) != "":
		p.Segment(field, name, 1, max)
	case strings.ContainsAny(name, "?#") || strings.IndexFunc(name, unicode.IsSpace) >= 0:
		p.Add(field, "must not contain '?', '#' or spaces")
	default:
		p.Length(field, name, 1, max)
	}
}

// UpdateSiteSpace changes a site space (the edit permission is needed). A
// site space whose space the caller may not be shown is not found; a path
// used by a sibling is a conflict.
func (s *Service) UpdateSiteSpace(ctx context.Context, c access.Caller, org, siteID, id string, in UpdateSiteSpaceInput) (SiteSpaceView, error) {
	st, g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return SiteSpaceView{}, err
	}
	ss, err := s.siteSpaceOf(ctx, st, id)
	if err != nil {
		return SiteSpaceView{}, err
	}
	next := ss
	in.apply(&next)
	var p apierr.Problems
	if in.Path != nil {
		CheckSegment(&p, "path", next.Path, limits.SiteSpacePath)
	}
	if in.Default != nil && !*in.Default && ss.Default {
		p.Add("default", "cannot be unset: make another site space the default instead")
	}
	if in.Condition.Set && !in.Condition.Null {
		n := p.Len()
		p.Length("condition", next.Condition, 1, limits.Condition)
		if _, err := condition.Compile(next.Condition); err != nil && p.Len() == n {
			p.Add("condition", "%s", err)
		}
	}
	if err := p.Err(); err != nil {
		return SiteSpaceView{}, err
	}
	sh, err := s.showOne(ctx, g, ss)
	if err != nil {
		return SiteSpaceView{}, err
	}
	if in.Path != nil {
		siblings, err := s.store.SiteSpacesIn(ctx, st.ID, []string{ss.Section})
		if err != nil {
			return SiteSpaceView{}, err
		}
		for _, o := range siblings {
			if o.ID != ss.ID && o.Path == next.Path {
				return SiteSpaceView{}, pathTaken(next.Path)
			}
		}
	}
	if in.Default != nil && *in.Default && !ss.Default {
		if err := s.makeDefault(ctx, st, ss); err != nil {
			return SiteSpaceView{}, err
		}
		ss.Default = true
	}
	if in.Path != nil || in.Hidden != nil || in.Condition.Set {
		ss, err = s.store.UpdateSiteSpace(ctx, ss.ID, func(cur *SiteSpace) (envelope.Event, error) {
			in.apply(cur)
			cur.UpdatedAt = s.clock()
			v, err := s.eventView(ctx, st, *cur)
			return sitesapi.NewSiteSpaceUpdated(org, cur.ID, v), err
		})
		if errors.Is(err, apierr.ErrConflict) {
			return SiteSpaceView{}, pathTaken(next.Path)
		}
		if err != nil {
			return SiteSpaceView{}, err
		}
	}
	prefixes, err := s.prefixes(ctx, st, ss)
	if err != nil {
		return SiteSpaceView{}, err
	}
	return s.siteSpaceView(st, prefixes, ss, sh.space, &sh.perms)
}

// apply makes the change's fields of ss (not its default flag: see
// makeDefault).
func (in UpdateSiteSpaceInput) apply(ss *SiteSpace) {
	if in.Path != nil {
		ss.Path = *in.Path
	}
	if in.Hidden != nil {
		ss.Hidden = *in.Hidden
	}
	if in.Condition.Set {
		ss.Condition = ""
		if !in.Condition.Null {
			ss.Condition = in.Condition.Value
		}
	}
}

func pathTaken(path string) error {
	return &apierr.Error{Status: 409, Message: fmt.Sprintf("path: %q is already used by another site space here", path), Field: "path"}
}

// DeleteSiteSpace removes a site space (the edit permission is needed); one
// whose space the caller may not be shown is not found. When it was the
// default, the first remaining sibling becomes the default.
func (s *Service) DeleteSiteSpace(ctx context.Context, c access.Caller, org, siteID, id string) error {
	st, g, err := s.enter(ctx, c, org, siteID, access.Edit)
	if err != nil {
		return err
	}
	ss, err := s.siteSpaceOf(ctx, st, id)
	if err != nil {
		return err
	}
	if _, err := s.showOne(ctx, g, ss); err != nil {
		return err
	}
	v, err := s.eventView(ctx, st, ss)
	if err != nil {
		return err
	}
	if err := s.store.RemoveSiteSpace(ctx, ss.ID, sitesapi.NewSiteSpaceDeleted(org, ss.ID, v)); err != nil {
		return err
	}
	if !ss.Default {
		return nil
	}
	rest, err := s.store.SiteSpacesIn(ctx, st.ID, []string{ss.Section})
	if err != nil || len(rest) == 0 {
		return err
	}
	return s.makeDefault(ctx, st, rest[0])
}

// makeDefault makes ss the default of its section (or site level): the
// previous default loses the flag. Both changes carry their events.
func (s *Service) makeDefault(ctx context.Context, st Site, ss SiteSpace) error {
	if ss.Default {
		return nil
	}
	siblings, err := s.store.SiteSpacesIn(ctx, st.ID, []string{ss.Section})
	if err != nil {
		return err
	}
	now := s.clock()
	for _, o := range siblings {
		want := o.ID == ss.ID
		if o.Default == want {
			continue
		}
		_, err := s.store.UpdateSiteSpace(ctx, o.ID, func(cur *SiteSpace) (envelope.Event, error) {
			cur.Default, cur.UpdatedAt = want, now
			v, err := s.eventView(ctx, st, *cur)
			return sitesapi.NewSiteSpaceUpdated(st.Organization, cur.ID, v), err
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// MakeDefault makes a site space of the granted site the default of its
// section or of the site level (g must allow editing the site): it is
// published at the section's own URL.
func (s *Service) MakeDefault(ctx context.Context, g Grant, siteSpaceID string) error {
	if !g.Can(access.Edit) {
		return forbidden(actionText(access.Edit))
	}
	st, err := s.load(ctx, g.Organization, g.Site)
	if err != nil {
		return err
	}
	ss, err := s.siteSpaceOf(ctx, st, siteSpaceID)
	if err != nil {
		return err
	}
	return s.makeDefault(ctx, st, ss)
}
