package gateway

import (
	"context"

	"github.com/docspub/platform/gateway/internal/purge"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/kafkax"
)

// IdentityTopic is where identity publishes the events that drop cached
// token resolutions.
const IdentityTopic = identityapi.Topic

// ConsumerGroup is the gateway's consumer group of IdentityTopic. Every
// replica of a deployment joins it: they share the Redis cache, so one of
// them dropping an entry drops it for all.
const ConsumerGroup = "gateway"

// PurgeTopics are the topics whose events purge every replica's page cache
// (internal/purge).
var PurgeTopics = purge.Topics

// HandleIdentityEvent keeps the token cache true to identity's events (topic
// identity.events): token.revoked drops the revoked token, and
// member.created, member.updated and member.deleted drop every cached token
// of the member's user, whose roles changed. identity's other types are
// ignored; a type identity does not declare, or a newer version than the
// gateway reads, is an error wrapping envelope.ErrUnknown.
//
// The hash of a token.revoked event must be TokenHash of the raw token.
func (g *Gateway) HandleIdentityEvent(ctx context.Context, ev kafkax.Event) error {
	return g.tokens.HandleEvent(ctx, ev)
}
