package section

import (
	"github.com/docspub/platform/services/sites/internal/condition"
)

// CheckCondition checks a section's condition: 1..limits.Condition
// characters of the conditions' small language (internal/condition:
// claims of visitor.claims, literals, comparisons, && || !, in over a list
// of literals), that gives a boolean. Visitor claims are not typed here,
// so unknown names are allowed (`visitor.claims.unsigned.bucket ==
// "beta"`). A problem is a 400 naming field, in one line.
func CheckCondition(field, cond string) error {
	return condition.Validate(field, cond)
}
