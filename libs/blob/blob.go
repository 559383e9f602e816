// Package blob stores file bytes in object storage under content-addressed
// keys, over gocloud.dev/blob chosen by URL:
//
//	s3://bucket?endpoint=http://minio:9000&region=us-east-1&use_path_style=true
//	file:///var/lib/docspub/blobs
//
// An s3 URL takes gocloud's parameters (endpoint, region, use_path_style,
// disable_https, request_checksum_calculation, ...); its credentials come
// from Options or, when those are empty, from the AWS SDK's default chain.
// A file URL keeps the bytes in a directory (created when missing), for a
// local run without any server.
//
// Keys are orgs/<organization>/sha256/<hex of the bytes' SHA-256>: the same
// bytes are stored once per organization and a key never changes meaning.
// Put streams what it stores (bytes beyond a small buffer go to a
// temporary object first, then are copied under their key).
package blob

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	gcaws "gocloud.dev/aws"
	gblob "gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/blob/s3blob"
	"gocloud.dev/gcerrors"
)

// Errors.
var (
	// ErrNotFound is a key the store does not have.
	ErrNotFound = errors.New("blob not found")
	// ErrUnsupported is an operation the backend does not offer (a signed
	// URL of a file backend).
	ErrUnsupported = errors.New("not supported by this blob backend")
	// ErrTooLarge is a Put past its limit.
	ErrTooLarge = errors.New("blob too large")
	// ErrMismatch is bytes that are not the ones their SHA-256 names:
	// damaged in storage or on their way.
	ErrMismatch = errors.New("the bytes are not the ones their SHA-256 names")
)

// TmpPrefix is where Put writes bytes before it knows their hash. What a
// crash leaves there is removed by CleanTmp.
const TmpPrefix = "tmp/"

// smallBytes is how much Put reads into memory before it streams through
// a temporary object instead.
const smallBytes = 1 << 20

// Options are what a URL does not carry.
type Options struct {
	// AccessKeyID and SecretAccessKey are the S3 credentials (both or
	// neither; neither: the AWS SDK's default chain).
	AccessKeyID     string
	SecretAccessKey string
}

// Store is a bucket of content-addressed blobs.
type Store struct {
	b      *gblob.Bucket
	scheme string
}

// Open opens the store at rawURL (s3:// or file://).
func Open(ctx context.Context, rawURL string, o Options) (*Store, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("blob url: %w", err)
	}
	var b *gblob.Bucket
	switch u.Scheme {
	case "file":
		dir := u.Path
		if dir == "" {
			return nil, errors.New("blob url: file:// needs an absolute path")
		}
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("blob dir: %w", err)
		}
		// Temporary files next to their final place: a rename across file
		// systems (a tmpfs /tmp) would fail.
		b, err = fileblob.OpenBucket(dir, &fileblob.Options{Metadata: fileblob.MetadataInSidecar, NoTempDir: true})
	case "s3":
		b, err = openS3(ctx, u, o)
	default:
		return nil, fmt.Errorf("blob url: scheme %q is not s3 or file", u.Scheme)
	}
	if err != nil {
		return nil, fmt.Errorf("open blob store: %w", err)
	}
	return &Store{b: b, scheme: u.Scheme}, nil
}

