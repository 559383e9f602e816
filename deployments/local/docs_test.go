package local

import (
	"io/fs"
	"os"
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

// TestDocsLayoutListsEveryPackage: the layout page names every package of
// every module.
func TestDocsLayoutListsEveryPackage(t *testing.T) {
	t.Parallel()
	doc := readDoc(t, "architecture/layout.md")
	for _, mod := range []string{"libs", "gateway", "services", "deployments/local", "deployments/manifests"} {
		err := filepath.WalkDir(filepath.Join("../..", mod), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") || strings.Contains(p, "testdata") {
				return err
			}
			rel, _ := filepath.Rel("../..", filepath.Dir(p))
			if !strings.Contains(doc, "`"+filepath.ToSlash(rel)+"`") {
				t.Errorf("the layout page lacks %s", rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

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
