package changerequest

import (
	"context"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
)

// View is a change request as the API returns it, and as the
// change_request.* events carry it (contentapi.ChangeRequest).
type View = contentapi.ChangeRequest

// URLs are a change request's URLs.
type URLs = contentapi.ChangeRequestURLs

// List is one page of change requests, newest first; its cursor holds the
// id of its last one.
type List = paging.List[View]

func (s *Service) render(ctx context.Context, g access.Grant, cr ChangeRequest) (View, error) {
	vs, err := s.renderAll(ctx, g, []ChangeRequest{cr})
	if err != nil {
		return View{}, err
	}
	return vs[0], nil
}

// renderAll renders change requests with one query for users and one for comment counts.
// A change request is outdated when the space moved on since its last merge base.
func (s *Service) renderAll(ctx context.Context, g access.Grant, crs []ChangeRequest) ([]View, error) {
	var userIDs, crIDs []string
	for _, cr := range crs {
		userIDs = append(userIDs, cr.CreatedBy)
		if cr.MergedBy != "" {
			userIDs = append(userIDs, cr.MergedBy)
		}
		crIDs = append(crIDs, cr.ID)
	}
	users, err := s.people.Users(ctx, userIDs)
	if err != nil {
		return nil, err
	}
	comments, err := s.store.OpenComments(ctx, crIDs)
	if err != nil {
		return nil, err
	}
	out := make([]View, len(crs))
	for i, cr := range crs {
		path := "/spaces/" + cr.Space + "/change-requests/" + cr.ID
		v := View{Object: "change-request", ID: cr.ID, Number: cr.Number, Status: cr.Status, Subject: cr.Subject,
			CreatedBy: users[cr.CreatedBy], CreatedAt: cr.CreatedAt, UpdatedAt: cr.UpdatedAt, MergedAt: cr.MergedAt,
			Space: cr.Space, Revision: cr.Revision, RevisionInitial: cr.RevisionInitial,
			RevisionMergedAncestor: cr.RevisionMergedAncestor, RevisionMerged: cr.RevisionMerged,
			Comments: comments[cr.ID],
			Outdated: cr.Status != StatusMerged && g.Revision != "" && g.Revision != cr.RevisionMergedAncestor,
			URLs:     URLs{App: s.urls.InApp("/s/" + cr.Space + "/~/changes/" + cr.ID), Location: s.urls.Location(path)}}
		if cr.MergedBy != "" {
			u := users[cr.MergedBy]
			v.MergedBy = &u
		}
		out[i] = v
	}
	return out, nil
}
