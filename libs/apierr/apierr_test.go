package apierr_test

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

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
		{"changed", apierr.Changed("custom field"), body(409, "the custom field changed meanwhile; read it again and retry")},
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

// Two domain sentinels of one status, as identity declares them.
var (
	errTeamNotFound   = apierr.NotFound("team not found")
	errMemberNotFound = apierr.NotFound("member not found")
)

func problems(field, msg string) error {
	var p apierr.Problems
	p.Add(field, "%s", msg)
	return p.Err()
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
		{"invalid", apierr.Invalid("title", "must not be empty"), apierr.ErrBadRequest, true},
		{"problems", problems("a", "bad"), apierr.ErrBadRequest, true},
		{"domain sentinels of one status", errTeamNotFound, errMemberNotFound, false},
		{"domain sentinel itself", fmt.Errorf("load: %w", errTeamNotFound), errTeamNotFound, true},
		{"domain sentinel is its kind", errTeamNotFound, apierr.ErrNotFound, true},
		{"kind is no domain sentinel", apierr.ErrNotFound, errTeamNotFound, false},
		{"same message, other value", apierr.NotFound("team not found"), errTeamNotFound, false},
		{"changed is ErrChanged", fmt.Errorf("update: %w", apierr.Changed("space")), apierr.ErrChanged, true},
		{"changed is a conflict", apierr.Changed("space"), apierr.ErrConflict, true},
		{"a conflict is not changed", apierr.Conflict("slug taken"), apierr.ErrChanged, false},
		{"changed of other resources", apierr.Changed("space"), apierr.Changed("space"), false},
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

func TestText(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantMsg string
		segment           bool
	}{
		{name: "plain", in: "Getting started"},
		{name: "emoji with joiner", in: "Team 👩‍💻"},
		{name: "accents", in: "Données"},
		{name: "NUL", in: "a\x00b", wantMsg: "title: must not contain NUL"},
		{name: "newline", in: "a\nb", wantMsg: "title: must not contain the control character U+000A"},
		{name: "escape", in: "a\x1b[31m", wantMsg: "title: must not contain the control character U+001B"},
		{name: "C1 control", in: "a\u0085", wantMsg: "title: must not contain the control character U+0085"},
		{name: "right-to-left override", in: "txt\u202Eexe.pdf", wantMsg: "title: must not contain the invisible format character U+202E"},
		{name: "isolate", in: "\u2066x\u2069", wantMsg: "title: must not contain the invisible format character U+2066"},
		{name: "byte-order mark", in: "\uFEFFx", wantMsg: "title: must not contain the invisible format character U+FEFF"},
		{name: "invalid UTF-8", in: "a\xffb", wantMsg: "title: must be valid UTF-8"},
		{name: "empty", in: "", wantMsg: "title: must not be empty"},
		{name: "segment ok", in: "api-v2", segment: true},
		{name: "dot", in: ".", segment: true, wantMsg: `title: must not be "." or ".."`},
		{name: "dot dot", in: "..", segment: true, wantMsg: `title: must not be "." or ".."`},
		{name: "slash", in: "a/b", segment: true, wantMsg: "title: must not contain a slash or a backslash"},
		{name: "backslash", in: `a\b`, segment: true, wantMsg: "title: must not contain a slash or a backslash"},
		{name: "segment bidi", in: "a\u202Db", segment: true, wantMsg: "title: must not contain the invisible format character U+202D"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p apierr.Problems
			if tc.segment {
				p.Segment("title", tc.in, 1, 20)
			} else {
				p.Text("title", tc.in, 1, 20)
			}
			got := ""
			if err := p.Err(); err != nil {
				got = err.Error()
			}
			if got != tc.wantMsg {
				t.Errorf("check(%q) = %q, want %q", tc.in, got, tc.wantMsg)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	err := fmt.Errorf("render: %w", apierr.TooMany(3*time.Second, "busy"))
	if got := apierr.RetryAfterOf(err); got != 3*time.Second {
		t.Errorf("RetryAfterOf = %v, want 3s", got)
	}
	if got := apierr.ToBody(err); got.Error.Code != 429 {
		t.Errorf("status = %d, want 429", got.Error.Code)
	}
	if got := apierr.RetryAfterOf(apierr.NotFound("x")); got != 0 {
		t.Errorf("RetryAfterOf(not found) = %v, want 0", got)
	}
	if got := apierr.ToBody(apierr.Unavailable(time.Second, "kafka down")); got.Error.Code != 503 {
		t.Errorf("Unavailable status = %d", got.Error.Code)
	}
	if got := apierr.ToBody(apierr.TooLarge("big")); got.Error.Code != 413 {
		t.Errorf("TooLarge status = %d", got.Error.Code)
	}
}

func TestHTTPURL(t *testing.T) {
	for _, tc := range []struct {
		name, in, wantMsg string
	}{
		{name: "https", in: "https://auth.example.com/login?next=1"},
		{name: "http with port", in: "http://127.0.0.1:9000/cb"},
		{name: "relative", in: "/login", wantMsg: "fallbackURL: must be an absolute http(s) URL"},
		{name: "javascript", in: "javascript:alert(1)", wantMsg: "fallbackURL: must be an absolute http(s) URL"},
		{name: "no host", in: "https:///x", wantMsg: "fallbackURL: must be an absolute http(s) URL"},
		{name: "space", in: "https://a.example/x y", wantMsg: "fallbackURL: must be an absolute http(s) URL"},
		{name: "newline", in: "https://a.example/\nx", wantMsg: "fallbackURL: must not contain the control character U+000A"},
		{name: "too long", in: "https://a.example/" + strings.Repeat("x", 40), wantMsg: "fallbackURL: must be at most 40 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p apierr.Problems
			p.HTTPURL("fallbackURL", tc.in, 40)
			got := ""
			if err := p.Err(); err != nil {
				got = err.Error()
			}
			if got != tc.wantMsg {
				t.Errorf("HTTPURL(%q) = %q, want %q", tc.in, got, tc.wantMsg)
			}
		})
	}
}
