package comment

import "github.com/docspub/platform/libs/internalapi/contentapi"

// EventData is what the comment events carry (contentapi.Comment): ids,
// place, status and counts, never the body nor who reacted.
type EventData = contentapi.Comment

// ReplyEventData is what the reply events carry (contentapi.CommentReply).
type ReplyEventData = contentapi.CommentReply

// ReactionCount is how many users reacted with one emoji; a comment holds at
// most limits.ReactionKinds of them.
type ReactionCount = contentapi.ReactionCount

func counts(rs []ReactionView) []ReactionCount {
	out := make([]ReactionCount, len(rs))
	for i, r := range rs {
		out[i] = ReactionCount{Emoji: r.Emoji, Count: r.Count}
	}
	return out
}

// eventData is the event data of comment c rendered as v.
func eventData(c Comment, v View) EventData {
	return EventData{
		Object: "comment", ID: c.ID, Space: c.Thread.Space, ChangeRequest: c.Thread.ChangeRequest, Revision: c.Revision,
		Page: c.Page, Node: c.Node, PostedBy: c.PostedBy, PostedAt: c.PostedAt, EditedAt: v.EditedAt, Status: string(c.Status),
		ResolvedAt: v.ResolvedAt, ResolvedBy: c.ResolvedBy, Replies: v.Replies, Reactions: counts(v.Reactions), URLs: v.URLs,
	}
}

// replyEventData is the event data of reply r rendered as v.
func replyEventData(r Reply, v ReplyView) ReplyEventData {
	return ReplyEventData{
		Object: "comment-reply", ID: r.ID, Comment: r.Comment, Space: r.Thread.Space, ChangeRequest: r.Thread.ChangeRequest,
		PostedBy: r.PostedBy, PostedAt: r.PostedAt, EditedAt: v.EditedAt, Reactions: counts(v.Reactions), URLs: v.URLs,
	}
}
