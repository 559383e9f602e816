package reader

import (
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/vm"
	lru "github.com/hashicorp/golang-lru/v2"
)

// conditions compiles the conditions of sections and site spaces
// (expr-lang/expr, as sections check them when they are set) once each,
// and evaluates them on a visitor's claims.
type conditions struct {
	compiled *lru.Cache[string, *vm.Program] // nil program: does not compile
}

func newConditions(size int) *conditions {
	c, _ := lru.New[string, *vm.Program](size)
	return &conditions{compiled: c}
}

// eval reports whether cond holds for env ({"visitor": {"claims": …}}).
// A condition that does not compile, fails (a claim it reads is missing,
// a type does not fit) or spends more than limits.ReaderConditionBudget
// is false: what it guards stays hidden.
func (c *conditions) eval(cond string, env map[string]any) bool {
	p, ok := c.compiled.Get(cond)
	if !ok {
		p, _ = expr.Compile(cond, expr.AsBool(), expr.AllowUndefinedVariables())
		c.compiled.Add(cond, p)
	}
	if p == nil {
		return false
	}
	m := vm.VM{MemoryBudget: limits.ReaderConditionBudget}
	out, err := m.Run(p, env)
	b, _ := out.(bool)
	return err == nil && b
}
