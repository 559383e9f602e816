package peoplemongo_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/docspub/platform/libs/kafkax"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/services/content/internal/links"
	"github.com/docspub/platform/services/content/internal/peoplemongo"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

// An identity event content can never decode is a permanent failure: the
// consumer dead-letters it instead of holding its partition for ever.
func TestUndecodableEventIsPermanent(t *testing.T) {
	s := peoplemongo.NewStore(mongotest.Database(t), links.New("http://gw", "http://gw/app"))
	for _, typ := range []string{"user.updated", "member.created"} {
		ev := kafkax.Event{ID: "e1", Type: typ, Organization: "o1", Subject: "u1", Data: json.RawMessage(`[1,2]`)}
		if err := s.Handle(context.Background(), ev); !kafkax.IsPermanent(err) {
			t.Errorf("Handle(%s with bad data) = %v, want a permanent error", typ, err)
		}
	}
	good := kafkax.NewEvent("member.created", "o1", "u1", map[string]any{"role": "read", "user": map[string]string{"id": "u1"}})
	if err := s.Handle(context.Background(), good); err != nil {
		t.Errorf("Handle(good member.created) = %v", err)
	}
}
