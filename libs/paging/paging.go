// Package paging is keyset paging, the one way every list pages: the request
// (limit and an opaque cursor, read from the query), the read of one item
// more than a page holds that tells whether a next page exists (Fetch), and
// the list envelope {"next":{"page":...},"count":N,"items":[...]} with the
// cursor of the next page. It imports nothing of HTTP frameworks, so domain
// packages use it too.
package paging

import (
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/docspub/platform/libs/apierr"
)

// Limits on page sizes.
const (
	DefaultLimit = 50
	MaxLimit     = 1000
)

// Request asks for one page: at most Limit items after the item whose keys
// the cursor Page holds ("" for the first page). A list sorted by
// (position, id) or by id alone has its cursor's keys in AfterPosition and
// AfterID (ReadKeyset); other lists decode Page into their own keys (Keys).
type Request struct {
	Page          string
	Limit         int
	AfterPosition int64
	AfterID       string
}

// Query is where a request's parameters are read from (a *gin.Context).
type Query interface {
	Query(key string) string
}

// FromQuery reads page and limit. A limit outside 1..1000 or a page that is not
// a cursor of ours is a 400 naming the parameter.
func FromQuery(q Query) (Request, error) {
	r := Request{Page: q.Query("page"), Limit: DefaultLimit}
	if s := q.Query("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 || n > MaxLimit {
			return r, apierr.Invalid("limit", "must be a whole number from 0 to %d", MaxLimit)
		}
		if n > 0 {
			r.Limit = n
		}
	}
	if r.Page != "" {
		if _, err := decode(r.Page); err != nil {
			return r, apierr.Invalid("page", "is not a valid page cursor")
		}
	}
	return r, nil
}

// Read is FromQuery that also decodes the page cursor, when there is one,
// into keys (see Keys); without one the keys are left as they are.
func Read(q Query, keys ...any) (Request, error) {
	r, err := FromQuery(q)
	if err == nil && r.Page != "" {
		err = r.Keys(keys...)
	}
	return r, err
}

// Sort says which keys a keyset list's cursor holds.
type Sort bool

// The sorts of keyset lists.
const (
	ByPosition Sort = false // cursor (position, id)
	ByID       Sort = true  // cursor (id)
)

// ReadKeyset is Read of a list sorted by sort: the cursor's keys go to
// AfterPosition and AfterID.
func ReadKeyset(q Query, sort Sort) (Request, error) {
	var pos int64
	var id string
	keys := []any{&pos, &id}
	if sort == ByID {
		keys = []any{&id}
	}
	r, err := Read(q, keys...)
	if err != nil {
		return Request{}, err
	}
	r.AfterPosition, r.AfterID = pos, id
	return r, nil
}

// Cursor encodes the sort key values of an item as an opaque page token.
func Cursor(keys ...any) string {
	b, _ := json.Marshal(keys)
	return base64.RawURLEncoding.EncodeToString(b)
}

// PositionCursor is the cursor of an item of a list sorted by (position, id).
func PositionCursor(position int64, id string) string { return Cursor(position, id) }

// IDCursor is the cursor of an item of a list sorted by id.
func IDCursor(id string) string { return Cursor(id) }

// Keys decodes the cursor into the given pointers, in the order Cursor was given them.
func (r Request) Keys(dst ...any) error {
	raw, err := decode(r.Page)
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

// Next is the cursor of the following page.
type Next struct {
	Page string `json:"page"`
}

// List is one page of a list, the list envelope: Next is absent on the last
// page, Count is the number of all the list's items.
type List[T any] struct {
	Next  *Next `json:"next,omitempty"`
	Count int   `json:"count"`
	Items []T   `json:"items"`
}

// Fetch reads the page r asks for, the one place that reads one item more
// than a page holds: read is asked for up to limit+1 items (after r's cursor)
// and the number of all of them; the extra item, when there, is dropped and
// says a next page exists, whose cursor is the last kept item's. A request
// without a limit (zero) asks for DefaultLimit items.
func Fetch[T any](r Request, read func(limit int) ([]T, int, error), cursor func(T) string) (List[T], error) {
	if r.Limit <= 0 {
		r.Limit = DefaultLimit
	}
	fetched, count, err := read(r.Limit + 1)
	if err != nil {
		return List[T]{}, err
	}
	if len(fetched) > r.Limit {
		return New(fetched[:r.Limit], count, cursor(fetched[r.Limit-1])), nil
	}
	return New(fetched, count, ""), nil
}

// New is the envelope of items out of count, items never null; next is the
// following page's cursor, "" on the last page.
func New[T any](items []T, count int, next string) List[T] {
	l := List[T]{Count: count, Items: items}
	if l.Items == nil {
		l.Items = []T{}
	}
	if next != "" {
		l.Next = &Next{Page: next}
	}
	return l
}

// With is l's paging with other items (the rendered views of l's items).
func With[T, U any](l List[T], items []U) List[U] {
	out := New(items, l.Count, "")
	out.Next = l.Next
	return out
}

// Map converts a list's items, keeping its paging.
func Map[T, U any](l List[T], f func(T) U) List[U] {
	items := make([]U, len(l.Items))
	for i, it := range l.Items {
		items[i] = f(it)
	}
	return With(l, items)
}
