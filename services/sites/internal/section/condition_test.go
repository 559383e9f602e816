package section_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/docspub/platform/services/sites/internal/section"
)

func TestCheckCondition(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		cond     string
		wantErr  bool
		wantText string // in the message when refused
	}{
		{name: "claim comparison", cond: `visitor.claims.unsigned.bucket == "beta"`},
		{name: "boolean claim", cond: `visitor.claims.isPro`},
		{name: "and or not", cond: `(visitor.claims.a || visitor.claims.b) && !visitor.claims.c`},
		{name: "in list", cond: `visitor.claims.plan in ["pro", "team"]`},
		{name: "literal true", cond: `true`},
		{name: "numbers compared", cond: `visitor.claims.seats >= 10`},
		{name: "empty", cond: ``, wantErr: true, wantText: "must not be empty"},
		{name: "blank", cond: `   `, wantErr: true, wantText: "must not be blank"},
		{name: "too long", cond: strings.Repeat("a", limits.Condition+1), wantErr: true, wantText: "at most 1024"},
		{name: "dangling operator", cond: `visitor.claims.a ==`, wantErr: true, wantText: "does not compile"},
		{name: "unbalanced parenthesis", cond: `(visitor.claims.a`, wantErr: true, wantText: "does not compile"},
		{name: "not a boolean", cond: `1 + 2`, wantErr: true, wantText: `operator "+"`},
		{name: "issue 19's loops", cond: `let r = 1..1000; visitor.claims.a && all(r, {all(r, {all(r, {true})})})`, wantErr: true, wantText: "conditions allow"},
		{name: "string literal", cond: `"yes"`, wantErr: true, wantText: "does not compile"},
		{name: "strict equality, as GitBook writes it", cond: `visitor.claims.a === 1 && visitor.claims.b !== "x"`},
		{name: "unknown operator", cond: `visitor.claims.a <=> 1`, wantErr: true, wantText: "does not compile"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			err := section.CheckCondition("condition", tc.cond)
			if got := err != nil; got != tc.wantErr {
				t.Fatalf("CheckCondition(%q) = %v, want error %v", tc.cond, err, tc.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, apierr.ErrBadRequest) {
				t.Errorf("error %v is not a 400", err)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "condition: ") || !strings.Contains(msg, tc.wantText) || strings.Contains(msg, "\n") {
				t.Errorf("message %q: want one line naming condition and containing %q", msg, tc.wantText)
			}
		})
	}
}
