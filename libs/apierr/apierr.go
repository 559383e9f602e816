// Package apierr defines the errors that reach API clients and how they map to
// the wire body {"error":{"code":<status>,"message":"..."}}.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Kinds: the common outcomes, one per status. errors.Is(err, ErrBadRequest)
// holds for every 400 (Invalid, BadRequest, Problems), errors.Is(err, ErrNotFound)
// holds for every not-found error, whatever its message; they are the only
// values compared by status. Stores wrap them with %w; the HTTP edge turns
// every *Error into its status.
var (
	ErrBadRequest   = &Error{Status: http.StatusBadRequest, Message: "bad request"}
	ErrNotFound     = &Error{Status: http.StatusNotFound, Message: "not found"}
	ErrConflict     = &Error{Status: http.StatusConflict, Message: "conflict"}
	ErrForbidden    = &Error{Status: http.StatusForbidden, Message: "forbidden"}
	ErrUnauthorized = &Error{Status: http.StatusUnauthorized, Message: "unauthorized"}
)

// ErrChanged is the one conflict of every read-modify-write (a 409): the
// document changed between its read and its write, again after the
// store's retry, and nothing was written. Changed returns it naming the
// resource; errors.Is(err, ErrChanged) holds for each.
var ErrChanged = &Error{Status: http.StatusConflict, Message: "changed meanwhile; read it again and retry"}

// Changed returns ErrChanged naming the resource: "the space changed
// meanwhile; read it again and retry".
func Changed(resource string) *Error {
	return &Error{Status: http.StatusConflict, Message: "the " + resource + " changed meanwhile; read it again and retry", Kind: ErrChanged}
}

// kinds are the values that Is compares by status.
var kinds = [...]*Error{ErrBadRequest, ErrNotFound, ErrConflict, ErrForbidden, ErrUnauthorized}

// Error is an error whose message is safe to show to a client. A domain's
// sentinel of this type (ErrTeamNotFound) is its own value: errors.Is tells
// it from every other error of the same status.
type Error struct {
	Status  int
	Message string
	// Field names the request field at fault, when there is one.
	Field string
	// RetryAfter, when set, is sent as the Retry-After header (429, 503).
	RetryAfter time.Duration
	// Kind, when set, is a sentinel e also is (ErrChanged for Changed).
	Kind *Error
}

func (e *Error) Error() string { return e.Message }

// Is reports whether e is target, or target is the kind (ErrBadRequest,
// ErrNotFound, ErrConflict, ErrForbidden, ErrUnauthorized) of e's status. Two domain
// errors are never each other because they share a status:
// errors.Is(ErrTeamNotFound, ErrMemberNotFound) is false.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t == e || (e.Kind != nil && t == e.Kind) {
		return true
	}
	for _, k := range kinds {
		if t == k {
			return t.Status == e.Status
		}
	}
	return false
}

// New returns an error with the given status and message.
func New(status int, format string, args ...any) *Error {
	return &Error{Status: status, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns a 400 naming the field at fault: "title: must be at most 50 characters".
func Invalid(field, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	if field != "" {
		msg = field + ": " + msg
	}
	return &Error{Status: http.StatusBadRequest, Message: msg, Field: field}
}

// BadRequest returns a 400 not tied to one field.
func BadRequest(format string, args ...any) *Error {
	return New(http.StatusBadRequest, format, args...)
}

// NotFound returns a 404: "space not found".
func NotFound(format string, args ...any) *Error { return New(http.StatusNotFound, format, args...) }

// Forbidden returns a 403.
func Forbidden(format string, args ...any) *Error { return New(http.StatusForbidden, format, args...) }

// Conflict returns a 409.
func Conflict(format string, args ...any) *Error { return New(http.StatusConflict, format, args...) }

// Unauthorized returns a 401.
func Unauthorized(format string, args ...any) *Error {
	return New(http.StatusUnauthorized, format, args...)
}

// TooLarge returns a 413: a request or the change it asks for is over a limit.
func TooLarge(format string, args ...any) *Error {
	return New(http.StatusRequestEntityTooLarge, format, args...)
}

// TooMany returns a 429 that asks the client to retry after retry.
func TooMany(retry time.Duration, format string, args ...any) *Error {
	e := New(http.StatusTooManyRequests, format, args...)
	e.RetryAfter = retry
	return e
}

// Unavailable returns a 503 that asks the client to retry after retry.
func Unavailable(retry time.Duration, format string, args ...any) *Error {
	e := New(http.StatusServiceUnavailable, format, args...)
	e.RetryAfter = retry
	return e
}

// RetryAfterOf returns the RetryAfter of err's *Error, 0 when none.
func RetryAfterOf(err error) time.Duration {
	var e *Error
	if errors.As(err, &e) {
		return e.RetryAfter
	}
	return 0
}

// Body is the wire shape of an error.
type Body struct {
	Error BodyError `json:"error"`
}

// BodyError is the inner object of Body.
type BodyError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// ToBody maps any error to its wire body. Errors that are not *Error become a
// 500 with a generic message; the caller logs the real one.
func ToBody(err error) Body {
	var e *Error
	if errors.As(err, &e) {
		return Body{Error: BodyError{Code: e.Status, Message: e.Message}}
	}
	return Body{Error: BodyError{Code: http.StatusInternalServerError, Message: "internal error"}}
}
