package contentapi_test

import (
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/eventtest"
)

var (
	t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 = t0.Add(time.Hour)
)

var (
	space = contentapi.Space{Object: "space", ID: "s1", Title: "Docs <&>", Emoji: "1f4da", Visibility: "private",
		CreatedAt: t0, UpdatedAt: t1, EditMode: "live", Organization: "o1", Parent: "c1", Revision: "r2",
		DefaultLevel: "inherit", Comments: 2, ChangeRequests: 3, ChangeRequestsOpen: 1, ChangeRequestsDraft: 1,
		MergeRules: contentapi.MergeRules{Type: "inherit"},
		GitSync: &contentapi.GitSync{RepoName: "acme/docs", InstallationID: "i1", InstallationProvider: "github",
			InstallationStatus: "active", URL: "https://github.com/acme/docs", UpdatedAt: t0},
		URLs: contentapi.SpaceURLs{Location: "https://api.example.com/v1/spaces/s1", App: "https://app.example.com/s/s1"}}
	deleted    = func() contentapi.Space { s := space; s.DeletedAt = &t1; s.GitSync = nil; return s }()
	collection = contentapi.Collection{Object: "collection", ID: "c1", Title: "Guides", Description: "All guides",
		Organization: "o1", DefaultLevel: "",
		URLs: contentapi.SpaceURLs{Location: "https://api.example.com/v1/collections/c1", App: "https://app.example.com/collections/c1"}}
	comment = contentapi.Comment{Object: "comment", ID: "m1", Space: "s1", ChangeRequest: "cr1", Revision: "r2",
		Page: "p1", Node: "n1", PostedBy: "u1", PostedAt: t0, EditedAt: &t1, Status: "resolved", ResolvedAt: &t1,
		ResolvedBy: "u2", Replies: 1, Reactions: []contentapi.ReactionCount{{Emoji: "1f44d", Count: 2}},
		URLs: contentapi.LocationURLs{Location: "https://api.example.com/v1/spaces/s1/comments/m1"}}
	reply = contentapi.CommentReply{Object: "comment-reply", ID: "y1", Comment: "m1", Space: "s1", PostedBy: "u2",
		PostedAt: t1, Reactions: []contentapi.ReactionCount{},
		URLs: contentapi.LocationURLs{Location: "https://api.example.com/v1/spaces/s1/comments/m1/replies/y1"}}
	field = contentapi.CustomField{ID: "f1", Name: "team", Title: "Team", Description: "Who owns it", Type: "select",
		Placeholder: "Pick one", Options: []string{"core", "docs"}, CreatedAt: t0, UpdatedAt: t1,
		URLs:        contentapi.LocationURLs{Location: "https://api.example.com/v1/orgs/o1/custom-fields/team"},
		Permissions: contentapi.CustomFieldPermissions{View: true, Edit: true}}
	user = contentapi.User{Object: "user", ID: "u1", DisplayName: "Ada", Email: "ada@example.com",
		URLs: contentapi.LocationURLs{Location: "https://api.example.com/v1/users/u1"}}
	changeRequest = contentapi.ChangeRequest{Object: "change-request", ID: "cr1", Number: 7, Status: "merged",
		Subject: "Fix typos", CreatedBy: user, CreatedAt: t0, UpdatedAt: t1, MergedBy: &user, MergedAt: &t1,
		Space: "s1", Revision: "r3", RevisionInitial: "r1", RevisionMergedAncestor: "r2", RevisionMerged: "r4",
		Comments: 1, URLs: contentapi.ChangeRequestURLs{App: "https://app.example.com/s/s1/~/changes/7",
			Location: "https://api.example.com/v1/spaces/s1/change-requests/cr1"}}
	revision = contentapi.Revision{ID: "r4", Space: "s1", Type: "merge", Parents: []string{"r2", "r3"},
		MergedFrom: "r3", ChangeRequest: "cr1", Pages: 12, Files: 3, CreatedAt: t1}
)

// events are one event of each of content's types, built by its constructor.
func events() []envelope.Event {
	return []envelope.Event{
		contentapi.NewSpaceCreated(space), contentapi.NewSpaceUpdated(space), contentapi.NewSpaceDeleted(deleted),
		contentapi.NewSpaceRestored(space), contentapi.NewSpaceMoved(space), contentapi.NewSpaceTransferred(space),
		contentapi.NewSpacePurged(deleted),
		contentapi.NewCollectionCreated(collection), contentapi.NewCollectionUpdated(collection),
		contentapi.NewCollectionDeleted(collection), contentapi.NewCollectionMoved(collection),
		contentapi.NewCollectionTransferred(collection),
		contentapi.NewCommentCreated("o1", comment), contentapi.NewCommentUpdated("o1", comment),
		contentapi.NewCommentDeleted("o1", comment),
		contentapi.NewCommentReplyCreated("o1", reply), contentapi.NewCommentReplyUpdated("o1", reply),
		contentapi.NewCustomFieldCreated("o1", field), contentapi.NewCustomFieldUpdated("o1", field),
		contentapi.NewCustomFieldDeleted("o1", field),
		contentapi.NewCustomFieldValuesUpdated("o1", "s1", []contentapi.CustomFieldValue{
			{CustomField: field, Value: "docs"}, {CustomField: field}}),
		contentapi.NewChangeRequestCreated("o1", changeRequest), contentapi.NewChangeRequestUpdated("o1", changeRequest),
		contentapi.NewChangeRequestMerged("o1", changeRequest),
		contentapi.NewRevisionCreated("o1", revision),
	}
}

