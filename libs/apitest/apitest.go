// Package apitest drives an HTTP handler (a gin engine) in handler tests:
// each request carries an internal token minted for a principal and an
// optional JSON body; answers are checked for their status and, by
// operation id, against the contract.
package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/contracttest"
	"github.com/docspub/platform/libs/internaltoken"
)

// Secret is the internal token secret of handler tests.
const Secret = "0123456789abcdef0123456789abcdef-test"

// Service is the service name of Signer: the audience of the tokens a
// Client mints.
const Service = "apitest"

// Signer returns a signer for Secret of the service named Service.
func Signer(t testing.TB) *internaltoken.Signer {
	t.Helper()
	s, err := internaltoken.NewSigner(Service, Secret, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Client sends requests to a handler as principals.
type Client struct {
	t       testing.TB
	handler http.Handler
	signer  *internaltoken.Signer
}

// New returns a client of handler whose tokens signer mints, for signer's
// own service (the one internaltoken.Require(signer) accepts); t is the test
// that Do reports a failure to mint to.
func New(t testing.TB, handler http.Handler, signer *internaltoken.Signer) *Client {
	t.Helper()
	return &Client{t: t, handler: handler, signer: signer}
}

// Response is what the handler answered.
type Response struct {
	Status int
	Body   []byte
	Header http.Header
}

// Decode decodes the JSON body into v.
func (r Response) Decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// NewRequest returns a request with body ("" for none) as JSON.
func NewRequest(method, path, body string) *http.Request {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, r)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// Do sends a request as p and returns the answer. A token that cannot be
// minted fails the client's test (safely from any goroutine) and answers
// status 0.
func (c *Client) Do(p internaltoken.Principal, method, path, body string) Response {
	c.t.Helper()
	tok, err := c.signer.Mint(c.signer.Service(), p)
	if err != nil {
		c.t.Errorf("mint a token for %+v: %v", p, err)
		return Response{}
	}
	req := NewRequest(method, path, body)
	req.Header.Set(internaltoken.Header, tok)
	return c.serve(req)
}

// Anonymous sends a request without an internal token.
func (c *Client) Anonymous(method, path, body string) Response {
	return c.serve(NewRequest(method, path, body))
}

func (c *Client) serve(req *http.Request) Response {
	w := httptest.NewRecorder()
	c.handler.ServeHTTP(w, req)
	return Response{Status: w.Code, Body: w.Body.Bytes(), Header: w.Header()}
}

// Expect sends a request as p and fails t unless the status is status; when
// operationID is set, the body must match the operation in the contract.
func (c *Client) Expect(t testing.TB, p internaltoken.Principal, method, path, body string, status int, operationID string) Response {
	t.Helper()
	r := c.Do(p, method, path, body)
	if r.Status != status {
		t.Fatalf("%s %s as %q: status %d, want %d: %s", method, path, p.UserID, r.Status, status, r.Body)
	}
	if operationID != "" {
		contracttest.ValidateOperation(t, operationID, r.Status, r.Body)
	}
	return r
}

// Row is one request of a table test with the status it must answer.
type Row struct {
	Name   string
	User   string
	Method string
	Path   string
	Body   string
	Want   int
	// Field, when set, must appear in the error message. A 400 names the
	// field at fault first ("title: must be ..."), so "title:" pins it.
	Field string
}

// Run sends every row, in a subtest of its name, as the principal that as
// returns for its user. A row that wants a 4xx or 5xx must answer an error
// body.
func (c *Client) Run(t *testing.T, as func(user string) internaltoken.Principal, rows []Row) {
	t.Helper()
	for _, r := range rows {
		t.Run(r.Name, func(t *testing.T) {
			b := c.Expect(t, as(r.User), r.Method, r.Path, r.Body, r.Want, "").Body
			if r.Want < http.StatusBadRequest && r.Field == "" {
				return
			}
			if msg := ErrorMessage(t, b); !strings.Contains(msg, r.Field) {
				t.Fatalf("error %q does not name %q", msg, r.Field)
			}
		})
	}
}

// Decode decodes a JSON body as a T.
func Decode[T any](t testing.TB, b []byte) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}

// ErrorMessage returns error.message of an error body, failing t when b is
// not one.
func ErrorMessage(t testing.TB, b []byte) string {
	t.Helper()
	var body apierr.Body
	if err := json.Unmarshal(b, &body); err != nil || body.Error.Code == 0 {
		t.Fatalf("not an error body: %s", b)
	}
	return body.Error.Message
}
