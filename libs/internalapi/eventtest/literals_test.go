package eventtest_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/docspub/platform/libs/internalapi/contentapi"
	"github.com/docspub/platform/libs/internalapi/identityapi"
	"github.com/docspub/platform/libs/internalapi/integrationsapi"
	"github.com/docspub/platform/libs/internalapi/sitesapi"
)

// root is the repository, from this package's directory.
const root = "../../.."

// Event types are declared once, in the events.go of their producer's
// api package: no Go source of the repository (tests included) spells a
// declared type as a string literal anywhere else.
func TestNoEventTypeLiterals(t *testing.T) {
	t.Parallel()
	declared := map[string]bool{}
	for _, c := range []map[string]int{contentapi.Events, identityapi.Events, sitesapi.Events, integrationsapi.Events} {
		for typ := range c {
			declared[typ] = true
		}
	}
	for _, dir := range []string{"libs", "services", "gateway", "deployments"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "embedded" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || isEventsFile(path) {
				return nil
			}
			for _, lit := range literals(t, path) {
				if declared[lit.value] {
					t.Errorf("%s:%d: event type %q spelled out: use its constant of libs/internalapi", path, lit.line, lit.value)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// isEventsFile reports whether path is an api package's events.go.
func isEventsFile(path string) bool {
	return filepath.Base(path) == "events.go" && filepath.Base(filepath.Dir(filepath.Dir(path))) == "internalapi"
}

type literal struct {
	value string
	line  int
}

// literals are the string literals of a Go file (comments left out).
func literals(t *testing.T, path string) []literal {
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, fset.Base(), len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0)
	var out []literal
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return out
		}
		if tok == token.STRING {
			if v, err := strconv.Unquote(lit); err == nil {
				out = append(out, literal{v, fset.Position(pos).Line})
			}
		}
	}
}
