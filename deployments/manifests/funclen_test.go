package manifests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFunctionLines is the most lines a function of the platform's code may
// span, from its func to its closing brace: a longer one is split into
// named steps a newcomer can read one at a time (issue 24).
const maxFunctionLines = 80

// TestFunctionsAreShort fails for every non-test function of the modules
// longer than maxFunctionLines, naming it with its length (the copies of
// FerretDB and kfake aside).
func TestFunctionsAreShort(t *testing.T) {
	for _, mod := range []string{"libs", "gateway", "services", "deployments/local", "deployments/manifests"} {
		err := filepath.WalkDir(filepath.Join("../..", mod), func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() && (filepath.ToSlash(path) == "../../libs/embedded/ferretdb" || filepath.ToSlash(path) == "../../libs/embedded/kfake") {
				return filepath.SkipDir // FerretDB's and kfake's code, copied with a patch (their PATCH.md), not ours
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				if n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1; n > maxFunctionLines {
					rel, _ := filepath.Rel("../..", path)
					t.Errorf("%s: %s is %d lines, more than %d: split it into named steps", rel, fn.Name.Name, n, maxFunctionLines)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
