package revisionmongo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"github.com/docspub/platform/libs/blob/blobtest"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/mongotest"
	"github.com/docspub/platform/libs/mongox"
	"github.com/docspub/platform/services/content/internal/revision"
	"github.com/docspub/platform/services/content/internal/revisionmongo"
	"github.com/google/go-cmp/cmp"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestMain(m *testing.M) { mongotest.Main(m) }

func newStore(t *testing.T, opts ...revisionmongo.Option) (*revisionmongo.Store, context.Context) {
	t.Helper()
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, revisionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	return revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t)), opts...), ctx
}

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func TestRevisions(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	full := revision.Revision{
		ID: "rev1", Space: "sp1", Organization: "org1", Type: revision.TypeMerge, Parents: []string{"rev0"}, MergedFrom: "cr1",
		Pages: []revision.Page{{
			ID: "p1", Kind: revision.KindGroup, Title: "Guide", Slug: "guide", CreatedAt: t0, UpdatedAt: t0,
			Pages: []revision.Page{{ID: "p2", Kind: revision.KindDocument, Title: "Intro", Slug: "intro", Emoji: "1f600",
				Description: "d", Markdown: "# Hi\n", Pages: []revision.Page{}, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour)}},
		}},
		Files:            []revision.File{{ID: "f1", Name: "a.png", ContentType: "image/png", Size: 3, Blob: "b1", Width: 4, Height: 5}},
		ReusableContents: []revision.ReusableContent{{ID: "rc1", Title: "Note", Markdown: "x"}},
		Redirects:        []revision.Redirect{{Path: "old/intro", Page: "p2"}},
		CreatedAt:        t0,
	}
	bare := revision.Revision{ID: "rev2", Space: "sp1", Organization: "org1", Type: revision.TypeEdits, CreatedAt: t0}
	for _, r := range []revision.Revision{full, bare} {
		if err := s.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		id   string
		want revision.Revision
	}{
		{"round trip", "rev1", full},
		{"nil slices stored empty", "rev2", revision.Revision{ID: "rev2", Space: "sp1", Organization: "org1", Type: revision.TypeEdits,
			Parents: []string{}, Pages: []revision.Page{}, Files: []revision.File{}, ReusableContents: []revision.ReusableContent{}, CreatedAt: t0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := s.Get(ctx, tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("Get(%s) (-got +want):\n%s", tc.id, diff)
			}
		})
	}
	t.Run("insert twice is a conflict", func(t *testing.T) {
		if err := s.Insert(ctx, full); !errors.Is(err, apierr.ErrConflict) {
			t.Errorf("second insert: %v, want a conflict", err)
		}
	})
	t.Run("missing is not found", func(t *testing.T) {
		_, err := s.Get(ctx, "nope")
		if !errors.Is(err, apierr.ErrNotFound) || err.Error() != "revision not found" {
			t.Errorf("Get(nope) = %v, want revision not found", err)
		}
	})
}

// The space store writes a space's first revision as a minimal document.
func TestMinimalDocument(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	doc := bson.M{"_id": "rev0", "space": "sp1", "organization": "org1", "type": "edits", "parents": bson.A{}, "createdAt": t0}
	if _, err := db.Collection(revisionmongo.Revisions).InsertOne(ctx, doc); err != nil {
		t.Fatal(err)
	}
	got, err := revisionmongo.NewStore(db, blobtest.Open(t, blobtest.Dir(t))).Get(ctx, "rev0")
	if err != nil {
		t.Fatal(err)
	}
	want := revision.Revision{ID: "rev0", Space: "sp1", Organization: "org1", Type: "edits", Parents: []string{}, CreatedAt: t0}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("minimal document (-got +want):\n%s", diff)
	}
	if len(got.Pages) != 0 || len(got.Files) != 0 {
		t.Errorf("minimal document has content: %+v", got)
	}
}

