package paging

import (
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/keyset"
	"github.com/gin-gonic/gin"
)

// Sort says which keys a keyset list's cursor holds.
type Sort bool

// The sorts of keyset lists.
const (
	ByPosition Sort = false // cursor (position, id)
	ByID       Sort = true  // cursor (id)
)

// ReadKeyset reads page and limit into a keyset page whose cursor holds the
// keys of sort. On a bad parameter it answers the 400 and returns false.
func ReadKeyset(c *gin.Context, sort Sort) (keyset.Page, bool) {
	var pg keyset.Page
	keys := []any{&pg.AfterPosition, &pg.AfterID}
	if sort == ByID {
		keys = []any{&pg.AfterID}
	}
	p, err := Read(c, keys...)
	if err != nil {
		httpx.Error(c, err)
		return keyset.Page{}, false
	}
	pg.Limit = p.Limit
	return pg, true
}

// ReplyKeyset answers a keyset list (or err) in the list envelope, with the
// cursor of its next page in the keys of sort.
func ReplyKeyset[T any](c *gin.Context, l keyset.List[T], err error, sort Sort) {
	if err != nil {
		httpx.Error(c, err)
		return
	}
	var next string
	switch {
	case l.HasMore && sort == ByID:
		next = Cursor(l.LastID)
	case l.HasMore:
		next = Cursor(l.LastPosition, l.LastID)
	}
	Reply(c, l.Items, l.Count, next)
}
