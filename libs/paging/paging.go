// Package paging reads list parameters (page, limit) and builds the list
// envelope {"next":{"page":...},"count":N,"items":[...]} with opaque keyset cursors.
package paging

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/docspub/platform/libs/apierr"
	"github.com/gin-gonic/gin"
)

// Limits on page sizes.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Params are the paging query parameters of a list request.
type Params struct {
	// Page is the opaque cursor of the previous page's last item; empty for the first page.
	Page  string
	Limit int
}

// FromQuery reads page and limit. A limit outside 1..1000 or a page that is not
// a cursor of ours is a 400 naming the parameter.
func FromQuery(c *gin.Context) (Params, error) {
	p := Params{Page: c.Query("page"), Limit: DefaultLimit}
	if s := c.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > MaxLimit {
			return p, apierr.Invalid("limit", "must be a whole number from 0 to %d", MaxLimit)
		}
		if n > 0 {
			p.Limit = n
		}
	}
	if p.Page != "" {
		if _, err := decode(p.Page); err != nil {
			return p, apierr.Invalid("page", "is not a valid page cursor")
		}
	}
	return p, nil
}

// Read is FromQuery that also decodes the page cursor, when there is one,
// into keys (see Keys); without one the keys are left as they are.
func Read(c *gin.Context, keys ...any) (Params, error) {
	p, err := FromQuery(c)
	if err == nil && p.Page != "" {
		err = p.Keys(keys...)
	}
	return p, err
}

// Next is the cursor of the following page.
type Next struct {
	Page string `json:"page"`
}

// List is the list envelope.
type List[T any] struct {
	Next  *Next `json:"next,omitempty"`
	Count int   `json:"count"`
	Items []T   `json:"items"`
}

// Cursor encodes the sort key values of an item as an opaque page token.
func Cursor(keys ...any) string {
	b, _ := json.Marshal(keys)
	return base64.RawURLEncoding.EncodeToString(b)
}

// Keys decodes a cursor into the given pointers, in the order Cursor was given them.
func (p Params) Keys(dst ...any) error {
	raw, err := decode(p.Page)
	if err != nil || len(raw) != len(dst) {
		return apierr.Invalid("page", "is not a valid page cursor")
	}
	for i := range dst {
		if err := json.Unmarshal(raw[i], dst[i]); err != nil {
			return apierr.Invalid("page", "is not a valid page cursor")
		}
	}
	return nil
}

func decode(page string) ([]json.RawMessage, error) {
	b, err := base64.RawURLEncoding.DecodeString(page)
	if err != nil {
		return nil, err
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	return raw, nil
}

// Build makes the envelope from up to limit+1 fetched items: when there are
// more than limit, the extra one is dropped and next points past the last kept
// item, whose cursor keys come from key.
func Build[T any](fetched []T, p Params, count int, key func(T) string) List[T] {
	if len(fetched) > p.Limit {
		return newList(fetched[:p.Limit], count, key(fetched[p.Limit-1]))
	}
	return newList(fetched, count, "")
}

// Reply answers 200 with the envelope of a page of items out of count; next
// is the cursor of the following page (see Cursor), "" on the last page.
func Reply[T any](c *gin.Context, items []T, count int, next string) {
	c.JSON(http.StatusOK, newList(items, count, next))
}

// newList is the envelope of items, never null, with next unless it is "".
func newList[T any](items []T, count int, next string) List[T] {
	l := List[T]{Count: count, Items: items}
	if l.Items == nil {
		l.Items = []T{}
	}
	if next != "" {
		l.Next = &Next{Page: next}
	}
	return l
}

// Map converts a list's items, keeping its paging.
func Map[T, U any](l List[T], f func(T) U) List[U] {
	out := List[U]{Next: l.Next, Count: l.Count, Items: make([]U, len(l.Items))}
	for i, it := range l.Items {
		out.Items[i] = f(it)
	}
	return out
}
