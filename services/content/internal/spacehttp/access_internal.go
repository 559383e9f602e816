package spacehttp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/roles"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/gin-gonic/gin"
)

// Limits of an access question.
const (
	// MaxAccessSpaces is the most spaces one access question names (400
	// naming spaces beyond it).
	MaxAccessSpaces = 1000
	// MaxAccessID is the longest space id it accepts (400 naming spaces[i]).
	MaxAccessID = 64
	// maxAccessBody bounds the body: every id at its longest, quoted and
	// separated, and the object around them (413 beyond it).
	maxAccessBody = MaxAccessSpaces*(MaxAccessID+3) + 64
)

// SpaceAccess is what the calling user may do on one space, as content's
// permission table (internal/access) decides it: the space's organization,
// the caller's level on it and whether it is deleted.
type SpaceAccess struct {
	Organization string     `json:"organization"`
	Level        roles.Role `json:"level"`
	Deleted      bool       `json:"deleted"`
}

type accessRequest struct {
	Spaces []string `json:"spaces"`
}

type accessResponse struct {
	Spaces map[string]*SpaceAccess `json:"spaces"`
}

// RegisterInternal adds the routes other services call under r, the
// /internal/v1 group behind the internal token of the acting user:
// POST /spaces/access answers, for up to MaxAccessSpaces space ids, what
// the caller may do on each ({"spaces":{"<id>":{organization, level,
// deleted}}}), or null for a space the caller cannot view (missing, of an
// organization they are not in, or refused by the space's default levels),
// exactly as GET /v1/spaces/{id} would decide. Sites asks it before it
// shows spaces to a member.
func RegisterInternal(r gin.IRouter, svc *space.Service) {
	h := &Handlers{svc: svc}
	r.POST("/spaces/access", h.spacesAccess)
}

func (h *Handlers) spacesAccess(c *gin.Context) {
	c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, maxAccessBody)
	var req accessRequest
	if !httpx.Bind(c, &req) {
		return
	}
	var p apierr.Problems
	switch {
	case req.Spaces == nil:
		p.Add("spaces", "is required")
	case len(req.Spaces) > MaxAccessSpaces:
		p.Add("spaces", "must have at most %d items", MaxAccessSpaces)
	}
	for i, id := range req.Spaces {
		if id == "" || len(id) > MaxAccessID {
			p.Add(fmt.Sprintf("spaces[%d]", i), "must be a space id of 1..%d characters", MaxAccessID)
			break
		}
	}
	if err := p.Err(); err != nil {
		httpx.Error(c, err)
		return
	}
	out, err := spacesAccess(c.Request.Context(), h.svc, Caller(c), req.Spaces)
	httpx.Reply(c, http.StatusOK, accessResponse{Spaces: out}, err)
}

// spacesAccess asks the space service, space by space, what the caller may
// do: Enter decides a live space with the rules of every content route; a
// deleted one is read as GET shows it.
func spacesAccess(ctx context.Context, svc *space.Service, c access.Caller, ids []string) (map[string]*SpaceAccess, error) {
	out := make(map[string]*SpaceAccess, len(ids))
	for _, id := range ids {
		if _, done := out[id]; done {
			continue
		}
		g, err := svc.Enter(ctx, c, id, access.View)
		switch {
		case err == nil:
			out[id] = &SpaceAccess{Organization: g.Organization, Level: g.Level}
			continue
		case errors.Is(err, space.ErrSpaceDeleted):
		case errors.Is(err, apierr.ErrNotFound):
			out[id] = nil
			continue
		default:
			return nil, fmt.Errorf("access to space %s: %w", id, err)
		}
		v, err := svc.GetSpace(ctx, c, id)
		if errors.Is(err, apierr.ErrNotFound) {
			out[id] = nil // purged meanwhile
			continue
		}
		if err != nil || v.Permissions == nil {
			return nil, fmt.Errorf("access to deleted space %s: %w", id, err)
		}
		out[id] = &SpaceAccess{Organization: v.Organization, Level: levelOf(*v.Permissions, v.EditMode == space.EditLocked), Deleted: true}
	}
	return out, nil
}

// levelOf is the lowest level whose permissions object (access.ForSpace)
// is p: review and create show alike, so a level read back this way never
// exceeds the real one.
func levelOf(p access.SpacePermissions, locked bool) roles.Role {
	for i := len(roles.All) - 1; i >= 0; i-- {
		if access.ForSpace(roles.All[i], locked) == p {
			return roles.All[i]
		}
	}
	return roles.Read
}
