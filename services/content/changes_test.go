package content

import (
	"testing"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/kafkax"
)

// TestChangedSpace: another replica's space event drops that space's
// cached read alone, its other events none, an event of a type content
// does not declare every space's.
func TestChangedSpace(t *testing.T) {
	for _, tc := range []struct {
		typ, subject string
		id           string
		ok           bool
	}{
		{contentapi.SpaceUpdated, "sp1", "sp1", true},
		{contentapi.SpaceTransferred, "sp2", "sp2", true},
		{contentapi.SpacePurged, "sp3", "sp3", true},
		{contentapi.CommentCreated, "c1", "", false},
		{contentapi.CollectionMoved, "col1", "", false},
		{contentapi.RevisionCreated, "r1", "", false},
		{"thing.invented", "x", "", true},
	} {
		id, ok := changedSpace(kafkax.NewEvent(tc.typ, "org1", tc.subject, nil))
		if id != tc.id || ok != tc.ok {
			t.Errorf("%s of %s: %q %v, want %q %v", tc.typ, tc.subject, id, ok, tc.id, tc.ok)
		}
	}
}

// TestChangedTree: another replica's space or collection event drops
// what the lists of its organization keep; a transfer's, or an event of
// a type content does not declare, every organization's; its other
// events none.
func TestChangedTree(t *testing.T) {
	for _, tc := range []struct {
		typ string
		org string
		ok  bool
	}{
		{contentapi.SpaceCreated, "org1", true},
		{contentapi.SpaceMoved, "org1", true},
		{contentapi.CollectionUpdated, "org1", true},
		{contentapi.SpaceTransferred, "", true},
		{contentapi.CommentCreated, "", false},
		{contentapi.RevisionCreated, "", false},
		{"thing.invented", "", true},
	} {
		org, ok := changedTree(kafkax.NewEvent(tc.typ, "org1", "x", nil))
		if org != tc.org || ok != tc.ok {
			t.Errorf("%s: %q %v, want %q %v", tc.typ, org, ok, tc.org, tc.ok)
		}
	}
}

func TestEventSpaces(t *testing.T) {
	evs := []kafkax.Event{
		contentapi.NewCommentCreated("org", contentapi.Comment{ID: "c1", Space: "sp1"}),
		{Type: contentapi.CommentCreated, Data: []byte(`{}`)},
	}
	if got := eventSpaces(evs); len(got) != 2 || got[0] != "sp1" || got[1] != "" {
		t.Errorf("EventSpaces = %q, want [sp1 \"\"]", got)
	}
}