// openS3 opens an S3 bucket as s3blob's URL opener does, with the
// credentials of o when given.
func openS3(ctx context.Context, u *url.URL, o Options) (*gblob.Bucket, error) {
	if (o.AccessKeyID == "") != (o.SecretAccessKey == "") {
		return nil, errors.New("s3 credentials need both an access key id and a secret access key")
	}
	q := u.Query()
	var s3opts []func(*s3.Options)
	for _, key := range []string{"use_path_style", "disable_https"} {
		v := q.Get(key)
		if v == "" {
			continue
		}
		q.Del(key)
		on, err := strconv.ParseBool(v)
		if err != nil {
			return nil, fmt.Errorf("blob url: %s: %w", key, err)
		}
		if key == "use_path_style" {
			s3opts = append(s3opts, func(so *s3.Options) { so.UsePathStyle = on })
		} else {
			s3opts = append(s3opts, func(so *s3.Options) { so.EndpointOptions.DisableHTTPS = on })
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, err
	}
	if o.AccessKeyID != "" {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(o.AccessKeyID, o.SecretAccessKey, "")
	}
	client := s3.NewFromConfig(cfg, s3opts...)
	return s3blob.OpenBucket(ctx, client, u.Host, &s3blob.Options{RequestChecksumCalculation: cfg.RequestChecksumCalculation})
}

// Close closes the store.
func (s *Store) Close() error { return s.b.Close() }

// Key is the key of bytes of SHA-256 sum (hex) stored for an organization.
func Key(org, sum string) string { return "orgs/" + org + "/sha256/" + sum }

// OrgPrefix is the prefix of an organization's keys.
func OrgPrefix(org string) string { return "orgs/" + org + "/" }

// Sum returns the SHA-256 (hex) a key names, "" for a key of another shape.
func Sum(key string) string {
	i := strings.LastIndex(key, "/sha256/")
	if i < 0 {
		return ""
	}
	sum := key[i+len("/sha256/"):]
	if len(sum) != 64 || strings.Trim(sum, "0123456789abcdef") != "" {
		return ""
	}
	return sum
}

// Verify checks that data's SHA-256 is sum (hex); ErrMismatch otherwise,
// and for no sum (nothing to check against).
func Verify(data []byte, sum string) error {
	got := sha256.Sum256(data)
	if sum == "" || hex.EncodeToString(got[:]) != sum {
		return fmt.Errorf("%w: SHA-256 %x, want %q", ErrMismatch, got, sum)
	}
	return nil
}

// Object is a stored blob.
type Object struct {
	Key     string
	SHA256  string // hex
	Size    int64
	ModTime time.Time
}

// Put stores what r yields for org (at most max bytes; ErrTooLarge past
// them) under its content address. Before the bytes are written under
// their key, claim is called with the object (nil: none): the caller
// records the blob (and may refuse it, an error Put returns). The bytes
// are written whether the key exists or not (the same bytes again), so
// that a key claimed after a concurrent removal is whole again.
func (s *Store) Put(ctx context.Context, org, contentType string, r io.Reader, max int64, claim func(Object) error) (Object, error) {
	head, err := io.ReadAll(io.LimitReader(r, min(smallBytes, max)+1))
	if err != nil {
		return Object{}, err
	}
	if int64(len(head)) > max {
		return Object{}, ErrTooLarge
	}
	if len(head) <= smallBytes {
		return s.PutBytes(ctx, org, contentType, head, claim)
	}
	return s.putStream(ctx, org, contentType, io.MultiReader(bytes.NewReader(head), r), max, claim)
}

// PutBytes is Put of bytes at hand.
func (s *Store) PutBytes(ctx context.Context, org, contentType string, data []byte, claim func(Object) error) (Object, error) {
	sum := sha256.Sum256(data)
	o := Object{SHA256: hex.EncodeToString(sum[:]), Size: int64(len(data))}
	o.Key = Key(org, o.SHA256)
	if claim != nil {
		if err := claim(o); err != nil {
			return Object{}, err
		}
	}
	if err := s.b.WriteAll(ctx, o.Key, data, &gblob.WriterOptions{ContentType: contentType}); err != nil {
		return Object{}, fmt.Errorf("write blob %s: %w", o.Key, err)
	}
	return o, nil
}

// putStream writes r to a temporary object while hashing it, then copies
// it under its key.
func (s *Store) putStream(ctx context.Context, org, contentType string, r io.Reader, max int64, claim func(Object) error) (_ Object, err error) {
	var nonce [12]byte
	_, _ = rand.Read(nonce[:])
	tmp := TmpPrefix + hex.EncodeToString(nonce[:])
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := s.b.NewWriter(wctx, tmp, &gblob.WriterOptions{ContentType: contentType})
	if err != nil {
		return Object{}, fmt.Errorf("write blob: %w", err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), io.LimitReader(r, max+1))
	if err == nil && n > max {
		err = ErrTooLarge
	}
	if err != nil {
		cancel() // a cancelled writer stores nothing
		_ = w.Close()
		return Object{}, err
	}
	if err := w.Close(); err != nil {
		return Object{}, fmt.Errorf("write blob: %w", err)
	}
	defer func() {
		_ = s.b.Delete(context.WithoutCancel(ctx), tmp)
	}()
	o := Object{SHA256: hex.EncodeToString(h.Sum(nil)), Size: n}
	o.Key = Key(org, o.SHA256)
	if claim != nil {
		if err := claim(o); err != nil {
			return Object{}, err
		}
	}
	if err := s.b.Copy(ctx, o.Key, tmp, nil); err != nil {
		return Object{}, fmt.Errorf("copy blob to %s: %w", o.Key, err)
	}
	// The copy is the backend's: its bytes are read back and checked
	// against the key (PutBytes writes the very bytes it hashed).
	if err := s.check(ctx, o); err != nil {
		return Object{}, err
	}
	return o, nil
}

// check reads a stored blob back and checks its size and SHA-256 against o.
func (s *Store) check(ctx context.Context, o Object) error {
	r, err := s.NewRangeReader(ctx, o.Key, 0, -1)
	if err != nil {
		return err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(r, o.Size+1))
	if err != nil {
		return fmt.Errorf("read back blob %s: %w", o.Key, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != o.Size || got != o.SHA256 {
		return fmt.Errorf("%w: blob %s reads back as %d bytes of SHA-256 %s", ErrMismatch, o.Key, n, got)
	}
	return nil
}

// Attributes are a stored blob's size, type and time.
type Attributes struct {
	Size        int64
	ContentType string
	ModTime     time.Time
}

// Attributes reads a blob's attributes; ErrNotFound when missing.
func (s *Store) Attributes(ctx context.Context, key string) (Attributes, error) {
	a, err := s.b.Attributes(ctx, key)
	if err != nil {
		return Attributes{}, s.err(err, key)
	}
	return Attributes{Size: a.Size, ContentType: a.ContentType, ModTime: a.ModTime}, nil
}

// Exists tells whether key is stored.
func (s *Store) Exists(ctx context.Context, key string) (bool, error) {
	return s.b.Exists(ctx, key)
}

// NewRangeReader reads length bytes (-1: to the end) of a blob from
// offset; ErrNotFound when missing.
func (s *Store) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, error) {
	r, err := s.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, s.err(err, key)
	}
	return r, nil
}

// Open opens a blob of size bytes for reading and seeking: each read after
// a seek asks the backend for a range from there on (http.ServeContent
// serves a Range so without reading the rest).
func (s *Store) Open(ctx context.Context, key string, size int64) (io.ReadSeekCloser, error) {
	if size < 0 {
		a, err := s.Attributes(ctx, key)
		if err != nil {
			return nil, err
		}
		size = a.Size
	}
	rs := &seeker{s: s, ctx: ctx, key: key, size: size}
	// Open now: a missing blob is an error here, not at the first read.
	if err := rs.open(); err != nil {
		return nil, err
	}
	return rs, nil
}

// Delete removes a blob; a missing one is no error.
func (s *Store) Delete(ctx context.Context, key string) error {
	err := s.b.Delete(ctx, key)
	if err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return fmt.Errorf("delete blob %s: %w", key, err)
	}
	return nil
}

