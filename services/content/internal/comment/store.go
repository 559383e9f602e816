package comment

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
)

// Store is what the domain needs from storage. Every write records its
// event on the written document in the same update (the outbox); reads skip
// removed documents. A missing comment or reply is an apierr not-found
// error.
type Store interface {
	InsertComment(ctx context.Context, c Comment, ev envelope.Event) error
	// Comment reads a comment of a thread.
	Comment(ctx context.Context, t Thread, id string) (Comment, error)
	// Comments reads a page of a thread's comments sorted by PostedAt then
	// ID (descending when f.Desc) and counts all that match f.
	Comments(ctx context.Context, t Thread, f Filter, p Page) ([]Comment, int, error)
	// UpdateComment reads a comment of a thread, applies change to it and
	// stores its changeable fields (body, editedAt, status, resolution,
	// reactions) with the change's events, all or nothing. Another write of
	// the comment meanwhile is retried once, then an apierr.ErrChanged
	// conflict. It returns the comment as stored.
	UpdateComment(ctx context.Context, t Thread, id string, change func(*Comment) ([]envelope.Event, error)) (Comment, error)
	// RemoveComment removes a comment (recording ev) and its replies.
	RemoveComment(ctx context.Context, c Comment, ev envelope.Event) error

	InsertReply(ctx context.Context, r Reply, ev envelope.Event) error
	// Reply reads a reply of a comment.
	Reply(ctx context.Context, commentID, id string) (Reply, error)
	// Replies reads a page of a comment's replies, oldest first (PostedAt
	// then ID), and counts all of them.
	Replies(ctx context.Context, commentID string, p Page) ([]Reply, int, error)
	// UpdateReply is UpdateComment for a reply of a comment (body,
	// editedAt, reactions).
	UpdateReply(ctx context.Context, t Thread, commentID, id string, change func(*Reply) ([]envelope.Event, error)) (Reply, error)
	// ReplyStats sums up the live replies of each comment; a comment without
	// replies may be missing from the map.
	ReplyStats(ctx context.Context, commentIDs []string) (map[string]ReplyStats, error)
}