func TestDeleteSpace(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	for _, r := range []revision.Revision{{ID: "a1", Space: "a"}, {ID: "a2", Space: "a"}, {ID: "b1", Space: "b"}} {
		if err := s.Insert(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSpace(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		id   string
		gone bool
	}{{"a1", true}, {"a2", true}, {"b1", false}}
	for _, tc := range tests {
		t.Run(tc.id, func(t *testing.T) {
			_, err := s.Get(ctx, tc.id)
			if gone := errors.Is(err, apierr.ErrNotFound); gone != tc.gone {
				t.Errorf("Get(%s) = %v, want gone %v", tc.id, err, tc.gone)
			}
		})
	}
}

type blobCase struct {
	name string
	data []byte
}

// blobCases are files to store: empty, small, and 2 MiB and a partial chunk.
func blobCases(t *testing.T) []blobCase {
	big := make([]byte, 2<<20+17)
	if _, err := rand.Read(big); err != nil {
		t.Fatal(err)
	}
	return []blobCase{{"empty", []byte{}}, {"small", []byte("hello")}, {"2 MB", big}}
}

func TestBlobs(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	tests := blobCases(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			id, size, err := s.PutBlob(ctx, revision.Owner{Space: "sp1", Organization: "org1"}, "f.bin", "application/octet-stream", bytes.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if size != int64(len(tc.data)) {
				t.Errorf("size = %d, want %d", size, len(tc.data))
			}
			if f := (revision.File{Blob: id}); f.SHA256() == "" || !strings.HasPrefix(id, "orgs/org1/sha256/") {
				t.Errorf("blob id %q is no content address of org1", id)
			}
			for _, n := range []int64{size, -1} {
				rc, err := s.OpenBlob(ctx, id, n)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				rc.Close()
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, tc.data) {
					t.Errorf("read back %d bytes that differ from the %d written", len(got), len(tc.data))
				}
			}
		})
	}
	t.Run("missing blobs", func(t *testing.T) {
		for _, id := range []string{"not-a-key", bson.NewObjectID().Hex(), "orgs/org1/sha256/" + strings.Repeat("ab", 32)} {
			if _, err := s.OpenBlob(ctx, id, -1); !errors.Is(err, apierr.ErrNotFound) {
				t.Errorf("OpenBlob(%s) = %v, want not found", id, err)
			}
		}
	})
}

// PutBlobs stores several files at once; the same bytes are stored once
// per organization, and the organization's storage counts them once.
func TestPutBlobs(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t)
	tests := blobCases(t)
	var blobs []revision.Blob
	var total int64
	for _, tc := range tests {
		blobs = append(blobs, revision.Blob{Name: tc.name, ContentType: "image/png", Data: tc.data})
		total += int64(len(tc.data))
	}
	owner := revision.Owner{Space: "sp1", Organization: "org1"}
	ids, err := s.PutBlobs(ctx, owner, blobs)
	if err != nil || len(ids) != len(blobs) {
		t.Fatalf("PutBlobs = %v, %v", ids, err)
	}
	one, _, err := s.PutBlob(ctx, owner, "small", "image/png", bytes.NewReader([]byte("hello")))
	if err != nil {
		t.Fatal(err)
	}
	if one != ids[1] {
		t.Errorf("the same bytes stored as %s and %s", one, ids[1])
	}
	other, _, err := s.PutBlob(ctx, revision.Owner{Space: "sp9", Organization: "org2"}, "small", "image/png", bytes.NewReader([]byte("hello")))
	if err != nil || other == one {
		t.Errorf("another organization's copy = %s, %v", other, err)
	}
	for i, id := range ids {
		rc, err := s.OpenBlob(ctx, id, int64(len(blobs[i].Data)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, blobs[i].Data) {
			t.Errorf("%s: read back %d bytes (%v) that differ from the %d written", blobs[i].Name, len(got), err, len(blobs[i].Data))
		}
	}
	u, err := s.Usage(ctx, "org1")
	if err != nil {
		t.Fatal(err)
	}
	if u.FileBytes != total {
		t.Errorf("org1 stores %d bytes of files, want %d (each distinct file once)", u.FileBytes, total)
	}
}

// Past its quota, an organization stores no new file: a 413 that says so.
func TestQuota(t *testing.T) {
	t.Parallel()
	s, ctx := newStore(t, revisionmongo.WithQuota(100))
	owner := revision.Owner{Space: "sp1", Organization: "org1"}
	if _, _, err := s.PutBlob(ctx, owner, "a", "", bytes.NewReader(make([]byte, 60))); err != nil {
		t.Fatal(err)
	}
	// The same bytes again add nothing.
	if _, _, err := s.PutBlob(ctx, owner, "a", "", bytes.NewReader(make([]byte, 60))); err != nil {
		t.Errorf("the same file again: %v", err)
	}
	_, _, err := s.PutBlob(ctx, owner, "b", "", bytes.NewReader(bytes.Repeat([]byte{1}, 60)))
	var e *apierr.Error
	if !errors.As(err, &e) || e.Status != http.StatusRequestEntityTooLarge || !strings.Contains(e.Message, "quota") {
		t.Errorf("PutBlob past the quota = %v, want a 413 naming the quota", err)
	}
	// Another organization has its own.
	if _, _, err := s.PutBlob(ctx, revision.Owner{Space: "sp2", Organization: "org2"}, "b", "", bytes.NewReader(bytes.Repeat([]byte{1}, 60))); err != nil {
		t.Errorf("org2: %v", err)
	}
}
