// Package condition is the small language of adaptive content's
// conditions: the expressions sections and site spaces carry to decide
// whether a visitor sees them (`visitor.claims.beta == true`).
//
// A condition is parsed with github.com/expr-lang/expr and its syntax tree
// is walked with an allow-list before anything compiles it: member access
// on visitor.claims (visitor.claims.<name>, visitor.claims.unsigned.<name>,
// also with ?. or ["name"]), literals (booleans, strings, numbers, nil),
// comparisons (== != < <= > >=), && || ! (and, or, not), and in / not in
// over a list of literals. Nothing else is a condition: no variables (let),
// ranges, closures, builtins, function or method calls, arithmetic,
// ternaries, maps, slices, regular expressions. A condition has at most
// limits.Condition characters and limits.ConditionNodes nodes.
//
// Such a condition cannot loop: its program only jumps forward, so one
// evaluation runs each of its at most limits.ConditionOps instructions
// once. Compile checks that of the program too, so that whatever the
// library's compiler makes of an allowed tree, a program that could loop
// is never run.
//
// GitBook writes conditions in JavaScript: === and !== are read as == and
// != (outside string literals), and a claim the visitor does not have is
// undefined, so falsy: it reads as nil, and as false where a boolean is
// wanted (!, &&, ||), so that !visitor.claims.beta holds for a visitor
// without the claim, as on GitBook.
//
// Conditions are checked when written (Validate: a 400 naming the field)
// and again when the reader compiles them (Cache: a stored condition that
// fails the check is logged and matches nobody, it is never run).
package condition

