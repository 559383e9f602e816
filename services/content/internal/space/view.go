package space

import (
	"context"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
)

// SpaceView is a space as the API returns it. Permissions are those of the
// caller; events carry the view without them.
type SpaceView struct {
	contentapi.Space                          // what the space.* events carry
	Permissions      *access.SpacePermissions `json:"permissions,omitempty"`
}

// MergeRules are a space's merge rules: inherited from the organization.
type MergeRules = contentapi.MergeRules

// SpaceURLs are a space's URLs.
type SpaceURLs = contentapi.SpaceURLs

// CollectionView is a collection as the API returns it.
type CollectionView struct {
	contentapi.Collection                               // what the collection.* events carry
	Permissions           *access.CollectionPermissions `json:"permissions,omitempty"`
}

// MemberSpace is an item of a member's space list.
type MemberSpace struct {
	Permission roles.Role `json:"permission"`
	Space      SpaceView  `json:"space"`
}

func (s *Service) spaceView(sp Space, n Counts) SpaceView {
	return SpaceView{Space: contentapi.Space{
		Object: "space", ID: sp.ID, Title: sp.Title, Emoji: sp.Emoji, Visibility: sp.Visibility,
		CreatedAt: sp.CreatedAt, UpdatedAt: sp.UpdatedAt, DeletedAt: sp.DeletedAt, EditMode: sp.EditMode,
		Organization: sp.Organization, Parent: sp.Parent, Revision: sp.Revision, DefaultLevel: contentapi.DefaultLevel(sp.DefaultLevel),
		Comments: n.Comments, ChangeRequests: n.ChangeRequests, ChangeRequestsOpen: n.ChangeRequestsOpen,
		ChangeRequestsDraft: n.ChangeRequestsDraft, MergeRules: MergeRules{Type: "inherit"}, GitSync: (*contentapi.GitSync)(sp.GitSync),
		SpaceSettings: contentapi.SpaceSettings(sp.Settings),
		URLs:          SpaceURLs{Location: s.urls.Location("/spaces/" + sp.ID), App: s.urls.InApp("/s/" + sp.ID)},
	}}
}

// renderSpaces renders spaces with their counters and, when level is given,
// the caller's permissions. A caller's view takes the counters cached
// (cachedCounts: what this instance wrote shows at once); an event's (no
// level) counts them (one query for all).
func (s *Service) renderSpaces(ctx context.Context, sps []Space, level func(Space) roles.Role) ([]SpaceView, error) {
	ids := make([]string, len(sps))
	for i, sp := range sps {
		ids[i] = sp.ID
	}
	count := s.cachedCounts
	if level == nil {
		count = s.store.Counts
	}
	counts, err := count(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]SpaceView, len(sps))
	for i, sp := range sps {
		out[i] = s.spaceView(sp, counts[sp.ID])
		if level != nil {
			out[i] = withPermissions(out[i], sp, level(sp))
		}
	}
	return out, nil
}

// withPermissions is v with the permissions of a caller at level on sp.
func withPermissions(v SpaceView, sp Space, level roles.Role) SpaceView {
	p := access.ForSpace(level, sp.EditMode == EditLocked)
	v.Permissions = &p
	return v
}

func (s *Service) renderSpace(ctx context.Context, sp Space, level roles.Role) (SpaceView, error) {
	vs, err := s.renderSpaces(ctx, []Space{sp}, func(Space) roles.Role { return level })
	if err != nil {
		return SpaceView{}, err
	}
	return vs[0], nil
}

// eventView renders a space for its event: the resource without a caller's permissions.
func (s *Service) eventView(ctx context.Context, sp Space) (SpaceView, error) {
	vs, err := s.renderSpaces(ctx, []Space{sp}, nil)
	if err != nil {
		return SpaceView{}, err
	}
	return vs[0], nil
}

func (s *Service) collectionView(c Collection, level *roles.Role) CollectionView {
	v := CollectionView{Collection: contentapi.Collection{
		Object: "collection", ID: c.ID, Title: c.Title, Description: c.Description, Organization: c.Organization,
		Parent: c.Parent, DefaultLevel: contentapi.DefaultLevel(c.DefaultLevel),
		URLs: SpaceURLs{Location: s.urls.Location("/collections/" + c.ID), App: s.urls.InApp("/collections/" + c.ID)},
	}}
	if level != nil {
		p := access.ForCollection(*level)
		v.Permissions = &p
	}
	return v
}
