// Package internalclient is how a platform service calls another one's
// API: it finds the peer through discovery, mints an internal token for
// that peer alone (the audience), carries the trace context along
// (OpenTelemetry), bounds each call in time and the answers it reads in
// bytes, and turns a peer's failure into an apierr value with our own
// message: a peer's error text speaks for the peer and never reaches our
// clients (it is kept for the log, see Error).
//
//	c := internalclient.New("content", resolver, signer, 10*time.Second)
//	err := c.Do(ctx, internalclient.Request{Method: "GET", Path: "/internal/v1/spaces/" + id + "/current"}, &cur, 4096)
//
// Send is for answers read as a stream (file bytes, a tar archive): it
// returns the response whatever its status, and the call's time bound
// ends when its body is closed.
package internalclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/libs/discovery"
	"github.com/docspub/platform/libs/internaltoken"
	"github.com/docspub/platform/libs/otelx"
)

// RetryAfter is the Retry-After of a 503 when a peer does not answer.
const RetryAfter = 5 * time.Second

// maxProblem bounds what is read of a peer's error answer (for the log).
const maxProblem = 512

// Client calls one peer service.
type Client struct {
	peer     string
	resolver discovery.Resolver
	signer   *internaltoken.Signer
	http     *http.Client
	timeout  time.Duration
}

// New returns a client of the service named peer (its name in discovery
// and the audience of the tokens it mints), found through resolver, whose
// tokens signer mints (the calling service's). timeout bounds a call that
// names none (Request.Timeout).
func New(peer string, resolver discovery.Resolver, signer *internaltoken.Signer, timeout time.Duration) *Client {
	return &Client{peer: peer, resolver: resolver, signer: signer, timeout: timeout,
		http: &http.Client{Transport: otelx.HTTPTransport(transport)}}
}

// transport is every client's connection pool: a short dial timeout, so
// that a peer that is down answers fast, and idle connections enough per
// peer for a service's concurrent calls (http.DefaultTransport keeps two,
// so a burst of calls would dial anew each time). Peers answer in
// plain text; a call never asks for gzip on its own.
var transport = &http.Transport{
	Proxy:                 nil,
	DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	MaxIdleConns:          512,
	MaxIdleConnsPerHost:   64,
	IdleConnTimeout:       90 * time.Second,
	ExpectContinueTimeout: time.Second,
	DisableCompression:    true,
}

// Peer is the name of the service the client calls.
func (c *Client) Peer() string { return c.peer }

// Service is the calling principal of a call made by the service itself
// (no user).
func (c *Client) Service() internaltoken.Principal {
	return internaltoken.Principal{Service: c.signer.Service()}
}

// For is the calling principal of a call made for a user with roles: the
// peer sees both the user and the calling service.
func (c *Client) For(userID string, roles map[string]string) internaltoken.Principal {
	return internaltoken.Principal{UserID: userID, Roles: roles, Service: c.signer.Service()}
}

// Request is one call.
type Request struct {
	Method string
	// Path is the path and query from the peer's root, segments escaped.
	Path string
	// As is who calls; nil is the calling service alone (Client.Service).
	As *internaltoken.Principal
	// JSON, when not nil, is sent as the JSON body; else Body with
	// ContentType (nil: no body).
	JSON        any
	Body        io.Reader
	ContentType string
	// Header is added to the request (Range, If-None-Match).
	Header http.Header
	// Timeout bounds the call, its answer's body included (0: the client's).
	Timeout time.Duration
	// What names the thing asked about in our messages ("space", "file");
	// "" is "resource".
	What string
}

func (r Request) what() string {
	if r.What == "" {
		return "resource"
	}
	return r.What
}

// Send makes the call and returns the peer's response, whatever its
// status; the caller closes the body, which ends the call's time bound. A
// peer that cannot be found or reached is a 503 (Unavailable); the
// caller's own context ending is its error.
func (c *Client) Send(ctx context.Context, r Request) (*http.Response, error) {
	base, err := c.resolver.Resolve(ctx, c.peer)
	if err != nil {
		return nil, c.unavailable(fmt.Errorf("find %s: %w", c.peer, err))
	}
	as := c.Service()
	if r.As != nil {
		as = *r.As
	}
	tok, err := c.signer.Mint(c.peer, as)
	if err != nil {
		return nil, fmt.Errorf("mint internal token for %s: %w", c.peer, err)
	}
	body, ct := r.Body, r.ContentType
	if r.JSON != nil {
		raw, err := json.Marshal(r.JSON)
		if err != nil {
			return nil, fmt.Errorf("encode request to %s: %w", c.peer, err)
		}
		body, ct = bytes.NewReader(raw), "application/json"
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = c.timeout
	}
	callCtx, cancel := context.WithCancel(ctx)
	if timeout > 0 {
		callCtx, cancel = context.WithTimeout(ctx, timeout)
	}
	req, err := http.NewRequestWithContext(callCtx, r.Method, base+r.Path, body)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("build request to %s: %w", c.peer, err)
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	req.Header.Set(internaltoken.Header, tok)
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	res, err := c.http.Do(req)
	if err != nil {
		cancel()
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, c.unavailable(err)
	}
	res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: cancel}
	return res, nil
}

