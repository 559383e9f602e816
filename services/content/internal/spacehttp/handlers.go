package spacehttp

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/nullable"
	"github.com/docspub/platform/libs/paging"
	"github.com/docspub/platform/services/content/internal/access"
	"github.com/docspub/platform/services/content/internal/space"
	"github.com/gin-gonic/gin"
)

func orgID(c *gin.Context) string        { return c.Param("organizationId") }
func spaceID(c *gin.Context) string      { return c.Param("spaceId") }
func collectionID(c *gin.Context) string { return c.Param("collectionId") }

type createSpaceRequest struct {
	Title    *string `json:"title"`
	Emoji    *string `json:"emoji"`
	Parent   string  `json:"parent"`
	EditMode string  `json:"editMode"`
}

func (h *Handlers) createSpace(c *gin.Context) {
	var req createSpaceRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	v, err := h.svc.CreateSpace(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), space.CreateSpaceInput(req))
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *Handlers) listSpaces(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListSpaces(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *Handlers) getSpace(c *gin.Context) {
	v, err := h.svc.GetSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

type updateSpaceRequest struct {
	Title        *string                `json:"title"`
	Emoji        *string                `json:"emoji"`
	EditMode     *string                `json:"editMode"`
	Visibility   *string                `json:"visibility"`
	DefaultLevel nullable.Field[string] `json:"defaultLevel"`
	// settings is the whole body: the space's settings it names
	// (space.Settings) are read from it.
	settings []byte
}

// UnmarshalJSON reads the fields and keeps the body for the settings.
func (r *updateSpaceRequest) UnmarshalJSON(b []byte) error {
	type fields updateSpaceRequest
	if err := json.Unmarshal(b, (*fields)(r)); err != nil {
		return err
	}
	r.settings = bytes.Clone(b)
	return nil
}

// defaultLevel reads an optional defaultLevel field: inherit, a role or null.
func defaultLevel(f nullable.Field[string]) (nullable.Field[access.DefaultLevel], error) {
	out := nullable.Field[access.DefaultLevel]{Set: f.Set, Null: f.Null}
	if f.Set && !f.Null {
		d, err := access.ParseDefaultLevel(f.Value)
		if err != nil {
			return out, apierr.Invalid("defaultLevel", "%s", err.Error())
		}
		out.Value = d
	}
	return out, nil
}

func (h *Handlers) updateSpace(c *gin.Context) {
	var req updateSpaceRequest
	if !httpx.Bind(c, &req) {
		return
	}
	dl, err := defaultLevel(req.DefaultLevel)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.UpdateSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c), space.UpdateSpaceInput{
		Title: req.Title, Emoji: req.Emoji, EditMode: req.EditMode, Visibility: req.Visibility, DefaultLevel: dl,
		Settings: req.settings})
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) deleteSpace(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent, h.svc.DeleteSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c)))
}

func (h *Handlers) restoreSpace(c *gin.Context) {
	v, err := h.svc.RestoreSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) duplicateSpace(c *gin.Context) {
	v, err := h.svc.DuplicateSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c))
	httpx.Created(c, v.URLs.Location, v, err)
}

// pointer is a position's sibling: {type: "space", space} or {type: "collection", collection}.
type pointer struct {
	Type       string `json:"type"`
	Space      string `json:"space"`
	Collection string `json:"collection"`
}

type positionRequest struct {
	Before *pointer `json:"before"`
	After  *pointer `json:"after"`
}

type moveRequest struct {
	Parent   nullable.Field[string] `json:"parent"`
	Position *positionRequest       `json:"position"`
}

func (p *pointer) ref(field string) (*space.Ref, error) {
	if p == nil {
		return nil, nil
	}
	switch p.Type {
	case space.KindSpace:
		if p.Space == "" {
			return nil, apierr.Invalid(field+".space", "is required")
		}
		return &space.Ref{Kind: space.KindSpace, ID: p.Space}, nil
	case space.KindCollection:
		if p.Collection == "" {
			return nil, apierr.Invalid(field+".collection", "is required")
		}
		return &space.Ref{Kind: space.KindCollection, ID: p.Collection}, nil
	}
	return nil, apierr.Invalid(field+".type", "must be space or collection")
}

