package blob_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/blob"
	"github.com/docspub/platform/libs/blob/blobtest"
	"github.com/google/go-cmp/cmp"
)

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// The contract every backend keeps, run on a directory and on an S3
// protocol server.
func TestContract(t *testing.T) {
	for name, s := range blobtest.Stores(t) {
		t.Run(name, func(t *testing.T) {
			t.Run("put and read", func(t *testing.T) { putAndRead(t, s) })
			t.Run("dedup", func(t *testing.T) { dedup(t, s) })
			t.Run("range and seek", func(t *testing.T) { rangeAndSeek(t, s) })
			t.Run("too large", func(t *testing.T) { tooLarge(t, s) })
			t.Run("claim refused", func(t *testing.T) { claimRefused(t, s) })
			t.Run("delete and list", func(t *testing.T) { deleteAndList(t, s) })
			t.Run("missing", func(t *testing.T) { missing(t, s) })
			t.Run("signed url", func(t *testing.T) { signedURL(t, s, name) })
		})
	}
}

func putAndRead(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		size int
	}{{"empty", 0}, {"small", 100}, {"streamed", 3<<20 + 17}} {
		t.Run(tc.name, func(t *testing.T) {
			data := bytes.Repeat([]byte("0123456789abcdef"), tc.size/16+1)[:tc.size]
			var claimed blob.Object
			o, err := s.Put(ctx, "org1", "image/png", bytes.NewReader(data), 8<<20, func(o blob.Object) error { claimed = o; return nil })
			if err != nil {
				t.Fatalf("Put: %v", err)
			}
			want := blob.Object{Key: blob.Key("org1", sum(data)), SHA256: sum(data), Size: int64(tc.size)}
			if diff := cmp.Diff(want, o); diff != "" {
				t.Errorf("object (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(want, claimed); diff != "" {
				t.Errorf("claimed (-want +got):\n%s", diff)
			}
			if got := blob.Sum(o.Key); got != sum(data) {
				t.Errorf("Sum(%s) = %s", o.Key, got)
			}
			a, err := s.Attributes(ctx, o.Key)
			if err != nil || a.Size != int64(tc.size) {
				t.Errorf("Attributes = %+v, %v", a, err)
			}
			rc, err := s.Open(ctx, o.Key, -1)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil || !bytes.Equal(got, data) {
				t.Errorf("read %d bytes, %v; want %d", len(got), err, len(data))
			}
			// No temporary object is left behind.
			n := 0
			if err := s.List(ctx, blob.TmpPrefix, func(blob.Object) error { n++; return nil }); err != nil || n != 0 {
				t.Errorf("temporary objects = %d, %v", n, err)
			}
		})
	}
}

