package peoplemongo_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/eventtest"
	"github.com/docspub/platform/libs/internalapi/identityapi"
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
	for _, typ := range []string{identityapi.UserCreated, identityapi.MemberCreated} {
		ev := kafkax.Event{ID: "e1", Type: typ, Organization: "o1", Subject: "u1", Data: json.RawMessage(`[1,2]`)}
		if err := s.Handle(context.Background(), ev); !kafkax.IsPermanent(err) {
			t.Errorf("Handle(%s with bad data) = %v, want a permanent error", typ, err)
		}
	}
	if known, err := s.Knows(context.Background(), "u1"); known || err != nil {
		t.Errorf("Knows(u1) before its event = %v, %v", known, err)
	}
	good := kafkax.NewEvent(identityapi.MemberCreated, "o1", "u1", map[string]any{"role": "read", "user": map[string]string{"id": "u1"}})
	if err := s.Handle(context.Background(), good); err != nil {
		t.Errorf("Handle(good member.created) = %v", err)
	}
	if known, err := s.Knows(context.Background(), "u1"); !known || err != nil {
		t.Errorf("Knows(u1) after its event = %v, %v", known, err)
	}
}

// Every event identity declares, of every version whose golden is kept,
// applies; one of a newer version or an undeclared type is unknown: the
// consumer skips it.
func TestHandleIdentityGoldens(t *testing.T) {
	s := peoplemongo.NewStore(mongotest.Database(t), links.New("http://gw", "http://gw/app"))
	ctx := context.Background()
	for _, ev := range eventtest.Goldens(t, identityapi.Goldens()) {
		if err := s.Handle(ctx, ev); err != nil {
			t.Errorf("%s: %v", eventtest.Name(ev), err)
		}
	}
	newer := identityapi.NewUserCreated(identityapi.User{ID: "u2"})
	newer.Version = identityapi.UserVersion + 1
	for _, ev := range []kafkax.Event{newer, {ID: "e1", Type: "user.renamed"}} {
		if err := s.Handle(ctx, ev); !errors.Is(err, envelope.ErrUnknown) {
			t.Errorf("%s v%d: %v, want envelope.ErrUnknown", ev.Type, ev.SchemaVersion(), err)
		}
	}
}