// List calls fn with each blob under prefix, in key order, until fn
// returns an error (which List returns). A blob deleted while a file
// backend walks its folder (another replica's purge) fails the walk with
// NotFound: the listing starts again after the last key it gave. It gives
// up after maxListRestarts walks in a row that gave no new key; a walk
// that gave one moves the listing on. The file backend reads the size and
// time of every file of a page (1,000) before it gives the first, so
// while another replica deletes hundreds of blobs each walk may fail
// before giving any: five walks in all failed TestListWhileBlobsAreDeleted
// in 9 of 10 runs, ten in a row in 1 of 30, fifty in none of 30. A walk
// of the file backend is one folder read and a stat per file.
func (s *Store) List(ctx context.Context, prefix string, fn func(Object) error) error {
	after := ""
	for restarts := 0; ; restarts++ {
		before := after
		err := s.listAfter(ctx, prefix, after, func(o Object) error {
			after = o.Key
			return fn(o)
		})
		var walk listError
		if !errors.As(err, &walk) {
			return err // nil, or fn's error
		}
		if after != before {
			restarts = 0
		}
		if gcerrors.Code(walk.err) != gcerrors.NotFound || restarts == maxListRestarts || ctx.Err() != nil {
			return fmt.Errorf("list blobs under %s: %w", prefix, walk.err)
		}
	}
}

