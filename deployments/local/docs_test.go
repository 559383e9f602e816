package local

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/service"
	"github.com/docspub/platform/services/content"
	"github.com/docspub/platform/services/identity"
	"github.com/docspub/platform/services/insights"
	"github.com/docspub/platform/services/integrations"
	"github.com/docspub/platform/services/sites"
)

// docsDir is the docs folder, from this package's directory.
const docsDir = "../docs"

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(docsDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// envVars lists the `env:"NAME, default=X"` fields of cfg's type, nested
// structs included: name → default.
func envVars(typ reflect.Type, out map[string]string) {
	for i := range typ.NumField() {
		f := typ.Field(i)
		tag, ok := f.Tag.Lookup("env")
		if !ok {
			if f.Type.Kind() == reflect.Struct {
				envVars(f.Type, out)
			}
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		def := ""
		for _, o := range strings.Split(opts, ",") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(o), "default="); ok {
				def = v
			}
		}
		out[name] = def
	}
}

// TestDocsConfigurationListsEveryVariable: every variable a component
// reads is in the configuration reference, on a table row that shows its
// default.
func TestDocsConfigurationListsEveryVariable(t *testing.T) {
	t.Parallel()
	doc := readDoc(t, "operations/configuration.md")
	for _, cfg := range []any{Config{}, service.Telemetry{}, gateway.Config{}, identity.Config{}, content.Config{},
		sites.Config{}, insights.Config{}, integrations.Config{}} {
		vars := map[string]string{}
		envVars(reflect.TypeOf(cfg), vars)
		for name, def := range vars {
			var rows []string
			for _, line := range strings.Split(doc, "\n") {
				if strings.HasPrefix(line, "|") && strings.Contains(line, "`"+name+"`") {
					rows = append(rows, line)
				}
			}
			if len(rows) == 0 {
				t.Errorf("%T: %s is not in the configuration reference", cfg, name)
				continue
			}
			if def != "" && !strings.Contains(strings.Join(rows, "\n"), def) {
				t.Errorf("%T: %s's default %q is not on its rows:\n%s", cfg, name, def, strings.Join(rows, "\n"))
			}
		}
	}
}

var updateLayout = flag.Bool("update-layout", false, "rewrite the layout page's package tables from go list")

// layoutModules are the modules whose packages the layout page lists, in
// its order.
var layoutModules = []string{"libs", "gateway", "services/identity", "services/content", "services/sites",
	"services/insights", "services/integrations", "deployments/local", "deployments/manifests"}

// TestDocsLayoutListsEveryPackage: the layout page's package tables are
// what go list says of every package (its path and the first sentence of
// its documentation): a package added, moved, removed or documented anew
// fails it until `go test -run TestDocsLayoutListsEveryPackage
// ./deployments/local -update-layout` rewrites them.
func TestDocsLayoutListsEveryPackage(t *testing.T) {
	var b strings.Builder
	b.WriteString(layoutHeading)
	for _, mod := range layoutModules {
		cmd := exec.Command("go", "list", "-f", "{{.Dir}}\t{{.Doc}}", "./"+mod+"/...")
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list ./%s/...: %v", mod, err)
		}
		fmt.Fprintf(&b, "\n### `%s`\n\n| package | what |\n|---|---|\n", mod)
		root, _ := filepath.Abs("../..")
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			dir, doc, _ := strings.Cut(line, "\t")
			rel, _ := filepath.Rel(root, dir)
			fmt.Fprintf(&b, "| `%s` | %s |\n", filepath.ToSlash(rel), strings.ReplaceAll(doc, "|", "\\|"))
		}
	}
	path := filepath.Join(docsDir, "architecture/layout.md")
	page := readDoc(t, "architecture/layout.md")
	at := strings.Index(page, "## Packages\n")
	if at < 0 {
		t.Fatal("the layout page has no section ## Packages")
	}
	want := page[:at] + b.String()
	if *updateLayout {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if page != want {
		t.Errorf("the layout page's package tables are not what go list says; rewrite them with\n\tgo test -run TestDocsLayoutListsEveryPackage ./deployments/local -update-layout")
	}
}

// layoutHeading begins the generated part of the layout page.
const layoutHeading = "## Packages\n\nEvery package of every module, with the first sentence of its documentation (`go list`); a test (`TestDocsLayoutListsEveryPackage`) fails when this list is not what `go list` says.\n"

var mdLink = regexp.MustCompile(`\]\(([^)#\s]+\.md)(#[^)]*)?\)`)

// TestDocsSummaryAndLinks: SUMMARY.md names every page once, and every
// relative link of every page names a page that exists.
func TestDocsSummaryAndLinks(t *testing.T) {
	t.Parallel()
	inSummary := map[string]bool{}
	for _, m := range mdLink.FindAllStringSubmatch(readDoc(t, "SUMMARY.md"), -1) {
		if inSummary[m[1]] {
			t.Errorf("SUMMARY.md names %s twice", m[1])
		}
		inSummary[m[1]] = true
	}
	err := filepath.WalkDir(docsDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		rel, _ := filepath.Rel(docsDir, p)
		rel = filepath.ToSlash(rel)
		if rel != "SUMMARY.md" && !inSummary[rel] {
			t.Errorf("SUMMARY.md lacks %s", rel)
		}
		b, err := os.ReadFile(p)
		for _, m := range mdLink.FindAllStringSubmatch(string(b), -1) {
			if strings.Contains(m[1], "://") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(p), m[1])); err != nil {
				t.Errorf("%s links to %s, which does not exist", rel, m[1])
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
