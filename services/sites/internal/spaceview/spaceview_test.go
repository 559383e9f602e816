package spaceview_test

import (
	"errors"
	"testing"
	"time"

	"github.com/docspub/platform/services/sites/internal/spaceview"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	updated := at.Add(time.Hour)
	for _, tc := range []struct {
		name    string
		view    string
		deleted bool
		want    spaceview.Space
		wantErr error
	}{
		{"the event's time without updatedAt", `{"id":"s1","organization":"o","title":"Docs","revision":"r1"}`, false,
			spaceview.Space{ID: "s1", Organization: "o", Title: "Docs", Revision: "r1", At: at}, nil},
		{"updatedAt orders views", `{"id":"s1","updatedAt":"2026-01-02T04:04:05Z"}`, false,
			spaceview.Space{ID: "s1", At: updated}, nil},
		{"deletedAt hides it", `{"id":"s1","deletedAt":"2026-01-02T04:04:05Z"}`, false,
			spaceview.Space{ID: "s1", Deleted: true, At: at}, nil},
		{"the GitBook space it was migrated from", `{"id":"s1","gitbookSpaceId":"NkEGS7hzeqa35sMXQZ4X"}`, false,
			spaceview.Space{ID: "s1", GitBookSpaceID: "NkEGS7hzeqa35sMXQZ4X", At: at}, nil},
		{"a deletion hides it", `{"id":"s1"}`, true, spaceview.Space{ID: "s1", Deleted: true, At: at}, nil},
		{"no id", `{"title":"x"}`, false, spaceview.Space{}, spaceview.ErrBadView},
		{"not JSON", `{`, false, spaceview.Space{}, spaceview.ErrBadView},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := spaceview.Parse([]byte(tc.view), tc.deleted, at)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("Parse(%s) error %v, want %v", tc.view, err, tc.wantErr)
			}
			if tc.wantErr == nil {
				tc.want.View = tc.view
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Parse(%s) (-got +want):\n%s", tc.view, diff)
			}
		})
	}
}