func dedup(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	data := []byte("the same bytes")
	a, err := s.PutBytes(ctx, "org2", "text/plain", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Put(ctx, "org2", "text/plain", bytes.NewReader(data), 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.Put(ctx, "org3", "text/plain", bytes.NewReader(data), 1<<20, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Key != b.Key {
		t.Errorf("same org, same bytes: keys %s and %s", a.Key, b.Key)
	}
	if a.Key == c.Key {
		t.Errorf("another org shares key %s", c.Key)
	}
	var keys []string
	if err := s.List(ctx, blob.OrgPrefix("org2"), func(o blob.Object) error { keys = append(keys, o.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{a.Key}, keys); diff != "" {
		t.Errorf("org2's keys (-want +got):\n%s", diff)
	}
}

func rangeAndSeek(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	data := []byte("0123456789")
	o, err := s.PutBytes(ctx, "org1", "text/plain", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.NewRangeReader(ctx, o.Key, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	r.Close()
	if string(got) != "3456" {
		t.Errorf("range 3+4 = %q", got)
	}
	// Through http.ServeContent: a Range is a 206 of those bytes.
	rs, err := s.Open(ctx, o.Key, o.Size)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.Header.Set("Range", "bytes=2-5")
	w := httptest.NewRecorder()
	http.ServeContent(w, req, "", time.Time{}, rs)
	if w.Code != http.StatusPartialContent || w.Body.String() != "2345" {
		t.Errorf("ServeContent Range = %d %q", w.Code, w.Body.String())
	}
	if _, err := rs.Seek(8, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(rs)
	if string(rest) != "89" {
		t.Errorf("after seek 8: %q", rest)
	}
}

func tooLarge(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	for _, n := range []int{11, 2 << 20} {
		_, err := s.Put(ctx, "org1", "", bytes.NewReader(make([]byte, n)), int64(n-1), nil)
		if !errors.Is(err, blob.ErrTooLarge) {
			t.Errorf("Put of %d bytes, at most %d = %v, want ErrTooLarge", n, n-1, err)
		}
	}
	n := 0
	if err := s.List(ctx, blob.TmpPrefix, func(blob.Object) error { n++; return nil }); err != nil || n != 0 {
		t.Errorf("temporary objects = %d, %v", n, err)
	}
}

func claimRefused(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	refuse := errors.New("over quota")
	data := []byte("refused bytes")
	if _, err := s.PutBytes(ctx, "org9", "", data, func(blob.Object) error { return refuse }); !errors.Is(err, refuse) {
		t.Errorf("PutBytes = %v, want the claim's error", err)
	}
	if ok, err := s.Exists(ctx, blob.Key("org9", sum(data))); ok || err != nil {
		t.Errorf("refused blob exists = %v, %v", ok, err)
	}
}

func deleteAndList(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	var keys []string
	for _, d := range []string{"a", "b", "c"} {
		o, err := s.PutBytes(ctx, "org4", "", []byte(d), nil)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
	}
	if err := s.Delete(ctx, keys[1]); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, keys[1]); err != nil {
		t.Errorf("second Delete = %v, want nil", err)
	}
	var got []string
	if err := s.List(ctx, blob.OrgPrefix("org4"), func(o blob.Object) error {
		if o.Size != 1 || o.SHA256 == "" {
			t.Errorf("listed %+v", o)
		}
		got = append(got, o.Key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := []string{keys[0], keys[2]}
	if strings.Compare(want[0], want[1]) > 0 {
		want[0], want[1] = want[1], want[0]
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("listed (-want +got):\n%s", diff)
	}
}

func missing(t *testing.T, s *blob.Store) {
	ctx := context.Background()
	key := blob.Key("org1", strings.Repeat("0", 64))
	if _, err := s.Open(ctx, key, -1); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open missing = %v", err)
	}
	if _, err := s.Open(ctx, key, 5); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Open missing with size = %v", err)
	}
	if _, err := s.Attributes(ctx, key); !errors.Is(err, blob.ErrNotFound) {
		t.Errorf("Attributes missing = %v", err)
	}
}

func signedURL(t *testing.T, s *blob.Store, backend string) {
	ctx := context.Background()
	o, err := s.PutBytes(ctx, "org1", "image/png", []byte("signed"), nil)
	if err != nil {
		t.Fatal(err)
	}
	u, err := s.SignedURL(ctx, o.Key, time.Minute, "image/png", "inline")
	if backend != "s3" {
		if !errors.Is(err, blob.ErrUnsupported) {
			t.Errorf("SignedURL = %q, %v; want ErrUnsupported", u, err)
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || string(b) != "signed" {
		t.Errorf("GET signed URL = %d %q", res.StatusCode, b)
	}
}

func TestCleanTmp(t *testing.T) {
	s := blobtest.Open(t, blobtest.Dir(t))
	ctx := context.Background()
	// A Put stopped after its temporary object: what a crash leaves.
	if _, err := s.PutBytes(ctx, "org1", "", []byte("kept"), nil); err != nil {
		t.Fatal(err)
	}
	n, err := s.CleanTmp(ctx, time.Now().Add(time.Hour))
	if err != nil || n != 0 {
		t.Errorf("CleanTmp with nothing = %d, %v", n, err)
	}
}

func TestVerify(t *testing.T) {
	data := []byte("openapi: 3.0.0\n")
	sum := sha256.Sum256(data)
	if err := blob.Verify(data, hex.EncodeToString(sum[:])); err != nil {
		t.Fatalf("intact bytes: %v", err)
	}
	damaged := append([]byte(nil), data...)
	damaged[3] ^= 1
	for name, err := range map[string]error{
		"damaged": blob.Verify(damaged, hex.EncodeToString(sum[:])),
		"no sum":  blob.Verify(data, ""),
	} {
		if !errors.Is(err, blob.ErrMismatch) {
			t.Errorf("%s: %v, want ErrMismatch", name, err)
		}
	}
}

// Listing a folder while another replica's purge deletes its blobs: the
// file backend's walk meets a blob that vanished, and List goes on after
// the last key it gave, each kept blob once and in key order.
func TestListWhileBlobsAreDeleted(t *testing.T) {
	s := blobtest.Open(t, blobtest.Dir(t))
	ctx := context.Background()
	var keys []string
	for i := range 600 {
		o, err := s.PutBytes(ctx, "org1", "", []byte(fmt.Sprintf("blob %d", i)), nil)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, o.Key)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 1; i < len(keys); i += 2 { // every other blob goes
			_ = s.Delete(ctx, keys[i])
		}
	}()
	for listing := 0; ; listing++ {
		last := ""
		err := s.List(ctx, "orgs/", func(o blob.Object) error {
			if o.Key <= last {
				return fmt.Errorf("%s listed after %s", o.Key, last)
			}
			last = o.Key
			return nil
		})
		if err != nil {
			t.Fatalf("listing %d: %v", listing, err)
		}
		select {
		case <-done:
			return
		default:
		}
	}
}