// maxListRestarts bounds List's walks again, in a row, that gave no new
// key after a blob vanished.
const maxListRestarts = 50

// listError is an error of the listing itself, not of List's fn.
type listError struct{ err error }

func (e listError) Error() string { return e.err.Error() }

// listAfter is one listing of List: the blobs under prefix with keys
// after after ("" for all).
func (s *Store) listAfter(ctx context.Context, prefix, after string, fn func(Object) error) error {
	it := s.b.List(&gblob.ListOptions{Prefix: prefix})
	for {
		o, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return listError{err}
		}
		if o.IsDir || strings.HasSuffix(o.Key, ".tmp") || o.Key <= after && after != "" { // a directory, a file backend's write in progress, or given before
			continue
		}
		if err := fn(Object{Key: o.Key, SHA256: Sum(o.Key), Size: o.Size, ModTime: o.ModTime}); err != nil {
			return err
		}
	}
}

// CleanTmp removes the temporary objects of Puts that stopped before
// copying them (last written before cutoff) and returns how many.
func (s *Store) CleanTmp(ctx context.Context, cutoff time.Time) (int, error) {
	var stale []string
	err := s.List(ctx, TmpPrefix, func(o Object) error {
		if o.ModTime.Before(cutoff) {
			stale = append(stale, o.Key)
		}
		return nil
	})
	for _, k := range stale {
		if err := s.Delete(ctx, k); err != nil {
			return 0, err
		}
	}
	return len(stale), err
}

// SignedURL returns a URL that reads a blob for ttl without credentials
// (S3 backends); ErrUnsupported for the others.
func (s *Store) SignedURL(ctx context.Context, key string, ttl time.Duration, contentType, disposition string) (string, error) {
	if s.scheme != "s3" {
		return "", ErrUnsupported
	}
	opts := &gblob.SignedURLOptions{Expiry: ttl, Method: "GET"}
	if contentType != "" || disposition != "" {
		opts.BeforeSign = func(as func(any) bool) error {
			var in *s3.GetObjectInput
			if as(&in) {
				if contentType != "" {
					in.ResponseContentType = aws.String(contentType)
				}
				if disposition != "" {
					in.ResponseContentDisposition = aws.String(disposition)
				}
			}
			return nil
		}
	}
	u, err := s.b.SignedURL(ctx, key, opts)
	if err != nil {
		return "", fmt.Errorf("sign blob %s: %w", key, err)
	}
	return u, nil
}

// err translates a backend error.
func (s *Store) err(err error, key string) error {
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%s: %w", key, ErrNotFound)
	}
	return fmt.Errorf("blob %s: %w", key, err)
}

// seeker reads a blob from its offset, reopening a range after a seek.
type seeker struct {
	s    *Store
	ctx  context.Context
	key  string
	size int64
	off  int64
	r    io.ReadCloser // open at roff, or nil
	roff int64
}

func (r *seeker) open() error {
	rc, err := r.s.NewRangeReader(r.ctx, r.key, r.off, -1)
	if err != nil {
		return err
	}
	r.r, r.roff = rc, r.off
	return nil
}

func (r *seeker) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.r != nil && r.roff != r.off { // seeked away: a range from here
		_ = r.r.Close()
		r.r = nil
	}
	if r.r == nil {
		if err := r.open(); err != nil {
			return 0, err
		}
	}
	n, err := r.r.Read(p)
	r.off += int64(n)
	r.roff = r.off
	return n, err
}

func (r *seeker) Seek(offset int64, whence int) (int64, error) {
	var abs int64
	switch whence {
	case io.SeekStart:
		abs = offset
	case io.SeekCurrent:
		abs = r.off + offset
	case io.SeekEnd:
		abs = r.size + offset
	default:
		return 0, errors.New("blob: bad whence")
	}
	if abs < 0 {
		return 0, errors.New("blob: negative position")
	}
	r.off = abs // the open range is closed at the next read if it is elsewhere
	return abs, nil
}

func (r *seeker) Close() error {
	if r.r == nil {
		return nil
	}
	err := r.r.Close()
	r.r = nil
	return err
}
