package katex

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTypeset(t *testing.T) {
	ts := New(4096, 5*time.Second, 2)
	tests := []struct {
		name    string
		tex     string
		display bool
		want    []string
	}{
		{name: "inline", tex: `E = mc^2`, want: []string{`<span class="katex">`, `<math xmlns="http://www.w3.org/1998/Math/MathML">`, `<annotation encoding="application/x-tex">E = mc^2</annotation>`}},
		{name: "display", tex: `\int_0^1 x\,dx = \frac12`, display: true, want: []string{`class="katex-display"`, `display="block"`, `<mfrac>`}},
		{name: "invalid is its escaped source", tex: `\frac{<b>`, want: []string{`class="katex-error"`, `\frac{&lt;b&gt;`}},
		{name: "no link (trust false)", tex: `\href{javascript:alert(1)}{x}`, want: []string{`<mtext>\href</mtext>`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ts.Typeset(context.Background(), tc.tex, tc.display)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Typeset(%q) = %s\nwant it to contain %s", tc.tex, got, w)
				}
			}
			if strings.Contains(got, "<b>") || strings.Contains(got, "href=") {
				t.Errorf("Typeset(%q) = %s: unescaped input", tc.tex, got)
			}
		})
	}
}

// TestTypesetSharesNothing: a macro one formula defines, even globally,
// is not defined in the next one the same runtime typesets.
func TestTypesetSharesNothing(t *testing.T) {
	ts := New(4096, 5*time.Second, 1)
	if got, _ := ts.Typeset(context.Background(), `\gdef\zebra{Z}\zebra`, false); strings.Contains(got, "katex-error") {
		t.Fatalf("the definition: %s", got)
	}
	if got, _ := ts.Typeset(context.Background(), `\zebra`, false); !strings.Contains(got, `<mtext>\zebra</mtext>`) {
		t.Errorf("the next formula knows \\zebra: %s", got)
	}
}

// TestTypesetWaitsItsTurn: past n formulas at once, a call waits, and
// gives up when its context ends.
func TestTypesetWaitsItsTurn(t *testing.T) {
	ts := New(4096, 5*time.Second, 1)
	ts.slots <- struct{}{} // the one slot taken
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	if _, err := ts.Typeset(ctx, "x", false); !errors.Is(err, context.Canceled) {
		t.Errorf("waiting, cancelled: %v", err)
	}
	<-ts.slots
	if _, err := ts.Typeset(context.Background(), "x", false); err != nil {
		t.Errorf("the slot free: %v", err)
	}
}

func TestTypesetBounds(t *testing.T) {
	// Nesting as deep as the length bound allows: typeset or out of
	// time, soon after the deadline; never a crash.
	deep := strings.Repeat(`\sqrt{`, 4096/7) + "x" + strings.Repeat("}", 4096/7)
	slow := New(8192, 200*time.Millisecond, 1)
	if _, err := slow.Typeset(context.Background(), "x", false); err != nil { // KaTeX loaded
		t.Fatal(err)
	}
	start := time.Now()
	if got, err := slow.Typeset(context.Background(), deep, true); !errors.Is(err, ErrTooSlow) && !strings.Contains(got, "katex") {
		t.Errorf("deep nesting: %.200q, %v", got, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("deep nesting took %v, the deadline is 200ms", d)
	}
	ts := New(64, 5*time.Second, 1)
	if _, err := ts.Typeset(context.Background(), strings.Repeat("x", 65), false); !errors.Is(err, ErrTooLong) {
		t.Errorf("65 bytes: err %v, want ErrTooLong", err)
	}
	if _, err := ts.Typeset(context.Background(), strings.Repeat("x", 64), false); err != nil {
		t.Errorf("64 bytes: %v", err)
	}
}

func TestTypesetStops(t *testing.T) {
	ts := New(1<<20, time.Minute, 1)
	big := strings.Repeat(`\sqrt{\frac{a}{b}}+`, 5000) + "x"
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	_, err := ts.Typeset(ctx, big, true)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled after %v", d)
	}
	ts = New(1<<20, 20*time.Millisecond, 1)
	if _, err := ts.Typeset(context.Background(), big, true); !errors.Is(err, ErrTooSlow) {
		t.Errorf("past the deadline: err %v, want ErrTooSlow", err)
	}
	// The runtime interrupted is dropped: the next call works.
	ts.timeout = 5 * time.Second
	if got, err := ts.Typeset(context.Background(), "x", false); err != nil || !strings.Contains(got, "katex") {
		t.Errorf("after an interruption: %q, %v", got, err)
	}
}

// BenchmarkTypeset is one formula typeset by a warm runtime (go test
// -bench Typeset; a page of 50: gitbookmd's BenchmarkRenderMathPage).
func BenchmarkTypeset(b *testing.B) {
	ts := New(4096, 5*time.Second, 1)
	if _, err := ts.Typeset(context.Background(), "x", false); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		if _, err := ts.Typeset(context.Background(), fmt.Sprintf(`\sum_{k=0}^{%d} \frac{x^k}{k!} + \sqrt{a_%d^2+b^2}`, i, i), i%5 == 0); err != nil {
			b.Fatal(err)
		}
	}
}
