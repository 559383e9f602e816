package spacehttp

import (
	"fmt"
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
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

type accessRequest struct {
	Spaces []string `json:"spaces"`
}

type accessResponse struct {
	Spaces map[string]*space.SpaceAccess `json:"spaces"`
}

// RegisterInternal adds the routes other services call under r, the
// /internal/v1 group behind the internal token of the acting user (through
// the sites service: internaltoken.RequireUserOf):
// POST /spaces/access answers, for up to MaxAccessSpaces space ids, what
// the caller may do on each ({"spaces":{"<id>":{organization, level,
// deleted}}}), or null for a space the caller cannot view (missing, of an
// organization they are not in, or refused by the space's default levels),
// exactly as GET /v1/spaces/{id} would decide (space.Service.Access: one
// read of the spaces, one of each organization's collections). Sites asks it
// before it shows spaces to a member.
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
	CheckSpaceIDs(&p, req.Spaces)
	if err := p.Err(); err != nil {
		httpx.Error(c, err)
		return
	}
	out, err := h.svc.Access(c.Request.Context(), internaltoken.CallerOf(c), req.Spaces)
	httpx.Reply(c, http.StatusOK, accessResponse{Spaces: out}, err)
}

// CheckSpaceIDs records in p what is wrong with the field spaces of an
// internal request: required, at most MaxAccessSpaces ids of 1..MaxAccessID
// characters.
func CheckSpaceIDs(p *apierr.Problems, ids []string) {
	switch {
	case ids == nil:
		p.Add("spaces", "is required")
	case len(ids) > MaxAccessSpaces:
		p.Add("spaces", "must have at most %d items", MaxAccessSpaces)
	}
	for i, id := range ids {
		if id == "" || len(id) > MaxAccessID {
			p.Add(fmt.Sprintf("spaces[%d]", i), "must be a space id of 1..%d characters", MaxAccessID)
			break
		}
	}
}
