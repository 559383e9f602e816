package condition

import (
	"log/slog"

	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/sites/internal/limits"
	"github.com/expr-lang/expr/vm"
)

// Cache compiles conditions once each (a bounded cache keyed by the
// condition's text) and evaluates them on a visitor's claims. It is safe
// for concurrent use.
type Cache struct {
	compiled *sizedcache.Cache[string, *vm.Program] // nil program: refused
	log      *slog.Logger
}

// NewCache returns a cache of at most size compiled conditions; log
// receives the conditions refused at compile time (nil: not logged).
func NewCache(size int, log *slog.Logger) *Cache {
	c := sizedcache.New[string, *vm.Program](size, 0).Observe("sites.conditions")
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Cache{compiled: c, log: log}
}

// Match reports whether cond holds for env ({"visitor": {"claims": …}}).
// A condition that Compile refuses (one stored before the checker, or
// written around it) is logged once per compilation and never run; it,
// like one that fails (a type does not fit) or spends more than
// limits.ConditionMemory, matches nobody: what it guards stays hidden.
func (c *Cache) Match(cond string, env map[string]any) bool {
	p, ok := c.compiled.Get(cond)
	if !ok {
		var err error
		p, err = Compile(cond)
		if err != nil {
			c.log.Warn("condition refused: it matches no visitor", "condition", truncate(cond, 200), "err", err)
		}
		c.compiled.Set(cond, p, 0)
	}
	if p == nil {
		return false
	}
	m := vm.VM{MemoryBudget: limits.ConditionMemory}
	out, err := m.Run(p, env)
	b, _ := out.(bool)
	return err == nil && b
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
