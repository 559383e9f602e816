// Package commenthttp serves comment threads over HTTP: a thread's comments,
// their replies and reactions, nine routes per kind of thread.
//
// Every request first passes the Gate, which lets the calling user into the
// space for the route's least action (view to read, comment to write) and
// hands back the access.Grant; a Resolver then names the thread inside the
// space. Register adds the space's own comments (SPACE/comments). Change
// request comments (CR/comments) are the same routes with another Resolver,
// one that finds the change request (by id or number) in the granted space
// and answers with its thread and its revision:
//
//	commenthttp.Routes(v1.Group("/spaces/:spaceId/change-requests/:changeRequestId/comments"), svc, gate,
//		func(c *gin.Context, g access.Grant) (access.Grant, comment.Thread, error) {
//			cr, err := changeRequests.Find(c.Request.Context(), g, c.Param("changeRequestId"))
//			if err != nil {
//				return g, comment.Thread{}, err
//			}
//			g.Revision = cr.Revision // new comments target the change request's revision
//			return g, comment.Thread{Space: g.Space, ChangeRequest: cr.ID}, nil
//		})
package commenthttp

import (
	"context"

	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/comment"
	"github.com/gin-gonic/gin"
)

// Gate lets a caller into a space for an action. It answers a 404 when the
// space does not exist or the caller may not see it, a 409 when it is
// deleted, a 403 when the caller's level does not allow the action; the
// grant's User is the caller. The space service implements it.
type Gate interface {
	Enter(ctx context.Context, c access.Caller, spaceID string, a access.Action) (access.Grant, error)
}

// Resolver names the thread a request addresses once the gate let the
// caller into the space. It may narrow the grant (a change request's
// revision); its errors answer the request.
type Resolver func(c *gin.Context, g access.Grant) (access.Grant, comment.Thread, error)

// SpaceThread resolves the space's own comments.
func SpaceThread(_ *gin.Context, g access.Grant) (access.Grant, comment.Thread, error) {
	return g, comment.Thread{Space: g.Space}, nil
}

// Register adds the routes of a space's comments to r, the /v1 group behind
// internaltoken.Require: /spaces/:spaceId/comments and below.
func Register(r gin.IRouter, svc *comment.Service, gate Gate) {
	Routes(r.Group("/spaces/:spaceId/comments"), svc, gate, SpaceThread)
}

// Routes adds the nine routes of one kind of thread to r, the group of its
// comments collection, whose path holds the :spaceId parameter.
func Routes(r gin.IRouter, svc *comment.Service, gate Gate, thread Resolver) {
	h := &handlers{svc: svc, gate: gate, thread: thread}
	r.GET("", h.list)
	r.POST("", h.post)
	r.GET("/:commentId", h.get)
	r.PUT("/:commentId", h.update)
	r.DELETE("/:commentId", h.delete)
	r.GET("/:commentId/replies", h.listReplies)
	r.POST("/:commentId/replies", h.postReply)
	r.GET("/:commentId/replies/:commentReplyId", h.getReply)
	r.PUT("/:commentId/replies/:commentReplyId", h.updateReply)
}
