// Package comment is content's domain of discussion threads: comments on a
// space or on a change request, their replies and emoji reactions, who may
// post, edit, resolve and delete them (through package access) and the
// events their changes publish.
//
// A Thread names where comments live: a space's own comments (ChangeRequest
// empty) or a change request's. Every operation takes the access.Grant the
// caller obtained for the space (from the space service, which checked that
// the space exists and is not deleted) and the Thread inside that space, so
// the same Service serves both kinds of thread.
//
// The package knows neither gin nor the MongoDB driver: it talks to storage
// through Store and to identity's users through people.Directory.
package comment

import (
	"encoding/json"
	"time"
)

// Thread is where comments live: a space's own comments, or a change
// request's when ChangeRequest is set.
type Thread struct {
	Space         string
	ChangeRequest string // "" for the space's own comments
}

// path is the API path of the thread's comments, below /v1.
func (t Thread) path() string {
	if t.ChangeRequest != "" {
		return "/spaces/" + t.Space + "/change-requests/" + t.ChangeRequest + "/comments"
	}
	return "/spaces/" + t.Space + "/comments"
}

// Status is a comment's status.
type Status string

// The statuses. The space's comments counter counts open ones.
const (
	StatusOpen     Status = "open"
	StatusResolved Status = "resolved"
)

// Comment is a stored comment.
type Comment struct {
	ID       string
	Thread   Thread
	Revision string // the revision the comment was posted on
	Node     string // the content node it targets, if any
	Page     string // the page it targets, if any

	PostedBy string
	PostedAt time.Time
	Markdown string
	EditedAt time.Time // zero: never edited

	Status     Status
	ResolvedAt time.Time // set while resolved
	ResolvedBy string    // set while resolved

	Reactions []Reaction
}

// Reply is a stored reply to a comment.
type Reply struct {
	ID       string
	Comment  string
	Thread   Thread
	PostedBy string
	PostedAt time.Time
	Markdown string
	EditedAt time.Time // zero: never edited

	Reactions []Reaction
}

// Reaction is one user's reaction with one emoji.
type Reaction struct {
	Emoji     string
	User      string
	ReactedAt time.Time
}

// ReplyStats sums up the replies of one comment.
type ReplyStats struct {
	Count    int
	Repliers []Replier
}

// Replier is one user's share of a comment's replies.
type Replier struct {
	User   string
	Count  int
	LastAt time.Time // when their latest reply was posted
}

// Document is a comment body as the API takes it. Only the markdown form
// ({"markdown": "..."}) is accepted; the JSON document form is refused.
type Document struct {
	Markdown *string         `json:"markdown"`
	Document json.RawMessage `json:"document,omitempty"`
}

// PostInput is the body of a new comment.
type PostInput struct {
	Body *Document `json:"body"`
	Node *string   `json:"node"` // content node id
	Page *string   `json:"page"` // page id
}

// ReplyInput is the body of a new reply.
type ReplyInput struct {
	Body *Document `json:"body"`
}

// ReplyUpdate changes a reply: its body (by its author only) and the
// caller's reactions.
type ReplyUpdate struct {
	Body             *Document `json:"body"`
	AddedReactions   []string  `json:"addedReactions"`
	RemovedReactions []string  `json:"removedReactions"`
}

// Update changes a comment: what ReplyUpdate changes, and its resolution.
type Update struct {
	ReplyUpdate
	Resolved *bool `json:"resolved"`
}

// Filter selects comments of a thread; empty fields do not filter.
type Filter struct {
	Status     Status   // "" for all
	TargetPage string   // page id
	Authors    []string // user ids
	Desc       bool     // newest first
}

// Page asks for one keyset page: the items after (AfterPostedAt, AfterID)
// in the list's order, none of them when AfterID is empty.
type Page struct {
	AfterPostedAt time.Time
	AfterID       string
	// Limit is how many items to fetch (paging.Fetch asks for one more
	// than a page shows).
	Limit int
}

// List is one page of a list and the count of all matching items.
type List[T any] struct {
	Items []T
	Count int
}
