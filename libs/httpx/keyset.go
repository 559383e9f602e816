package httpx

// This file is transitional: the lists still on libs/keyset read and answer
// through it until they move to paging.Fetch; it goes with libs/keyset.

import (
	"github.com/docspub/platform/libs/keyset"
	"github.com/docspub/platform/libs/paging"
	"github.com/gin-gonic/gin"
)

// ReadKeyset reads page and limit into a keyset page whose cursor holds the
// keys of sort. On a bad parameter it answers the 400 and returns false.
func ReadKeyset(c *gin.Context, sort paging.Sort) (keyset.Page, bool) {
	var pg keyset.Page
	keys := []any{&pg.AfterPosition, &pg.AfterID}
	if sort == paging.ByID {
		keys = []any{&pg.AfterID}
	}
	p, err := paging.Read(c, keys...)
	if err != nil {
		Error(c, err)
		return keyset.Page{}, false
	}
	pg.Limit = p.Limit
	return pg, true
}

// ReplyKeyset answers a keyset list (or err) in the list envelope, with the
// cursor of its next page in the keys of sort.
func ReplyKeyset[T any](c *gin.Context, l keyset.List[T], err error, sort paging.Sort) {
	if err != nil {
		Error(c, err)
		return
	}
	var next string
	switch {
	case l.HasMore && sort == paging.ByID:
		next = paging.Cursor(l.LastID)
	case l.HasMore:
		next = paging.Cursor(l.LastPosition, l.LastID)
	}
	paging.Reply(c, l.Items, l.Count, next)
}
