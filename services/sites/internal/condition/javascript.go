package condition

import (
	"strings"

	"github.com/expr-lang/expr/ast"
)

// normalize reads GitBook's JavaScript comparisons === and !== as == and
// != (string literals are left as written).
func normalize(cond string) string {
	if !strings.Contains(cond, "==") {
		return cond
	}
	var b strings.Builder
	var quote byte
	for i := 0; i < len(cond); i++ {
		c := cond[i]
		switch {
		case quote != 0:
			if c == '\\' && i+1 < len(cond) {
				b.WriteByte(c)
				i++
				c = cond[i]
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case (c == '=' || c == '!') && strings.HasPrefix(cond[i+1:], "=="):
			b.WriteString(string(c) + "=")
			i += 2
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// undefinedFalsy patches a checked condition's tree so that a claim the
// visitor does not have reads as JavaScript's undefined does: every member
// access on visitor.claims is optional (a missing group gives nil, not an
// error), and a claim where a boolean is wanted (the operand of !, && or
// ||) is `claim ?? false`.
type undefinedFalsy struct{}

func (undefinedFalsy) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.MemberNode:
		x.Optional = true
		*n = &ast.ChainNode{Node: x}
	case *ast.UnaryNode:
		if x.Operator == "!" || x.Operator == "not" {
			x.Node = orFalse(x.Node)
		}
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&", "||", "and", "or":
			x.Left, x.Right = orFalse(x.Left), orFalse(x.Right)
		}
	}
}

// orFalse is n ?? false when n is a claim.
func orFalse(n ast.Node) ast.Node {
	if _, ok := n.(*ast.ChainNode); ok {
		return &ast.BinaryNode{Operator: "??", Left: n, Right: &ast.BoolNode{Value: false}}
	}
	return n
}