import (
	"errors"
	"fmt"
	"strings"

	"github.com/docspub/platform/libs/apierr"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// Allowed says in one line what a condition may use (error messages end with it).
const Allowed = "conditions allow visitor.claims.<name>, literals, comparisons (== != < <= > >=), && || !, and in over a list of literals"

// ErrRefused is what Check's errors are (errors.Is).
var ErrRefused = errors.New("condition refused")

// refused is a condition the checker does not accept.
type refused struct{ msg string }

func (e *refused) Error() string        { return e.msg }
func (e *refused) Is(target error) bool { return target == ErrRefused }

func refuse(format string, args ...any) error {
	return &refused{msg: fmt.Sprintf(format, args...)}
}

// Check parses cond and walks its tree with the allow-list. Its error says,
// in one line, what is wrong (errors.Is ErrRefused).
func Check(cond string) error {
	_, err := check(cond)
	return err
}

// check is Check, returning the condition as expr reads it (normalized).
func check(cond string) (string, error) {
	if len(cond) > limits.Condition {
		return "", refuse("must be at most %d characters", limits.Condition)
	}
	if strings.TrimSpace(cond) == "" {
		return "", refuse("must not be blank")
	}
	cond = normalize(cond)
	cfg := conf.CreateNew()
	cfg.MaxNodes = limits.ConditionNodes
	tree, err := parser.ParseWithConfig(cond, cfg)
	if err != nil {
		if strings.Contains(err.Error(), "maximum allowed nodes") {
			return "", refuse("has more than %d nodes, the most a condition may have", limits.ConditionNodes)
		}
		return "", refuse("does not compile: %s", oneLine(err.Error()))
	}
	w := walker{}
	if err := w.node(tree.Node); err != nil {
		return "", err
	}
	if w.nodes > limits.ConditionNodes {
		return "", refuse("has more than %d nodes, the most a condition may have", limits.ConditionNodes)
	}
	return cond, nil
}

// Compile checks cond (Check) and compiles it to a program that gives a
// boolean and only jumps forward, of at most limits.ConditionOps
// instructions.
func Compile(cond string) (*vm.Program, error) {
	cond, err := check(cond)
	if err != nil {
		return nil, err
	}
	p, err := expr.Compile(cond, expr.AsBool(), expr.AllowUndefinedVariables(), expr.DisableAllBuiltins(),
		expr.MaxNodes(limits.ConditionNodes), expr.Patch(undefinedFalsy{}))
	if err != nil {
		return nil, refuse("does not compile: %s", oneLine(err.Error()))
	}
	if len(p.Bytecode) > limits.ConditionOps {
		return nil, refuse("compiles to more than %d instructions", limits.ConditionOps)
	}
	for _, op := range p.Bytecode {
		if loops[op] {
			return nil, refuse("compiles to a loop; %s", Allowed)
		}
	}
	return p, nil
}

// loops are the instructions of loops and calls: an allowed tree never
// compiles to them.
var loops = map[vm.Opcode]bool{
	vm.OpJumpBackward: true, vm.OpJumpIfEnd: true, vm.OpBegin: true, vm.OpEnd: true, vm.OpRange: true,
	vm.OpCall: true, vm.OpCall0: true, vm.OpCall1: true, vm.OpCall2: true, vm.OpCall3: true, vm.OpCallN: true,
	vm.OpCallFast: true, vm.OpCallSafe: true, vm.OpCallTyped: true, vm.OpCallBuiltin1: true, vm.OpMethod: true,
	vm.OpLoadMethod: true, vm.OpLoadFunc: true, vm.OpMatches: true, vm.OpMatchesConst: true,
	vm.OpGroupBy: true, vm.OpSortBy: true, vm.OpSort: true, vm.OpStore: true, vm.OpLoadFast: true,
}

// Validate checks a condition written through the API: a 400 naming field
// when Compile refuses it.
func Validate(field, cond string) error {
	if cond == "" {
		return apierr.Invalid(field, "must not be empty")
	}
	if _, err := Compile(cond); err != nil {
		return apierr.Invalid(field, "%s", err.Error())
	}
	return nil
}

// walker walks a condition's tree.
type walker struct{ nodes int }

// node checks n.
func (w *walker) node(n ast.Node) error {
	w.nodes++
	switch n := n.(type) {
	case *ast.BoolNode, *ast.NilNode, *ast.StringNode, *ast.IntegerNode, *ast.FloatNode:
		return nil
	case *ast.ChainNode:
		return w.claim(n.Node)
	case *ast.MemberNode:
		return w.claim(n)
	case *ast.IdentifierNode:
		return refuse("names %q; a condition reads visitor.claims.<name> only", n.Value)
	case *ast.UnaryNode:
		switch n.Operator {
		case "!", "not":
			return w.node(n.Node)
		case "-", "+":
			switch n.Node.(type) {
			case *ast.IntegerNode, *ast.FloatNode:
				w.nodes++
				return nil
			}
		}
		return refuse("uses the operator %q; %s", n.Operator, Allowed)
	case *ast.BinaryNode:
		switch n.Operator {
		case "&&", "||", "and", "or":
			if err := w.node(n.Left); err != nil {
				return err
			}
			return w.node(n.Right)
		case "==", "!=", "<", "<=", ">", ">=":
			if err := w.operand(n.Left); err != nil {
				return err
			}
			return w.operand(n.Right)
		case "in":
			if err := w.operand(n.Left); err != nil {
				return err
			}
			return w.list(n.Right)
		case "..":
			return refuse("uses a range (..); %s", Allowed)
		}
		return refuse("uses the operator %q; %s", n.Operator, Allowed)
	case *ast.VariableDeclaratorNode:
		return refuse("declares a variable (let %s); %s", n.Name, Allowed)
	case *ast.SequenceNode:
		return refuse("is a sequence of expressions (;); %s", Allowed)
	case *ast.BuiltinNode:
		return refuse("calls %s(); %s", n.Name, Allowed)
	case *ast.CallNode:
		return refuse("calls a function; %s", Allowed)
	case *ast.PredicateNode, *ast.PointerNode:
		return refuse("has a closure ({...}); %s", Allowed)
	case *ast.ConditionalNode:
		return refuse("has a conditional (?: or if); %s", Allowed)
	case *ast.ArrayNode:
		return refuse("has a list outside of in; %s", Allowed)
	case *ast.MapNode, *ast.PairNode:
		return refuse("has a map; %s", Allowed)
	case *ast.SliceNode:
		return refuse("has a slice; %s", Allowed)
	}
	return refuse("has an expression conditions do not allow; %s", Allowed)
}

// operand checks an operand of a comparison: a claim or a literal.
func (w *walker) operand(n ast.Node) error {
	if b, ok := n.(*ast.BinaryNode); ok {
		return refuse("compares the result of %q; comparisons are between a claim and a literal or another claim", b.Operator)
	}
	return w.node(n)
}

// list checks the right side of in: a list of literals.
func (w *walker) list(n ast.Node) error {
	w.nodes++
	a, ok := n.(*ast.ArrayNode)
	if b, isBinary := n.(*ast.BinaryNode); isBinary && b.Operator == ".." {
		return refuse("uses a range (..); %s", Allowed)
	}
	if !ok {
		return refuse("uses in on something other than a list of literals; %s", Allowed)
	}
	for _, e := range a.Nodes {
		w.nodes++
		switch e := e.(type) {
		case *ast.BoolNode, *ast.NilNode, *ast.StringNode, *ast.IntegerNode, *ast.FloatNode:
		case *ast.UnaryNode:
			switch e.Node.(type) {
			case *ast.IntegerNode, *ast.FloatNode:
				if e.Operator == "-" || e.Operator == "+" {
					w.nodes++
					continue
				}
			}
			return refuse("has a list item that is not a literal; %s", Allowed)
		default:
			return refuse("has a list item that is not a literal; %s", Allowed)
		}
	}
	return nil
}

// claim checks a member access: visitor.claims, then names.
func (w *walker) claim(n ast.Node) error {
	var names []string
	for {
		w.nodes++
		switch m := n.(type) {
		case *ast.MemberNode:
			if m.Method {
				return refuse("calls a method; %s", Allowed)
			}
			s, ok := m.Property.(*ast.StringNode)
			if !ok {
				return refuse("reads a member by a computed name or index; name claims as visitor.claims.<name>")
			}
			w.nodes++
			names = append(names, s.Value)
			n = m.Node
			continue
		case *ast.ChainNode:
			n = m.Node
			continue
		case *ast.IdentifierNode:
			if m.Value != "visitor" || len(names) == 0 || names[len(names)-1] != "claims" {
				return refuse("reads %s; a condition reads visitor.claims.<name> only", path(m.Value, names))
			}
			return nil
		}
		return refuse("reads a member of something other than visitor.claims; %s", Allowed)
	}
}

// path writes a member access back (names are innermost last).
func path(root string, names []string) string {
	var b strings.Builder
	b.WriteString(root)
	for i := len(names) - 1; i >= 0; i-- {
		b.WriteString("." + names[i])
	}
	return b.String()
}

// oneLine keeps the first line of a compiler message (the rest draws a caret
// under the source).
func oneLine(msg string) string {
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		return strings.TrimSpace(msg[:i])
	}
	return msg
}
