package directory

import (
	"encoding/base64"
	"encoding/json"

	"github.com/docspub/platform/libs/apierr"
)

// Page asks for one page of a list: the items after the cursor After (empty
// for the first page), at most Limit of them.
type Page struct {
	After string
	Limit int
}

// List is one page of a list.
type List[T any] struct {
	Items []T
	Next  string // cursor of the next page; empty on the last one
	Count int    // all matching items
}

// encodeCursor makes an opaque cursor of sort key values (the format of
// libs/paging: base64url of a JSON array).
func encodeCursor(keys ...string) string {
	b, _ := json.Marshal(keys)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor reads a cursor of n keys; an empty cursor gives n empty keys.
func decodeCursor(s string, n int) ([]string, error) {
	if s == "" {
		return make([]string, n), nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	var keys []string
	if err == nil {
		err = json.Unmarshal(b, &keys)
	}
	if err != nil || len(keys) != n {
		return nil, apierr.Invalid("page", "is not a valid page cursor")
	}
	return keys, nil
}

// trim keeps at most limit of up to limit+1 fetched items and returns the
// cursor of the next page when there were more.
func trim[T any](fetched []T, limit int, key func(T) []string) ([]T, string) {
	if len(fetched) <= limit {
		return fetched, ""
	}
	fetched = fetched[:limit]
	return fetched, encodeCursor(key(fetched[limit-1])...)
}
