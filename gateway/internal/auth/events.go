package auth

import (
	"context"
	"errors"
	"fmt"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/kafkax"
)

// errBadEvent marks an event whose data cannot be used: retrying cannot help.
var errBadEvent = errors.New("bad identity event")

// OnEvent is the identity.events consumer's handler: a Redis failure is
// retried, an unusable event refused for good (kafkax.Permanent: logged
// and counted as a dead letter), so that it does not hold up the events
// after it; an event identity does not declare, or of a newer version
// than the gateway reads, is ignored (envelope.ErrUnknown: logged and
// counted by the consumer).
func (g *Tokens) OnEvent(ctx context.Context, ev kafkax.Event) error {
	err := g.HandleEvent(ctx, ev)
	if errors.Is(err, errBadEvent) {
		return kafkax.Permanent(err)
	}
	return err
}

// HandleEvent keeps the token cache true to identity's events (topic
// identity.events): token.revoked drops the revoked token, and
// member.created, member.updated and member.deleted drop every cached token
// of the member's user, whose roles changed. identity's other types are
// ignored; a type identity does not declare, or a newer version than the
// gateway reads, is an error wrapping envelope.ErrUnknown.
//
// The hash of a token.revoked event must be TokenHash of the raw token.
func (g *Tokens) HandleEvent(ctx context.Context, ev kafkax.Event) error {
	if err := identityapi.Events.Check(ev); err != nil {
		return err
	}
	switch ev.Type {
	case identityapi.TokenRevoked:
		t, err := identityapi.TokenSchema.Decode(ev)
		if err != nil {
			return bad(err)
		}
		switch {
		case t.Hash != "":
			return g.Forget(ctx, t.Hash)
		case t.User != "":
			return g.ForgetUser(ctx, t.User)
		}
		return fmt.Errorf("%w: %s data has neither hash nor user", errBadEvent, ev.Type)
	case identityapi.MemberCreated, identityapi.MemberUpdated, identityapi.MemberDeleted:
		m, err := identityapi.MemberSchema.Decode(ev)
		if err != nil {
			return bad(err)
		}
		if m.User.ID == "" {
			return fmt.Errorf("%w: %s data has no user.id", errBadEvent, ev.Type)
		}
		return g.ForgetUser(ctx, m.User.ID)
	}
	return nil
}

// bad is a decoding error: an unknown version as it is (ignored), else errBadEvent.
func bad(err error) error {
	if errors.Is(err, envelope.ErrUnknown) {
		return err
	}
	return fmt.Errorf("%w: %v", errBadEvent, err)
}
