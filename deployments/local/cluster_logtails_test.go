package local

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// LogTails gives each log's last lines, cut at 400 bytes, reading only
// the end of a long log.
func TestLogTailsGivesTheLastLines(t *testing.T) {
	c := &Cluster{Dir: t.TempDir()}
	if err := os.MkdirAll(filepath.Join(c.Dir, "logs"), 0o755); err != nil {
		t.Fatal(err)
	}
	var long strings.Builder
	for i := range 5000 { // ~100 KiB, more than LogTails reads
		fmt.Fprintf(&long, "line %d %s\n", i, strings.Repeat("x", 12))
	}
	long.WriteString(strings.Repeat("y", 1000) + "\n")
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(c.Dir, "logs", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sites-0.log", long.String())
	write("sites-1.log", "")
	got := c.LogTails(3)
	for _, want := range []string{"last lines of sites-0.log:", "  line 4998 ", "  line 4999 ", "  " + strings.Repeat("y", 400) + "…\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("LogTails lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "line 4997 ") || strings.Contains(got, "sites-1.log") || strings.Contains(got, strings.Repeat("y", 401)) {
		t.Errorf("LogTails gave more than the last 3 lines of the logs written:\n%s", got)
	}
}
