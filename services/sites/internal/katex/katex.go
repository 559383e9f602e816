// Package katex typesets TeX formulas on the server: KaTeX's own script
// (katex.min.js, vendored: see README.md) runs in goja, a JavaScript
// engine written in Go, and gives HTML and MathML, so that readers need
// KaTeX's stylesheet and fonts only, no script.
//
// A goja runtime is not safe for concurrent use: a Typesetter keeps a few
// in a pool, each used by one call at a time. A call is bounded before it
// starts (formula length) and while it runs (a deadline and the caller's
// context interrupt the runtime, which is then dropped).
package katex

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"html"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// Version is the vendored KaTeX's; its stylesheet and fonts must be the
// same version's.
const Version = "0.16.47"

//go:embed katex.min.js
var script string

// ErrTooLong is a formula over the Typesetter's length bound, ErrTooSlow
// one that ran past its time.
var (
	ErrTooLong = errors.New("formula too long")
	ErrTooSlow = errors.New("formula too slow to typeset")
)

var (
	compileOnce sync.Once
	program     *goja.Program
	compileErr  error
)

// compiled is katex.min.js compiled once for every runtime.
func compiled() (*goja.Program, error) {
	compileOnce.Do(func() {
		program, compileErr = goja.Compile("katex.min.js", script, false)
	})
	return program, compileErr
}

// Typesetter typesets formulas; it is safe for concurrent use.
type Typesetter struct {
	maxBytes int
	timeout  time.Duration
	// slots bounds the formulas typeset at once (and so the runtimes
	// alive); pool keeps the idle runtimes.
	slots chan struct{}
	pool  chan *runtime
}

// runtime is one goja runtime with KaTeX loaded and its render function.
type runtime struct {
	vm     *goja.Runtime
	render goja.Callable
}

// New returns a Typesetter of formulas up to maxBytes, each typeset within
// timeout, at most n at once (a call waits for its turn while its context
// lasts), as many runtimes kept between calls.
func New(maxBytes int, timeout time.Duration, n int) *Typesetter {
	n = max(n, 1)
	return &Typesetter{maxBytes: maxBytes, timeout: timeout, slots: make(chan struct{}, n), pool: make(chan *runtime, n)}
}

// renderJS calls katex.renderToString with the options of a published
// page: errors shown as the formula's source (marked katex-error), no
// \href, \url or \includegraphics (trust false), macro expansion bounded.
const renderJS = `(function(tex, display) {
  return katex.renderToString(tex, {displayMode: display, throwOnError: false, output: "htmlAndMathml",
    trust: false, strict: "ignore", maxExpand: 1000, maxSize: 50});
})`

// newRuntime loads KaTeX in a fresh runtime.
func newRuntime() (*runtime, error) {
	p, err := compiled()
	if err != nil {
		return nil, fmt.Errorf("compile katex: %w", err)
	}
	vm := goja.New()
	// Without module nor define, KaTeX's UMD wrapper sets the global katex.
	if _, err := vm.RunProgram(p); err != nil {
		return nil, fmt.Errorf("load katex: %w", err)
	}
	fn, err := vm.RunString(renderJS)
	if err != nil {
		return nil, fmt.Errorf("load katex render: %w", err)
	}
	render, ok := goja.AssertFunction(fn)
	if !ok {
		return nil, errors.New("katex render is not a function")
	}
	return &runtime{vm: vm, render: render}, nil
}

// get takes an idle runtime, or loads a new one.
func (t *Typesetter) get() (*runtime, error) {
	select {
	case rt := <-t.pool:
		return rt, nil
	default:
		return newRuntime()
	}
}

// put keeps a runtime for the next call, unless enough are kept.
func (t *Typesetter) put(rt *runtime) {
	select {
	case t.pool <- rt:
	default:
	}
}

// Typeset returns the formula's HTML (KaTeX's HTML and MathML), display
// for a block. An invalid formula is its escaped source marked
// katex-error, as KaTeX writes it; a formula over the length bound is
// ErrTooLong; one that runs past its time is ErrTooSlow, and past the
// context the context's error (its cause).
func (t *Typesetter) Typeset(ctx context.Context, tex string, display bool) (string, error) {
	if len(tex) > t.maxBytes {
		return "", ErrTooLong
	}
	select {
	case t.slots <- struct{}{}:
		defer func() { <-t.slots }()
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
	if err := ctx.Err(); err != nil {
		return "", context.Cause(ctx)
	}
	rt, err := t.get()
	if err != nil {
		return "", err
	}
	timer := time.AfterFunc(t.timeout, func() { rt.vm.Interrupt(ErrTooSlow) })
	stop := context.AfterFunc(ctx, func() { rt.vm.Interrupt(context.Cause(ctx)) })
	v, err := rt.render(goja.Undefined(), rt.vm.ToValue(tex), rt.vm.ToValue(display))
	timedOut, cancelled := !timer.Stop(), !stop()
	if timedOut || cancelled {
		// The runtime was or is being interrupted: dropped, never reused.
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			if cause, ok := ie.Value().(error); ok {
				return "", cause
			}
		}
		if err == nil {
			err = ErrTooSlow
		}
		return "", err
	}
	t.put(rt)
	if err != nil {
		// Not a parse error (those are written in the output): shown as
		// KaTeX shows one.
		return ErrorHTML(tex), nil
	}
	return v.String(), nil
}

// ErrorHTML is a formula that could not be typeset as KaTeX shows one:
// its source, escaped, marked katex-error.
func ErrorHTML(tex string) string {
	return `<span class="katex-error">` + html.EscapeString(tex) + `</span>`
}