// moveInput reads a move body: at least one of parent and position.
func moveInput(c *gin.Context) (space.MoveInput, bool) {
	var req moveRequest
	if !httpx.Bind(c, &req) {
		return space.MoveInput{}, false
	}
	in := space.MoveInput{Parent: req.Parent}
	if in.Parent.Null {
		in.Parent.Value = ""
	}
	if !req.Parent.Set && req.Position == nil {
		httpx.Error(c, apierr.Invalid("parent", "or position is required"))
		return in, false
	}
	if req.Position != nil {
		before, err := req.Position.Before.ref("position.before")
		if err == nil {
			var after *space.Ref
			after, err = req.Position.After.ref("position.after")
			in.Position = &space.Position{Before: before, After: after}
		}
		if err == nil && in.Position.Before == nil && in.Position.After == nil {
			err = apierr.Invalid("position", "needs before or after")
		}
		if err != nil {
			httpx.Error(c, err)
			return in, false
		}
	}
	return in, true
}

func (h *Handlers) moveSpace(c *gin.Context) {
	in, ok := moveInput(c)
	if !ok {
		return
	}
	v, err := h.svc.MoveSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

type transferSpaceRequest struct {
	Organization string                 `json:"organization"`
	Collection   nullable.Field[string] `json:"collection"`
}

func (h *Handlers) transferSpace(c *gin.Context) {
	var req transferSpaceRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.TransferSpace(c.Request.Context(), internaltoken.CallerOf(c), spaceID(c), space.TransferInput(req))
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) memberSpaces(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByID)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	order, err := httpx.QueryEnum(c, "order", "desc", "asc", "desc")
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.MemberSpaces(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), c.Param("userId"), order == "desc", pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

type createCollectionRequest struct {
	Title  *string `json:"title"`
	Parent string  `json:"parent"`
}

func (h *Handlers) createCollection(c *gin.Context) {
	var req createCollectionRequest
	if !httpx.BindOptional(c, &req) {
		return
	}
	v, err := h.svc.CreateCollection(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), space.CreateCollectionInput(req))
	httpx.Created(c, v.URLs.Location, v, err)
}

func (h *Handlers) listCollections(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	nested, err := httpx.QueryBool(c, "nested", true)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.ListCollections(c.Request.Context(), internaltoken.CallerOf(c), orgID(c), nested, pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *Handlers) getCollection(c *gin.Context) {
	v, err := h.svc.GetCollection(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c))
	httpx.Reply(c, http.StatusOK, v, err)
}

type updateCollectionRequest struct {
	Title        *string                `json:"title"`
	Description  *string                `json:"description"`
	DefaultLevel nullable.Field[string] `json:"defaultLevel"`
}

func (h *Handlers) updateCollection(c *gin.Context) {
	var req updateCollectionRequest
	if !httpx.Bind(c, &req) {
		return
	}
	dl, err := defaultLevel(req.DefaultLevel)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	v, err := h.svc.UpdateCollection(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c), space.UpdateCollectionInput{
		Title: req.Title, Description: req.Description, DefaultLevel: dl})
	httpx.Reply(c, http.StatusOK, v, err)
}

func (h *Handlers) deleteCollection(c *gin.Context) {
	httpx.Empty(c, http.StatusResetContent, h.svc.DeleteCollection(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c)))
}

func (h *Handlers) collectionSpaces(c *gin.Context) {
	pg, err := paging.ReadKeyset(c, paging.ByPosition)
	if err != nil {
		httpx.Error(c, err)
		return
	}
	l, err := h.svc.CollectionSpaces(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c), pg)
	httpx.Reply(c, http.StatusOK, l, err)
}

func (h *Handlers) moveCollection(c *gin.Context) {
	in, ok := moveInput(c)
	if !ok {
		return
	}
	v, err := h.svc.MoveCollection(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c), in)
	httpx.Reply(c, http.StatusOK, v, err)
}

type transferCollectionRequest struct {
	Organization string `json:"organization"`
}

func (h *Handlers) transferCollection(c *gin.Context) {
	var req transferCollectionRequest
	if !httpx.Bind(c, &req) {
		return
	}
	v, err := h.svc.TransferCollection(c.Request.Context(), internaltoken.CallerOf(c), collectionID(c), req.Organization)
	httpx.Reply(c, http.StatusOK, v, err)
}
