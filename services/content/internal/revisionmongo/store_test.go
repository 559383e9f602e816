package revisionmongo_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io"
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

func newStore(t *testing.T) (*revisionmongo.Store, context.Context) {
	t.Helper()
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, revisionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	return revisionmongo.NewStore(db), ctx
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
	got, err := revisionmongo.NewStore(db).Get(ctx, "rev0")
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
			rc, err := s.OpenBlob(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			defer rc.Close()
			got, err := io.ReadAll(rc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tc.data) {
				t.Errorf("read back %d bytes that differ from the %d written", len(got), len(tc.data))
			}
		})
	}
	t.Run("missing blobs", func(t *testing.T) {
		for _, id := range []string{"not-hex", bson.NewObjectID().Hex()} {
			if _, err := s.OpenBlob(ctx, id); !errors.Is(err, apierr.ErrNotFound) {
				t.Errorf("OpenBlob(%s) = %v, want not found", id, err)
			}
		}
	})
}

// PutBlobs writes several files in GridFS's layout at once; they read back
// as the driver's uploads do, with the same file document.
func TestPutBlobs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := mongotest.Database(t)
	if err := mongox.EnsureIndexes(ctx, db, revisionmongo.Indexes()...); err != nil {
		t.Fatal(err)
	}
	s := revisionmongo.NewStore(db)
	tests := blobCases(t)

	// Written in one go, they read back as the driver's uploads do,
	// with the same file document.
	var blobs []revision.Blob
	for _, tc := range tests {
		blobs = append(blobs, revision.Blob{Name: tc.name, ContentType: "image/png", Data: tc.data})
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
	for i, id := range ids {
		rc, err := s.OpenBlob(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || !bytes.Equal(got, blobs[i].Data) {
			t.Errorf("%s: read back %d bytes (%v) that differ from the %d written", blobs[i].Name, len(got), err, len(blobs[i].Data))
		}
	}
	files := db.Collection(revisionmongo.Files)
	// shape is the file document's fields and their types, and values but
	// for the id and the times.
	shape := func(id string) []string {
		oid, _ := bson.ObjectIDFromHex(id)
		raw, err := files.FindOne(ctx, bson.M{"_id": oid}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		var walk func(prefix string, doc bson.Raw)
		walk = func(prefix string, doc bson.Raw) {
			elems, _ := doc.Elements()
			for _, e := range elems {
				k, v := prefix+e.Key(), e.Value()
				switch {
				case v.Type == bson.TypeEmbeddedDocument:
					walk(k+".", v.Document())
				case k == "_id" || v.Type == bson.TypeDateTime:
					out = append(out, k+" "+v.Type.String())
				default:
					out = append(out, k+" "+v.Type.String()+" "+v.String())
				}
			}
		}
		walk("", raw)
		return out
	}
	if diff := cmp.Diff(shape(ids[1]), shape(one)); diff != "" {
		t.Errorf("file document (-PutBlobs +PutBlob):\n%s", diff)
	}
}
