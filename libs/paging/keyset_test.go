package paging_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/keyset"
	"github.com/docspub/platform/libs/paging"
	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

func TestReadKeyset(t *testing.T) {
	for _, tc := range []struct {
		name string
		q    string
		sort paging.Sort
		want keyset.Page
		ok   bool
	}{
		{"first page", "limit=5", paging.ByPosition, keyset.Page{Limit: 5}, true},
		{"position cursor", "page=" + paging.Cursor(int64(7), "x"), paging.ByPosition, keyset.Page{AfterPosition: 7, AfterID: "x", Limit: paging.DefaultLimit}, true},
		{"id cursor", "page=" + paging.Cursor("x"), paging.ByID, keyset.Page{AfterID: "x", Limit: paging.DefaultLimit}, true},
		{"an id cursor is not a position cursor", "page=" + paging.Cursor("x"), paging.ByPosition, keyset.Page{}, false},
		{"bad limit", "limit=1001", paging.ByID, keyset.Page{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			c.Request = httptest.NewRequest("GET", "/v1/things?"+tc.q, nil)
			got, ok := paging.ReadKeyset(c, tc.sort)
			if ok != tc.ok || got != tc.want {
				t.Errorf("ReadKeyset = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
			if !ok && w.Code != 400 {
				t.Errorf("status %d, want 400", w.Code)
			}
		})
	}
}

func TestReplyKeyset(t *testing.T) {
	l := keyset.List[string]{Items: []string{"a"}, Count: 3, HasMore: true, LastPosition: 9, LastID: "a"}
	for _, tc := range []struct {
		name string
		l    keyset.List[string]
		err  error
		sort paging.Sort
		want string // the body
	}{
		{"by position", l, nil, paging.ByPosition, `{"next":{"page":"` + paging.Cursor(int64(9), "a") + `"},"count":3,"items":["a"]}`},
		{"by id", l, nil, paging.ByID, `{"next":{"page":"` + paging.Cursor("a") + `"},"count":3,"items":["a"]}`},
		{"last page", keyset.List[string]{Count: 0}, nil, paging.ByID, `{"count":0,"items":[]}`},
		{"error", l, apierr.NotFound("thing not found"), paging.ByID, `{"error":{"code":404,"message":"thing not found"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			paging.ReplyKeyset(c, tc.l, tc.err, tc.sort)
			var got, want any
			if err := errors.Join(json.Unmarshal(w.Body.Bytes(), &got), json.Unmarshal([]byte(tc.want), &want)); err != nil {
				t.Fatal(err, w.Body.String())
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}
