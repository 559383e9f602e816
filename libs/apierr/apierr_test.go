package apierr_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/google/go-cmp/cmp"
)

func TestToBody(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want apierr.Body
	}{
		{"not found", apierr.NotFound("space %s not found", "s1"), body(404, "space s1 not found")},
		{"wrapped", fmt.Errorf("load space: %w", apierr.Forbidden("no access")), body(403, "no access")},
		{"invalid field", apierr.Invalid("title", "must be at most %d characters", 50), body(400, "title: must be at most 50 characters")},
		{"invalid without field", apierr.Invalid("", "bad"), body(400, "bad")},
		{"sentinel", apierr.ErrConflict, body(409, "conflict")},
		{"unauthorized", apierr.Unauthorized("token expired"), body(401, "token expired")},
		{"bad request", apierr.BadRequest("malformed"), body(400, "malformed")},
		{"custom status", apierr.New(http.StatusTooManyRequests, "slow down"), body(429, "slow down")},
		{"internal", errors.New("dial tcp 10.0.0.3:27017: connection refused"), body(500, "internal error")},
		{"wrapped internal", fmt.Errorf("store: %w", errors.New("secret detail")), body(500, "internal error")},
		{"nil", nil, body(500, "internal error")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := apierr.ToBody(tc.err)
			if diff := cmp.Diff(got, tc.want); diff != "" {
				t.Errorf("ToBody(%v) (-got +want):\n%s", tc.err, diff)
			}
		})
	}
}

func body(code int, msg string) apierr.Body {
	return apierr.Body{Error: apierr.BodyError{Code: code, Message: msg}}
}

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		target error
		want   bool
	}{
		{"same status", apierr.NotFound("space not found"), apierr.ErrNotFound, true},
		{"wrapped", fmt.Errorf("get: %w", apierr.Conflict("slug taken")), apierr.ErrConflict, true},
		{"other status", apierr.NotFound("x"), apierr.ErrConflict, false},
		{"forbidden", apierr.Forbidden("x"), apierr.ErrForbidden, true},
		{"unauthorized", apierr.Unauthorized("x"), apierr.ErrUnauthorized, true},
		{"plain error", errors.New("not found"), apierr.ErrNotFound, false},
		{"plain target", apierr.NotFound("x"), errors.New("x"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errors.Is(tc.err, tc.target); got != tc.want {
				t.Errorf("errors.Is(%v, %v) = %v, want %v", tc.err, tc.target, got, tc.want)
			}
		})
	}
}

func TestInvalidNamesField(t *testing.T) {
	err := apierr.Invalid("title", "must not be empty")
	var e *apierr.Error
	if !errors.As(err, &e) {
		t.Fatalf("Invalid returned %T", err)
	}
	got := *e
	want := apierr.Error{Status: 400, Message: "title: must not be empty", Field: "title"}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("Invalid (-got +want):\n%s", diff)
	}
	if !apierr.IsInvalid(fmt.Errorf("create: %w", err)) {
		t.Errorf("IsInvalid(wrapped Invalid) = false")
	}
	if apierr.IsInvalid(apierr.NotFound("x")) || apierr.IsInvalid(errors.New("x")) {
		t.Errorf("IsInvalid is true for an error that is not a 400")
	}
}

func TestProblems(t *testing.T) {
	slug := regexp.MustCompile(`^[a-z0-9-]+$`)
	for _, tc := range []struct {
		name      string
		check     func(p *apierr.Problems)
		wantMsg   string // "" for no error
		wantField string
	}{
		{"none", func(p *apierr.Problems) {
			p.Length("title", "ok", 1, 10)
			p.Pattern("slug", "a-b", slug)
			p.OneOf("role", "admin", "admin", "read")
		}, "", ""},
		{"empty", func(p *apierr.Problems) { p.Length("title", "", 1, 10) }, "title: must not be empty", "title"},
		{"too short", func(p *apierr.Problems) { p.Length("title", "ab", 3, 10) }, "title: must be at least 3 characters", "title"},
		{"too long", func(p *apierr.Problems) { p.Length("title", "abcd", 1, 3) }, "title: must be at most 3 characters", "title"},
		{"characters not bytes", func(p *apierr.Problems) { p.Length("title", "ééé", 1, 3) }, "", ""},
		{"no upper bound", func(p *apierr.Problems) { p.Length("body", string(make([]byte, 5000)), 0, -1) }, "", ""},
		{"pattern", func(p *apierr.Problems) { p.Pattern("slug", "A B", slug) }, "slug: must match ^[a-z0-9-]+$", "slug"},
		{"one of", func(p *apierr.Problems) { p.OneOf("role", "owner", "admin", "read") }, "role: must be one of [admin read]", "role"},
		{"all at once", func(p *apierr.Problems) {
			p.Length("title", "", 1, 10)
			p.Pattern("slug", "A B", slug)
			p.Add("emoji", "is not an emoji")
		}, "title: must not be empty; slug: must match ^[a-z0-9-]+$; emoji: is not an emoji", "title"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p apierr.Problems
			tc.check(&p)
			err := p.Err()
			if tc.wantMsg == "" {
				if err != nil || p.Len() != 0 {
					t.Fatalf("Err() = %v (Len %d), want nil", err, p.Len())
				}
				return
			}
			var e *apierr.Error
			if !errors.As(err, &e) {
				t.Fatalf("Err() = %v, want an *apierr.Error", err)
			}
			got := *e
			want := apierr.Error{Status: 400, Message: tc.wantMsg, Field: tc.wantField}
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("Err() (-got +want):\n%s", diff)
			}
		})
	}
}
