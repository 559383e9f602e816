package reader

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/libs/sizedcache"
	"github.com/docspub/platform/services/sites/internal/gitbookmd"
	"github.com/docspub/platform/services/sites/internal/katex"
)

// TestMathKeepsFormulas: a typeset formula is kept in the reader's cache
// (by organization), a formula too slow to typeset is kept as such (not
// tried again), and a formula left for lack of the page's time makes the
// rendering short (not kept) and is not remembered.
func TestMathKeepsFormulas(t *testing.T) {
	r := &Reader{cache: sizedcache.New[string, any](1000, 1<<24),
		markdown: &markdown{r: gitbookmd.New(), tex: katex.New(1<<20, 100*time.Millisecond, 1)}}
	key := func(org, tex string) string { return cacheKey("tex", org, "false", tex) }

	math, short := r.math(context.Background(), "acme")
	if h, ok := math(`x^2`, false); !ok || !strings.Contains(h, "katex") {
		t.Fatalf("x^2: %q, %v", h, ok)
	}
	if _, ok := r.cache.Get(key("acme", `x^2`)); !ok {
		t.Error("a typeset formula is not kept")
	}
	if _, ok := r.cache.Get(key("other", `x^2`)); ok {
		t.Error("a formula is kept for another organization")
	}
	slow := strings.Repeat(`\sqrt{\frac{a}{b}}+`, 5000) + "x"
	if _, ok := math(slow, false); ok {
		t.Fatal("a formula past its time is typeset")
	}
	if h, ok := r.cache.Get(key("acme", slow)); !ok || h != "" {
		t.Errorf("a formula too slow is not kept as such: %v %.40q", ok, h)
	}
	start := time.Now()
	if _, ok := math(slow, false); ok || time.Since(start) > 50*time.Millisecond || short() {
		t.Errorf("the slow formula again: typeset %v in %v, short %v", ok, time.Since(start), short())
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel() // the page's time is out
	math, short = r.math(ctx, "acme")
	if h, ok := math(`x^2`, false); !ok || h == "" || short() {
		t.Errorf("a kept formula, the page out of time: %.40q %v, short %v", h, ok, short())
	}
	if _, ok := math(`y^3`, false); ok || !short() {
		t.Errorf("a new formula, the page out of time: typeset %v, short %v", ok, short())
	}
	if _, ok := r.cache.Get(key("acme", `y^3`)); ok {
		t.Error("a formula left for lack of the page's time is remembered")
	}
}
