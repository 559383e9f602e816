// Package blobtest starts blob stores for tests: a directory, or a real S3
// protocol server (gofakes3 with its in-memory backend) in the test's
// process.
package blobtest

import (
	"context"
	"net/http/httptest"
	"testing"

	"github.com/docspub/platform/libs/blob"
	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// Bucket is the bucket S3 creates.
const Bucket = "docspub-test"

// Credentials are those S3's URL is opened with (the server checks none).
var Credentials = blob.Options{AccessKeyID: "test-key", SecretAccessKey: "test-secret-key"}

// S3 starts an S3 protocol server with an empty bucket, stopped at the
// test's end, and returns the store's URL.
func S3(t testing.TB) string {
	t.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(Bucket); err != nil {
		t.Fatalf("create bucket: %v", err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	t.Cleanup(srv.Close)
	return "s3://" + Bucket + "?endpoint=" + srv.URL + "&region=us-east-1&use_path_style=true"
}

// Dir returns the URL of a store in a temporary directory.
func Dir(t testing.TB) string {
	t.Helper()
	return "file://" + t.TempDir()
}

// Open opens the store at url (with Credentials), closed at the test's end.
func Open(t testing.TB, url string) *blob.Store {
	t.Helper()
	s, err := blob.Open(context.Background(), url, Credentials)
	if err != nil {
		t.Fatalf("open blob store %s: %v", url, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// Stores opens one store of each backend, by name ("file", "s3").
func Stores(t testing.TB) map[string]*blob.Store {
	t.Helper()
	return map[string]*blob.Store{"file": Open(t, Dir(t)), "s3": Open(t, S3(t))}
}