// cancelOnClose ends a call's context when its body is closed.
type cancelOnClose struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// Do makes the call and, when the peer answers 2xx, decodes its JSON answer
// into out (nil: the answer is dropped), reading at most max bytes of it. A
// peer's other answer is an *Error (Problem); an answer larger than max, or
// not JSON, is a 503: the peer does not answer what we can use.
func (c *Client) Do(ctx context.Context, r Request, out any, max int64) error {
	res, err := c.Send(ctx, r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return c.Problem(res, r.what())
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, max))
		return nil
	}
	if res.ContentLength > max {
		return c.unavailable(fmt.Errorf("%w: %s's answer has %d bytes, more than the %d read", ErrTooLarge, c.peer, res.ContentLength, max))
	}
	lr := &io.LimitedReader{R: res.Body, N: max + 1}
	if err := json.NewDecoder(lr).Decode(out); err != nil {
		if lr.N <= 0 {
			return c.unavailable(fmt.Errorf("%w: %s's answer has more than the %d bytes read", ErrTooLarge, c.peer, max))
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return c.unavailable(fmt.Errorf("decode %s's answer: %w", c.peer, err))
	}
	return nil
}

// ErrTooLarge is in the chain of an error of Do whose answer is larger
// than the caller reads (a 503 unless the caller says otherwise).
var ErrTooLarge = errors.New("answer larger than read")

func (c *Client) unavailable(cause error) error {
	return &Error{Peer: c.peer, Status: 0, Detail: cause.Error(), cause: cause,
		ours: apierr.Unavailable(RetryAfter, "%s service unavailable", c.peer)}
}

// Error is a peer's answer other than a success, or the peer not
// answering (Status 0). It unwraps to our own apierr value (what our
// clients see: errors.Is(err, apierr.ErrNotFound) holds for a peer's 404);
// Detail keeps what the peer said, for the log only.
type Error struct {
	Peer   string
	Status int    // the peer's status; 0 when it did not answer
	Detail string // the peer's message or the failure, never shown to clients
	ours   *apierr.Error
	cause  error // the failure when the peer did not answer as it should
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s (%s)", e.ours.Message, e.Detail)
	}
	return fmt.Sprintf("%s (%s answered %d: %s)", e.ours.Message, e.Peer, e.Status, e.Detail)
}

// Unwrap is our own error, and the failure behind it when there is one.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.ours, e.cause}
	}
	return []error{e.ours}
}

// StatusOf is the status a peer answered with when err is its *Error, 0
// otherwise (the peer did not answer, or another failure).
func StatusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return 0
}

// Problem reads a peer's answer other than a success (and closes nothing:
// the caller closes the body) and returns it as an *Error: a 4xx about what
// keeps its status with our message about what; a refused token (401), a
// 5xx and anything else is a 503, the peer being unable to serve us.
func (c *Client) Problem(res *http.Response, what string) error {
	raw, _ := io.ReadAll(io.LimitReader(res.Body, maxProblem))
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 1<<16))
	detail := string(raw)
	var body apierr.Body
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		detail = body.Error.Message
	}
	e := &Error{Peer: c.peer, Status: res.StatusCode, Detail: detail}
	switch s := res.StatusCode; {
	case s == http.StatusBadRequest:
		e.ours = apierr.BadRequest("the %s service refused the request for the %s as invalid", c.peer, what)
	case s == http.StatusForbidden:
		e.ours = apierr.Forbidden("no access to the %s", what)
	case s == http.StatusNotFound:
		e.ours = apierr.NotFound("%s not found", what)
	case s == http.StatusConflict:
		e.ours = apierr.Conflict("the %s changed meanwhile", what)
	case s == http.StatusGone:
		e.ours = apierr.New(s, "the %s is gone", what)
	case s == http.StatusRequestEntityTooLarge:
		e.ours = apierr.TooLarge("the %s is larger than the %s service accepts", what, c.peer)
	case s == http.StatusRequestedRangeNotSatisfiable:
		e.ours = apierr.New(s, "the range is not satisfiable")
	case s >= 400 && s < 500 && s != http.StatusUnauthorized && s != http.StatusTooManyRequests:
		e.ours = apierr.New(s, "the %s service refused the request for the %s (it answered %d)", c.peer, what, s)
	default:
		retry := RetryAfter
		if d, err := time.ParseDuration(res.Header.Get("Retry-After") + "s"); err == nil && d > 0 && d < time.Minute {
			retry = d
		}
		e.ours = apierr.Unavailable(retry, "%s service unavailable", c.peer)
	}
	return e
}