func TestGoldenEvents(t *testing.T) {
	t.Parallel()
	evs := events()
	if len(evs) != len(contentapi.Events) {
		t.Errorf("%d events built, %d types declared", len(evs), len(contentapi.Events))
	}
	eventtest.Golden(t, evs...)
	eventtest.Catalogue(t, contentapi.Events, contentapi.Goldens())
}

// decoders are the readers of content's payloads, by type prefix.
func decode(ev envelope.Event) error {
	var err error
	switch ev.Type {
	case contentapi.SpaceCreated, contentapi.SpaceUpdated, contentapi.SpaceDeleted, contentapi.SpaceRestored,
		contentapi.SpaceMoved, contentapi.SpaceTransferred, contentapi.SpacePurged:
		_, err = contentapi.DecodeSpace(ev)
	case contentapi.CollectionCreated, contentapi.CollectionUpdated, contentapi.CollectionDeleted,
		contentapi.CollectionMoved, contentapi.CollectionTransferred:
		_, err = contentapi.CollectionSchema.Decode(ev)
	case contentapi.CommentCreated, contentapi.CommentUpdated, contentapi.CommentDeleted:
		_, err = contentapi.CommentSchema.Decode(ev)
	case contentapi.CommentReplyCreated, contentapi.CommentReplyUpdated:
		_, err = contentapi.CommentReplySchema.Decode(ev)
	case contentapi.CustomFieldCreated, contentapi.CustomFieldUpdated, contentapi.CustomFieldDeleted:
		_, err = contentapi.CustomFieldSchema.Decode(ev)
	case contentapi.CustomFieldValuesUpdated:
		_, err = contentapi.CustomFieldValuesSchema.Decode(ev)
	case contentapi.ChangeRequestCreated, contentapi.ChangeRequestUpdated, contentapi.ChangeRequestMerged:
		_, err = contentapi.ChangeRequestSchema.Decode(ev)
	case contentapi.RevisionCreated:
		_, err = contentapi.RevisionSchema.Decode(ev)
	default:
		err = errors.New("no decoder")
	}
	return err
}

// Every golden, of every version kept, decodes with the payload's schema:
// what producers wrote then, consumers read now.
func TestGoldensDecode(t *testing.T) {
	t.Parallel()
	for _, ev := range eventtest.Goldens(t, contentapi.Goldens()) {
		if err := decode(ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
	space := contentapi.NewSpaceUpdated(space)
	space.Version = contentapi.SpaceVersion + 1
	if _, err := contentapi.DecodeSpace(space); !errors.Is(err, envelope.ErrUnknown) {
		t.Errorf("a newer version: %v, want envelope.ErrUnknown", err)
	}
}

// TestEventSpace: the space of each comment, reply, change request and
// revision event is its payload's; another type, an unreadable payload and
// a newer version are errors, as envelope.Schema.Decode's.
func TestEventSpace(t *testing.T) {
	t.Parallel()
	newer := contentapi.NewCommentUpdated("o1", comment)
	newer.Version = contentapi.CommentVersion + 1
	for _, tc := range []struct {
		name    string
		ev      envelope.Event
		want    string
		wantErr error
	}{
		{"comment created", contentapi.NewCommentCreated("o1", contentapi.Comment{ID: "m1", Space: "sp1"}), "sp1", nil},
		{"comment deleted", contentapi.NewCommentDeleted("o1", comment), "s1", nil},
		{"reply updated", contentapi.NewCommentReplyUpdated("o1", contentapi.CommentReply{ID: "y1", Space: "sp2"}), "sp2", nil},
		{"change request merged", contentapi.NewChangeRequestMerged("o1", contentapi.ChangeRequest{ID: "cr1", Space: "sp3"}), "sp3", nil},
		{"revision created", contentapi.NewRevisionCreated("o1", contentapi.Revision{ID: "r1", Space: "sp4"}), "sp4", nil},
		{"a comment without a space", envelope.Event{Type: contentapi.CommentCreated, Data: []byte(`{}`)}, "", nil},
		{"a space event", contentapi.NewSpaceUpdated(space), "", envelope.ErrUnknown},
		{"an unreadable payload", envelope.Event{Type: contentapi.ChangeRequestCreated, Data: []byte(`{"space":1}`)}, "", envelope.ErrBadData},
		{"a payload read in part", envelope.Event{Type: contentapi.CommentCreated, Data: []byte(`{"space":"sp1","replies":"x"}`)}, "", envelope.ErrBadData},
		{"a newer version", newer, "", envelope.ErrUnknown},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := contentapi.EventSpace(tc.ev)
			if got != tc.want || !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Errorf("EventSpace = %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
