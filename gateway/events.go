package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/docspub/platform/libs/kafkax"
)

// IdentityTopic is where identity publishes the events that drop cached
// token resolutions.
const IdentityTopic = "identity.events"

// ConsumerGroup is the gateway's consumer group of IdentityTopic. Every
// replica of a deployment joins it: they share the Redis cache, so one of
// them dropping an entry drops it for all.
const ConsumerGroup = "gateway"

// errBadEvent marks an event whose data cannot be used: retrying cannot help.
var errBadEvent = errors.New("bad identity event")

// onIdentityEvent is the consumer's handler: a Redis failure is retried, an
// unusable event refused for good (kafkax.Permanent: logged and counted as a
// dead letter), so that it does not hold up the events after it.
func (g *Gateway) onIdentityEvent(ctx context.Context, ev kafkax.Event) error {
	err := g.HandleIdentityEvent(ctx, ev.Type, ev.Data)
	if errors.Is(err, errBadEvent) {
		return kafkax.Permanent(err)
	}
	return err
}

// HandleIdentityEvent keeps the token cache true to identity's events (topic
// identity.events): "token.revoked" drops the revoked token, and
// "member.created", "member.updated" and "member.deleted" drop every cached
// token of the member's user, whose roles changed. Other types are ignored.
//
// The hash of a token.revoked event must be TokenHash of the raw token.
func (g *Gateway) HandleIdentityEvent(ctx context.Context, typ string, data json.RawMessage) error {
	switch typ {
	case "token.revoked":
		var t struct {
			ID   string `json:"id"`
			User string `json:"user"`
			Hash string `json:"hash"`
		}
		if err := json.Unmarshal(data, &t); err != nil {
			return fmt.Errorf("%w: decode %s data: %v", errBadEvent, typ, err)
		}
		switch {
		case t.Hash != "":
			return g.Forget(ctx, t.Hash)
		case t.User != "":
			return g.ForgetUser(ctx, t.User)
		}
		return fmt.Errorf("%w: token.revoked data has neither hash nor user", errBadEvent)
	case "member.created", "member.updated", "member.deleted":
		var m struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%w: decode %s data: %v", errBadEvent, typ, err)
		}
		if m.User.ID == "" {
			return fmt.Errorf("%w: %s data has no user.id", errBadEvent, typ)
		}
		return g.ForgetUser(ctx, m.User.ID)
	}
	return nil
}
