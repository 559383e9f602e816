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

func TestEventSpaces(t *testing.T) {
	evs := []kafkax.Event{
		contentapi.NewCommentCreated("org", contentapi.Comment{ID: "c1", Space: "sp1"}),
		{Type: contentapi.CommentCreated, Data: []byte(`{}`)},
	}
	if got := eventSpaces(evs); len(got) != 2 || got[0] != "sp1" || got[1] != "" {
		t.Errorf("EventSpaces = %q, want [sp1 \"\"]", got)
	}
}
