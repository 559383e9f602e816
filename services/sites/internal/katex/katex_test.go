package katex

import (
	"context"
	"errors"
	"fmt"
	"sort"
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

func TestTypesetBounds(t *testing.T) {
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
	if _, err := ts.Typeset(context.Background(), big, true); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("past the deadline: err %v, want context.DeadlineExceeded", err)
	}
	// The runtime interrupted is dropped: the next call works.
	ts.timeout = 5 * time.Second
	if got, err := ts.Typeset(context.Background(), "x", false); err != nil || !strings.Contains(got, "katex") {
		t.Errorf("after an interruption: %q, %v", got, err)
	}
}

// TestTypesetCost measures a page of 50 formulas with one warm runtime
// (go test -run TestTypesetCost -v).
func TestTypesetCost(t *testing.T) {
	ts := New(4096, 5*time.Second, 1)
	start := time.Now()
	if _, err := ts.Typeset(context.Background(), "x", false); err != nil {
		t.Fatal(err)
	}
	t.Logf("first formula (KaTeX loaded): %v", time.Since(start))
	var runs []time.Duration
	for range 7 {
		start := time.Now()
		for i := range 50 {
			if _, err := ts.Typeset(context.Background(), fmt.Sprintf(`\sum_{k=0}^{%d} \frac{x^k}{k!} + \sqrt{a_%d^2+b^2}`, i, i), i%5 == 0); err != nil {
				t.Fatal(err)
			}
		}
		runs = append(runs, time.Since(start))
	}
	sort.Slice(runs, func(i, j int) bool { return runs[i] < runs[j] })
	t.Logf("50 formulas: median %v (min %v, max %v)", runs[len(runs)/2], runs[0], runs[len(runs)-1])
}
