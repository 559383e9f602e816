package paging_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/paging"
	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	m.Run()
}

func query(q string) *gin.Context {
	c, _ := gin.CreateTestContext(httptest.NewRecorder())
	c.Request = httptest.NewRequest("GET", "/v1/things?"+q, nil)
	return c
}

func TestFromQuery(t *testing.T) {
	cursor := paging.Cursor("title", "id1")
	for _, tc := range []struct {
		name    string
		query   string
		want    paging.Params
		wantErr string // message of the 400, "" for none
	}{
		{name: "defaults", query: "", want: paging.Params{Limit: paging.DefaultLimit}},
		{name: "zero means default", query: "limit=0", want: paging.Params{Limit: paging.DefaultLimit}},
		{name: "one", query: "limit=1", want: paging.Params{Limit: 1}},
		{name: "max", query: "limit=1000", want: paging.Params{Limit: 1000}},
		{name: "cursor", query: "page=" + cursor + "&limit=10", want: paging.Params{Page: cursor, Limit: 10}},
		{name: "above max", query: "limit=1001", wantErr: "limit: must be a whole number from 0 to 1000"},
		{name: "negative", query: "limit=-1", wantErr: "limit: must be a whole number from 0 to 1000"},
		{name: "not a number", query: "limit=ten", wantErr: "limit: must be a whole number from 0 to 1000"},
		{name: "fraction", query: "limit=1.5", wantErr: "limit: must be a whole number from 0 to 1000"},
		{name: "not base64", query: "page=%21%21%21", wantErr: "page: is not a valid page cursor"},
		{name: "base64 of no array", query: "page=e30", wantErr: "page: is not a valid page cursor"},    // {}
		{name: "base64 of garbage", query: "page=aGVsbG8", wantErr: "page: is not a valid page cursor"}, // hello
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := paging.FromQuery(query(tc.query))
			if tc.wantErr != "" {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Status != 400 || e.Message != tc.wantErr {
					t.Fatalf("FromQuery(%q) error = %v, want 400 %q", tc.query, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("FromQuery(%q): %v", tc.query, err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("FromQuery(%q) (-got +want):\n%s", tc.query, diff)
			}
		})
	}
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name    string
		query   string
		wantPos int64
		wantID  string
		wantErr string
	}{
		{name: "first page", query: "limit=5"},
		{name: "cursor", query: "page=" + paging.Cursor(7, "b"), wantPos: 7, wantID: "b"},
		{name: "cursor of other keys", query: "page=" + paging.Cursor("b"), wantErr: "page: is not a valid page cursor"},
		{name: "bad limit", query: "limit=x&page=" + paging.Cursor(7, "b"), wantErr: "limit: must be a whole number from 0 to 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				pos int64
				id  string
			)
			_, err := paging.Read(query(tc.query), &pos, &id)
			if tc.wantErr != "" {
				var e *apierr.Error
				if !errors.As(err, &e) || e.Status != 400 || e.Message != tc.wantErr {
					t.Fatalf("Read(%q) error = %v, want 400 %q", tc.query, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Read(%q): %v", tc.query, err)
			}
			if pos != tc.wantPos || id != tc.wantID {
				t.Errorf("Read(%q) keys = %d, %q; want %d, %q", tc.query, pos, id, tc.wantPos, tc.wantID)
			}
		})
	}
}

func TestCursorKeysRoundTrip(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 30, 0, 123000000, time.UTC)
	p := paging.Params{Page: paging.Cursor(at, "id-7", 42)}
	var (
		gotAt time.Time
		gotID string
		gotN  int
	)
	if err := p.Keys(&gotAt, &gotID, &gotN); err != nil {
		t.Fatalf("Keys: %v", err)
	}
	if !gotAt.Equal(at) || gotID != "id-7" || gotN != 42 {
		t.Errorf("Keys = %v, %q, %d; want %v, id-7, 42", gotAt, gotID, gotN, at)
	}
}

func TestKeysRefusesForeignCursors(t *testing.T) {
	for _, tc := range []struct {
		name string
		page string
		dst  []any
	}{
		{"too few keys", paging.Cursor("a"), []any{new(string), new(string)}},
		{"too many keys", paging.Cursor("a", "b"), []any{new(string)}},
		{"wrong type", paging.Cursor("a", "b"), []any{new(string), new(int)}},
		{"not a cursor", "???", []any{new(string)}},
		{"empty", "", []any{new(string)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := paging.Params{Page: tc.page}.Keys(tc.dst...)
			if !apierr.IsInvalid(err) {
				t.Errorf("Keys(%q) = %v, want a 400", tc.page, err)
			}
		})
	}
}

type item struct{ ID string }

func TestBuild(t *testing.T) {
	key := func(it item) string { return paging.Cursor(it.ID) }
	for _, tc := range []struct {
		name    string
		fetched []item
		limit   int
		want    string // JSON of the envelope
	}{
		{"more than a page", []item{{"a"}, {"b"}, {"c"}}, 2,
			`{"next":{"page":"` + paging.Cursor("b") + `"},"count":9,"items":[{"ID":"a"},{"ID":"b"}]}`},
		{"exactly a page", []item{{"a"}, {"b"}}, 2, `{"count":9,"items":[{"ID":"a"},{"ID":"b"}]}`},
		{"last page", []item{{"a"}}, 2, `{"count":9,"items":[{"ID":"a"}]}`},
		{"empty", nil, 2, `{"count":9,"items":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := paging.Build(tc.fetched, paging.Params{Limit: tc.limit}, 9, key)
			got, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), tc.want); diff != "" {
				t.Errorf("Build (-got +want):\n%s", diff)
			}
		})
	}
}

func TestReply(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []item
		next  string
		want  string // JSON of the body
	}{
		{"more pages", []item{{"a"}, {"b"}}, paging.Cursor("b"),
			`{"next":{"page":"` + paging.Cursor("b") + `"},"count":9,"items":[{"ID":"a"},{"ID":"b"}]}`},
		{"last page", []item{{"a"}}, "", `{"count":9,"items":[{"ID":"a"}]}`},
		{"empty", nil, "", `{"count":9,"items":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			c, _ := gin.CreateTestContext(w)
			paging.Reply(c, tc.items, 9, tc.next)
			if w.Code != 200 {
				t.Errorf("status = %d, want 200", w.Code)
			}
			if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Errorf("Content-Type = %q, want JSON", ct)
			}
			if diff := cmp.Diff(w.Body.String(), tc.want); diff != "" {
				t.Errorf("body (-got +want):\n%s", diff)
			}
		})
	}
}

func TestMapKeepsPaging(t *testing.T) {
	l := paging.List[item]{Next: &paging.Next{Page: "p"}, Count: 3, Items: []item{{"a"}, {"b"}}}
	got := paging.Map(l, func(it item) string { return it.ID })
	want := paging.List[string]{Next: &paging.Next{Page: "p"}, Count: 3, Items: []string{"a", "b"}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Map (-got +want):\n%s", diff)
	}
}
