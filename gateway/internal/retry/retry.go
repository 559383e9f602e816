// Package retry is the gateway's transport to the services: it sends a
// request once more, to another instance, when its first attempt failed
// in a way that repeating cannot harm.
package retry

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
)

// Transport sends a request once more, to the instance discovery names
// then (another, once the first left it), when its first attempt failed
// before anything was sent (the connection refused: a replica that died
// or is stopping) or, for a request that repeating cannot change (GET,
// HEAD, OPTIONS without a body), when its connection was reset before an
// answer: a replica killed or restarted between two requests costs the
// client nothing. A request whose answer started is never sent again.
type Transport struct {
	// Next sends each attempt.
	Next http.RoundTripper
	// Resolve names an instance of the service the request of ctx is
	// for; ok is false for a request that is not to be sent again.
	Resolve func(ctx context.Context) (target *url.URL, ok bool, err error)
}

// RoundTrip sends req, and once more when its first attempt failed so.
func (t Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil && req.Body != http.NoBody {
		// The transport closes a request's body when it fails; the body of
		// a request whose dial failed is unread and goes again. The server
		// closes the client's body once the handler returns.
		req.Body = keepOpen{req.Body}
	}
	resp, err := t.Next.RoundTrip(req)
	if err == nil || !retryable(req, err) || req.Context().Err() != nil {
		return resp, err
	}
	again, ok := t.another(req)
	if !ok {
		return resp, err
	}
	return t.Next.RoundTrip(again)
}

// another is req addressed to an instance of its service other than the
// one that failed, when discovery names one within a few tries.
func (t Transport) another(req *http.Request) (*http.Request, bool) {
	for range 3 {
		target, ok, err := t.Resolve(req.Context())
		if err != nil || !ok {
			return nil, false
		}
		if target.Host == req.URL.Host {
			continue
		}
		again := req.Clone(req.Context())
		again.URL.Scheme, again.URL.Host, again.Host = target.Scheme, target.Host, target.Host
		return again, true
	}
	return nil, false
}

// retryable: nothing of req was sent (a refused or failed dial: its body
// was not read either), or req is a read without a body whose connection
// was reset or closed before its answer.
func retryable(req *http.Request, err error) bool {
	var op *net.OpError
	if errors.As(err, &op) && op.Op == "dial" {
		return true
	}
	read := req.Method == http.MethodGet || req.Method == http.MethodHead || req.Method == http.MethodOptions
	noBody := req.Body == nil || req.Body == http.NoBody || req.ContentLength == 0
	return read && noBody && (errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
}

// keepOpen is a body the transport's Close leaves open.
type keepOpen struct{ io.Reader }

func (keepOpen) Close() error { return nil }
