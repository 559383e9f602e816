package manifests

import (
	"bytes"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerfile/shell"
)

// goBuild is one `go build` of a Dockerfile's build stage.
type goBuild struct {
	env    []string // NAME=value words before `go`
	args   []string // after `go build`, -o's value included
	output string   // -o's value
}

// parseDockerfile parses a Dockerfile with BuildKit's parser and returns its
// stages.
func parseDockerfile(t *testing.T, path string) []instructions.Stage {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse %s: %v", path, err)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatalf("instructions of %s: %v", path, err)
	}
	return stages
}

// builds returns the `go build` commands of a stage's RUN instructions,
// split into words as a shell would.
func builds(t *testing.T, stage instructions.Stage) []goBuild {
	t.Helper()
	lex := shell.NewLex('\\')
	var out []goBuild
	for _, cmd := range stage.Commands {
		run, ok := cmd.(*instructions.RunCommand)
		if !ok {
			continue
		}
		words, err := lex.ProcessWords(strings.Join(run.CmdLine, " "), shell.EnvsFromSlice(nil))
		if err != nil {
			t.Fatalf("RUN %v: %v", run.CmdLine, err)
		}
		var b goBuild
		i := 0
		for ; i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-"); i++ {
			b.env = append(b.env, words[i])
		}
		if len(words) < i+2 || words[i] != "go" || words[i+1] != "build" {
			t.Errorf("RUN %q is not a go build", strings.Join(words, " "))
			continue
		}
		b.args = words[i+2:]
		if j := slices.Index(b.args, "-o"); j >= 0 && j+1 < len(b.args) {
			b.output = b.args[j+1]
		}
		out = append(out, b)
	}
	return out
}

func TestDockerfiles(t *testing.T) {
	for _, c := range components(t) {
		t.Run(c.name, func(t *testing.T) {
			stages := parseDockerfile(t, c.dockerfile)
			if len(stages) != 2 {
				t.Fatalf("%d stages, want build and final", len(stages))
			}
			build, final := stages[0], stages[1]
			if !strings.HasPrefix(build.BaseName, "golang:") {
				t.Errorf("build stage from %s, want a golang image", build.BaseName)
			}
			if !strings.HasPrefix(final.BaseName, "gcr.io/distroless/static") && final.BaseName != "scratch" {
				t.Errorf("final stage from %s, want distroless static or scratch", final.BaseName)
			}
			var (
				user       string
				entrypoint []string
				copied     bool
			)
			for _, cmd := range final.Commands {
				switch cmd := cmd.(type) {
				case *instructions.RunCommand:
					t.Errorf("final stage runs %v: it has no shell", cmd.CmdLine)
				case *instructions.UserCommand:
					user = cmd.User
				case *instructions.EntrypointCommand:
					if cmd.PrependShell {
						t.Errorf("ENTRYPOINT in shell form %v, want exec form", cmd.CmdLine)
					}
					entrypoint = cmd.CmdLine
				case *instructions.CopyCommand:
					copied = copied || cmd.From == build.Name
				}
			}
			if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
				t.Errorf("USER %q, want a non-root user", user)
			}
			if !copied {
				t.Errorf("final stage copies nothing from %s", build.Name)
			}
			if !slices.Equal(entrypoint, []string{"/" + c.name}) {
				t.Errorf("ENTRYPOINT %v, want [/%s]", entrypoint, c.name)
			}

			checkContext(t, c, build)

			bs := builds(t, build)
			var pkgs []string
			for _, b := range bs {
				if !slices.Contains(b.env, "CGO_ENABLED=0") || !slices.Contains(b.args, "-trimpath") || b.output == "" {
					t.Errorf("go build %v with %v: want CGO_ENABLED=0, -trimpath and -o", b.args, b.env)
				}
				pkgs = append(pkgs, b.args[len(b.args)-1])
			}
			for _, want := range []string{"./" + c.dir + "/cmd/" + c.name, "./libs/cmd/probe"} {
				if !slices.Contains(pkgs, want) {
					t.Errorf("built %v, want %s among them", pkgs, want)
				}
			}
			if !c.module {
				t.Skipf("%s is not on this branch yet: its build commands run once it is", c.dir)
			}
			if testing.Short() {
				t.Skip("-short: the build commands do not run")
			}
			for _, b := range bs {
				runBuild(t, b)
			}
		})
	}
}

// runBuild runs a Dockerfile's go build from the repository root, as the
// image build does from its copy, with -o into a temporary directory, and
// checks that a static binary comes out.
func runBuild(t *testing.T, b goBuild) {
	t.Helper()
	out := filepath.Join(t.TempDir(), filepath.Base(b.output))
	args := slices.Clone(b.args)
	args[slices.Index(args, "-o")+1] = out
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), b.env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, msg)
	}
	f, err := elf.Open(out)
	if err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s is dynamically linked (%s): the distroless static image cannot run it", b.output, p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs %v (%v), want none", b.output, libs, err)
	}
}
