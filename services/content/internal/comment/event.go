package comment

import "time"

// EventData is what the comment events carry: the comment's ids, place,
// status and counts. It never lists the users who reacted, nor the body, so
// that an event stays small whatever the comment holds; consumers read the
// rest through the API.
type EventData struct {
	Object        string          `json:"object"` // "comment"
	ID            string          `json:"id"`
	Space         string          `json:"space"`
	ChangeRequest string          `json:"changeRequest,omitempty"`
	Revision      string          `json:"revision"`
	Page          string          `json:"page,omitempty"`
	Node          string          `json:"node,omitempty"`
	PostedBy      string          `json:"postedBy"` // user id
	PostedAt      time.Time       `json:"postedAt"`
	EditedAt      *time.Time      `json:"editedAt,omitempty"`
	Status        Status          `json:"status"`
	ResolvedAt    *time.Time      `json:"resolvedAt,omitempty"`
	ResolvedBy    string          `json:"resolvedBy,omitempty"` // user id
	Replies       int             `json:"replies"`
	Reactions     []ReactionCount `json:"reactions"`
	URLs          URLs            `json:"urls"`
}

// ReplyEventData is what the reply events carry (see EventData).
type ReplyEventData struct {
	Object        string          `json:"object"` // "comment-reply"
	ID            string          `json:"id"`
	Comment       string          `json:"comment"`
	Space         string          `json:"space"`
	ChangeRequest string          `json:"changeRequest,omitempty"`
	PostedBy      string          `json:"postedBy"` // user id
	PostedAt      time.Time       `json:"postedAt"`
	EditedAt      *time.Time      `json:"editedAt,omitempty"`
	Reactions     []ReactionCount `json:"reactions"`
	URLs          URLs            `json:"urls"`
}

// ReactionCount is how many users reacted with one emoji; a comment holds at
// most limits.ReactionKinds of them.
type ReactionCount struct {
	Emoji string `json:"emoji"`
	Count int    `json:"count"`
}

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
		Page: c.Page, Node: c.Node, PostedBy: c.PostedBy, PostedAt: c.PostedAt, EditedAt: v.EditedAt, Status: c.Status,
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
