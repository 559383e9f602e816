package paging_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
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
		want    paging.Request
		wantErr string // message of the 400, "" for none
	}{
		{name: "defaults", query: "", want: paging.Request{Limit: paging.DefaultLimit}},
		{name: "zero means default", query: "limit=0", want: paging.Request{Limit: paging.DefaultLimit}},
		{name: "one", query: "limit=1", want: paging.Request{Limit: 1}},
		{name: "max", query: "limit=1000", want: paging.Request{Limit: 1000}},
		{name: "cursor", query: "page=" + cursor + "&limit=10", want: paging.Request{Page: cursor, Limit: 10}},
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
	p := paging.Request{Page: paging.Cursor(at, "id-7", 42)}
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
			err := paging.Request{Page: tc.page}.Keys(tc.dst...)
			if !apierr.IsInvalid(err) {
				t.Errorf("Keys(%q) = %v, want a 400", tc.page, err)
			}
		})
	}
}

type item struct{ ID string }

func TestFetch(t *testing.T) {
	t.Parallel()
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
		{"one a page", []item{{"a"}, {"b"}}, 1, `{"next":{"page":"` + paging.Cursor("a") + `"},"count":9,"items":[{"ID":"a"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var asked int
			l, err := paging.Fetch(paging.Request{Limit: tc.limit}, func(limit int) ([]item, int, error) {
				asked = limit
				return tc.fetched, 9, nil
			}, key)
			if err != nil {
				t.Fatal(err)
			}
			if asked != tc.limit+1 {
				t.Errorf("read asked for %d items, want %d (one more than the page)", asked, tc.limit+1)
			}
			got, err := json.Marshal(l)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), tc.want); diff != "" {
				t.Errorf("Fetch (-got +want):\n%s", diff)
			}
		})
	}
}

func TestFetchWithoutLimitAsksForTheDefault(t *testing.T) {
	t.Parallel()
	var asked int
	_, err := paging.Fetch(paging.Request{}, func(limit int) ([]item, int, error) {
		asked = limit
		return []item{{"a"}}, 1, nil
	}, func(it item) string { return it.ID })
	if err != nil || asked != paging.DefaultLimit+1 {
		t.Errorf("Fetch without a limit asked for %d (err %v), want %d", asked, err, paging.DefaultLimit+1)
	}
}

func TestFetchError(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	_, err := paging.Fetch(paging.Request{Limit: 2}, func(int) ([]item, int, error) { return nil, 0, boom }, func(item) string { return "" })
	if !errors.Is(err, boom) {
		t.Errorf("Fetch error = %v, want %v", err, boom)
	}
}

func TestReadKeyset(t *testing.T) {
	for _, tc := range []struct {
		name    string
		q       string
		sort    paging.Sort
		want    paging.Request
		wantErr bool
	}{
		{"first page", "limit=5", paging.ByPosition, paging.Request{Limit: 5}, false},
		{"position cursor", "page=" + paging.PositionCursor(7, "x"), paging.ByPosition,
			paging.Request{Page: paging.PositionCursor(7, "x"), AfterPosition: 7, AfterID: "x", Limit: paging.DefaultLimit}, false},
		{"id cursor", "page=" + paging.IDCursor("x"), paging.ByID,
			paging.Request{Page: paging.IDCursor("x"), AfterID: "x", Limit: paging.DefaultLimit}, false},
		{"an id cursor is not a position cursor", "page=" + paging.IDCursor("x"), paging.ByPosition, paging.Request{}, true},
		{"bad limit", "limit=1001", paging.ByID, paging.Request{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := paging.ReadKeyset(query(tc.q), tc.sort)
			if (err != nil) != tc.wantErr || (err != nil && !apierr.IsInvalid(err)) {
				t.Fatalf("ReadKeyset error = %v, want a 400: %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("ReadKeyset (-got +want):\n%s", diff)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		items []item
		next  string
		want  string // JSON of the envelope
	}{
		{"more pages", []item{{"a"}, {"b"}}, paging.Cursor("b"),
			`{"next":{"page":"` + paging.Cursor("b") + `"},"count":9,"items":[{"ID":"a"},{"ID":"b"}]}`},
		{"last page", []item{{"a"}}, "", `{"count":9,"items":[{"ID":"a"}]}`},
		{"empty", nil, "", `{"count":9,"items":[]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(paging.New(tc.items, 9, tc.next))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(got), tc.want); diff != "" {
				t.Errorf("New (-got +want):\n%s", diff)
			}
		})
	}
}

func TestMapKeepsPaging(t *testing.T) {
	t.Parallel()
	l := paging.List[item]{Next: &paging.Next{Page: "p"}, Count: 3, Items: []item{{"a"}, {"b"}}}
	got := paging.Map(l, func(it item) string { return it.ID })
	want := paging.List[string]{Next: &paging.Next{Page: "p"}, Count: 3, Items: []string{"a", "b"}}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Map (-got +want):\n%s", diff)
	}
}

func TestWithNeverNull(t *testing.T) {
	t.Parallel()
	got, err := json.Marshal(paging.With(paging.List[item]{Count: 0}, []string(nil)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != `{"count":0,"items":[]}` {
		t.Errorf("With = %s, want items []", got)
	}
}
