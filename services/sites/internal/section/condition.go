package section

import (
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/expr-lang/expr"
)

// CheckCondition checks a section's condition: 1..1024 characters of an
// expression (github.com/expr-lang/expr syntax) that compiles and can give a
// boolean. Visitor claims are not typed here, so unknown names are allowed
// (`visitor.claims.unsigned.bucket == "beta"`); an expression whose type is
// known not to be a boolean (`1 + 2`) is refused. A problem is a 400 naming
// field, with the compiler's message.
func CheckCondition(field, cond string) error {
	var p apierr.Problems
	p.Length(field, cond, 1, limits.Condition)
	if err := p.Err(); err != nil {
		return err
	}
	if strings.TrimSpace(cond) == "" {
		return apierr.Invalid(field, "must not be blank")
	}
	if _, err := expr.Compile(cond, expr.AsBool()); err != nil {
		return apierr.Invalid(field, "does not compile: %s", oneLine(err.Error()))
	}
	return nil
}

// oneLine keeps the first line of a compiler message (the rest draws a caret
// under the source).
func oneLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return strings.TrimSpace(msg[:i])
	}
	return msg
}
