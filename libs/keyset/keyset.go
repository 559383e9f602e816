// Package keyset is the domain side of keyset paging over items sorted by
// (position, id) or by id: the page a request asks for, the page a service
// answers, and the cut of one extra fetched item that tells whether a next
// page exists. It imports nothing of HTTP (libs/paging reads and answers it).
package keyset

// Page asks for a page: the items after (AfterPosition, AfterID), AfterID
// empty for the first page, at most Limit of them. Lists sorted by id alone
// leave AfterPosition zero.
type Page struct {
	AfterPosition int64
	AfterID       string
	Limit         int
}

// List is one page of a list: HasMore says whether a next page exists, and
// LastPosition and LastID are the sort keys of its last item (the next
// page's cursor).
type List[T any] struct {
	Items        []T
	Count        int
	HasMore      bool
	LastPosition int64
	LastID       string
}

// Cut makes a list of up to limit+1 fetched items (fetch one more than the
// page holds): the extra item, when there, is dropped and says a next page
// exists; key gives an item's sort keys. count is the number of all items.
func Cut[T any](fetched []T, limit, count int, key func(T) (position int64, id string)) List[T] {
	out := List[T]{Items: fetched, Count: count}
	if len(fetched) > limit {
		out.Items, out.HasMore = fetched[:limit], true
	}
	if n := len(out.Items); n > 0 {
		out.LastPosition, out.LastID = key(out.Items[n-1])
	}
	return out
}

// With is l's paging with other items (the rendered views of l's items).
func With[T, U any](l List[T], items []U) List[U] {
	return List[U]{Items: items, Count: l.Count, HasMore: l.HasMore, LastPosition: l.LastPosition, LastID: l.LastID}
}
