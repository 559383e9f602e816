package comment

import (
	"context"

	"github.com/docspub/platform/libs/envelope"
	"github.com/docspub/platform/libs/ids"
	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/services/content/internal/access"
)

// ListReplies lists a comment's replies, oldest first (access.View).
func (s *Service) ListReplies(ctx context.Context, g access.Grant, t Thread, commentID string, p Page) (List[ReplyView], error) {
	if err := enter(g, t, access.View); err != nil {
		return List[ReplyView]{}, err
	}
	if _, err := s.store.Comment(ctx, t, commentID); err != nil {
		return List[ReplyView]{}, err
	}
	rs, count, err := s.store.Replies(ctx, commentID, p)
	if err != nil {
		return List[ReplyView]{}, err
	}
	vs, err := s.replyViews(ctx, g, rs)
	return List[ReplyView]{Items: vs, Count: count}, err
}

// GetReply returns a reply (access.View).
func (s *Service) GetReply(ctx context.Context, g access.Grant, t Thread, commentID, id string) (ReplyView, error) {
	if err := enter(g, t, access.View); err != nil {
		return ReplyView{}, err
	}
	r, err := s.reply(ctx, t, commentID, id)
	if err != nil {
		return ReplyView{}, err
	}
	return s.replyView(ctx, g, r)
}

// reply reads a reply of a live comment of the thread.
func (s *Service) reply(ctx context.Context, t Thread, commentID, id string) (Reply, error) {
	if _, err := s.store.Comment(ctx, t, commentID); err != nil {
		return Reply{}, err
	}
	return s.store.Reply(ctx, commentID, id)
}

// PostReply replies to a comment (access.Comment).
func (s *Service) PostReply(ctx context.Context, g access.Grant, t Thread, commentID string, in ReplyInput) (ReplyView, error) {
	if err := enter(g, t, access.Comment); err != nil {
		return ReplyView{}, err
	}
	md, err := in.validate()
	if err != nil {
		return ReplyView{}, err
	}
	c, err := s.store.Comment(ctx, t, commentID)
	if err != nil {
		return ReplyView{}, err
	}
	r := Reply{ID: ids.New(), Comment: c.ID, Thread: t, PostedBy: g.User, PostedAt: s.now(), Markdown: md}
	v, err := s.replyView(ctx, g, r)
	if err != nil {
		return ReplyView{}, err
	}
	if err := s.store.InsertReply(ctx, r, contentapi.NewCommentReplyCreated(g.Organization, replyEventData(r, v))); err != nil {
		return ReplyView{}, err
	}
	return v, nil
}

// UpdateReply changes a reply (access.Comment): its body (author only) and
// the caller's reactions. A request that changes nothing writes nothing.
func (s *Service) UpdateReply(ctx context.Context, g access.Grant, t Thread, commentID, id string, in ReplyUpdate) (ReplyView, error) {
	if err := enter(g, t, access.Comment); err != nil {
		return ReplyView{}, err
	}
	if err := in.validate(); err != nil {
		return ReplyView{}, err
	}
	var v ReplyView
	_, err := s.store.UpdateReply(ctx, t, commentID, id, func(r *Reply) ([]envelope.Event, error) {
		at := s.now()
		next, changed, err := edit(r.PostedBy, r.Markdown, r.Reactions, in, g.User, at)
		if err != nil {
			return nil, err
		}
		nr := *r
		if next.markdown != nr.Markdown {
			nr.Markdown, nr.EditedAt = next.markdown, at
		}
		nr.Reactions = next.reactions
		v, err = s.replyView(ctx, g, nr)
		if err != nil || !changed {
			return nil, err
		}
		*r = nr
		return []envelope.Event{contentapi.NewCommentReplyUpdated(g.Organization, replyEventData(nr, v))}, nil
	})
	if err != nil {
		return ReplyView{}, err
	}
	return v, nil
}
