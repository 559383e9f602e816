package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

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
			return fmt.Errorf("decode %s data: %w", typ, err)
		}
		switch {
		case t.Hash != "":
			return g.Forget(ctx, t.Hash)
		case t.User != "":
			return g.ForgetUser(ctx, t.User)
		}
		return errors.New("token.revoked data has neither hash nor user")
	case "member.created", "member.updated", "member.deleted":
		var m struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("decode %s data: %w", typ, err)
		}
		if m.User.ID == "" {
			return fmt.Errorf("%s data has no user.id", typ)
		}
		return g.ForgetUser(ctx, m.User.ID)
	}
	return nil
}
