package manifests

import (
	"bytes"
	"debug/elf"
	"maps"
	"os"
	"os/exec"
	"path"
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
	output string   // -o's value: a file, or a directory when it ends in /
}

// pkgs are the packages it builds: its arguments after the last flag.
func (b goBuild) pkgs() []string {
	i := len(b.args)
	for i > 0 && strings.HasPrefix(b.args[i-1], "./") {
		i--
	}
	return b.args[i:]
}

// binaries maps the paths the build writes to the packages they come from.
func (b goBuild) binaries() map[string]string {
	out := map[string]string{}
	for _, p := range b.pkgs() {
		if strings.HasSuffix(b.output, "/") {
			out[b.output+path.Base(p)] = p
		} else {
			out[b.output] = p
		}
	}
	return out
}

// image is the Dockerfile's stages with one component's build arguments
// substituted, as BuildKit would.
type image struct {
	build, final instructions.Stage
	env          map[string]string   // the final stage's ENV
	expose       []string            // the final stage's EXPOSE
	copied       map[string][]string // the build stage's COPY sources, by instruction
	builds       []goBuild
}

// parseDockerfile parses the Dockerfile with BuildKit's parser and
// substitutes args, each stage seeing only the arguments it declares
// (ARG), as a build would; the RUN commands see them as the shell would.
func parseDockerfile(t *testing.T, args map[string]string) (image, error) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, dockerfile))
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse %s: %v", dockerfile, err)
	}
	stages, _, err := instructions.Parse(res.AST, nil)
	if err != nil {
		t.Fatalf("instructions of %s: %v", dockerfile, err)
	}
	if len(stages) != 2 {
		t.Fatalf("%d stages, want build and final", len(stages))
	}
	img := image{build: stages[0], final: stages[1], env: map[string]string{}, copied: map[string][]string{}}
	lex := shell.NewLex('\\')
	for _, stage := range stages {
		var declared []string
		expand := func(word string) (string, error) {
			w, _, err := lex.ProcessWord(word, shell.EnvsFromSlice(declared))
			return w, err
		}
		for _, cmd := range stage.Commands {
			switch cmd := cmd.(type) {
			case *instructions.ArgCommand:
				for _, a := range cmd.Args {
					if v, ok := args[a.Key]; ok {
						declared = append(declared, a.Key+"="+v)
					} else if a.Value != nil {
						declared = append(declared, a.Key+"="+*a.Value)
					}
				}
				continue
			case *instructions.RunCommand:
				words, err := lex.ProcessWords(strings.Join(cmd.CmdLine, " "), shell.EnvsFromSlice(declared))
				if err != nil {
					return img, err
				}
				if b, ok := parseGoBuild(words); ok {
					img.builds = append(img.builds, b)
				} else if stage.Name == img.build.Name {
					t.Errorf("RUN %q is not a go build", strings.Join(words, " "))
				}
				continue
			case *instructions.ExposeCommand:
				for _, p := range cmd.Ports {
					p, err := expand(p)
					if err != nil {
						return img, err
					}
					img.expose = append(img.expose, p)
				}
				continue
			}
			if e, ok := cmd.(instructions.SupportsSingleWordExpansion); ok {
				if err := e.Expand(expand); err != nil {
					return img, err
				}
			}
			switch cmd := cmd.(type) {
			case *instructions.EnvCommand:
				for _, kv := range cmd.Env {
					img.env[kv.Key] = kv.Value
				}
			case *instructions.CopyCommand:
				if stage.Name == img.build.Name {
					img.copied[cmd.String()] = cmd.SourcePaths
				}
			}
		}
	}
	return img, nil
}

// parseGoBuild splits `[NAME=value...] go build args...`.
func parseGoBuild(words []string) (goBuild, bool) {
	var b goBuild
	i := 0
	for ; i < len(words) && strings.Contains(words[i], "=") && !strings.HasPrefix(words[i], "-"); i++ {
		b.env = append(b.env, words[i])
	}
	if len(words) < i+2 || words[i] != "go" || words[i+1] != "build" {
		return b, false
	}
	b.args = words[i+2:]
	if j := slices.Index(b.args, "-o"); j >= 0 && j+1 < len(b.args) {
		b.output = b.args[j+1]
	}
	return b, true
}

// checkBuildArgs: skaffold or compose passes the Dockerfile exactly c's
// build arguments.
func checkBuildArgs(t *testing.T, got map[string]*string, c component) {
	t.Helper()
	values := map[string]string{}
	for k, v := range got {
		if v == nil {
			t.Errorf("build argument %s has no value", k)
			continue
		}
		values[k] = *v
	}
	if want := c.buildArgs(); !maps.Equal(values, want) {
		t.Errorf("build arguments %v, want %v", values, want)
	}
}

// The Dockerfile refuses a build that lacks one of the arguments every
// component passes, instead of building something else.
func TestDockerfileRequiresItsArguments(t *testing.T) {
	c := components(t)[0]
	if _, err := parseDockerfile(t, c.buildArgs()); err != nil {
		t.Fatalf("with %v: %v", c.buildArgs(), err)
	}
	for name := range c.buildArgs() {
		args := c.buildArgs()
		delete(args, name)
		if _, err := parseDockerfile(t, args); err == nil {
			t.Errorf("without %s, the Dockerfile expands", name)
		}
	}
}

func TestDockerfile(t *testing.T) {
	for _, c := range components(t) {
		t.Run(c.name, func(t *testing.T) {
			img, err := parseDockerfile(t, c.buildArgs())
			if err != nil {
				t.Fatalf("with %v: %v", c.buildArgs(), err)
			}
			if !strings.HasPrefix(img.build.BaseName, "golang:") {
				t.Errorf("build stage from %s, want a golang image", img.build.BaseName)
			}
			if !strings.HasPrefix(img.final.BaseName, "gcr.io/distroless/static") && img.final.BaseName != "scratch" {
				t.Errorf("final stage from %s, want distroless static or scratch", img.final.BaseName)
			}
			var (
				user       string
				entrypoint []string
				copied     []string // what the final stage copies from the build stage
			)
			for _, cmd := range img.final.Commands {
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
					if cmd.From == img.build.Name && cmd.DestPath == "/" {
						copied = append(copied, cmd.SourcePaths...)
					}
				}
			}
			if uid, _, _ := strings.Cut(user, ":"); uid == "" || uid == "0" || uid == "root" {
				t.Errorf("USER %q, want a non-root user", user)
			}
			if got, want := img.env[c.addrVar], "0.0.0.0:"+c.buildArgs()["PORT"]; got != want {
				t.Errorf("ENV %s = %q, want %q (ENV %v)", c.addrVar, got, want, img.env)
			}
			if !slices.Equal(img.expose, []string{c.buildArgs()["PORT"]}) {
				t.Errorf("EXPOSE %v, want %d", img.expose, c.port)
			}

			checkContext(t, c, img.copied)

			// What the image holds: the build's binaries, under / when the
			// final stage copies /out/ there.
			held := map[string]string{}
			for _, b := range img.builds {
				if !slices.Contains(b.env, "CGO_ENABLED=0") || !slices.Contains(b.args, "-trimpath") || b.output == "" || len(b.pkgs()) == 0 {
					t.Errorf("go build %v with %v: want CGO_ENABLED=0, -trimpath, -o and packages", b.args, b.env)
				}
				for bin, pkg := range b.binaries() {
					if !strings.HasPrefix(pkg, "./"+c.dir+"/") && !strings.HasPrefix(pkg, "./libs/") {
						t.Errorf("builds %s, outside libs and %s (the build copies only those)", pkg, c.dir)
					}
					if rest, ok := strings.CutPrefix(bin, "/out/"); ok && slices.Contains(copied, "/out/") {
						held["/"+rest] = pkg
					}
				}
			}
			if len(entrypoint) != 1 || held[entrypoint[0]] != "./"+c.dir+"/cmd/"+c.name {
				t.Errorf("ENTRYPOINT %v runs %q, want ./%s/cmd/%s (image: %v)", entrypoint, held[entrypoint[0]], c.dir, c.name, held)
			}
			// compose's healthcheck runs /probe; identity's image carries identity-admin.
			want := map[string]string{"/probe": "./libs/cmd/probe"}
			for _, p := range c.tools {
				want["/"+path.Base(p)] = p
			}
			for bin, pkg := range want {
				if held[bin] != pkg {
					t.Errorf("the image's %s is %q, want %s (image: %v)", bin, held[bin], pkg, held)
				}
			}

			if !c.module {
				t.Skipf("%s is not on this branch yet: its build commands run once it is", c.dir)
			}
			if testing.Short() {
				t.Skip("-short: the build commands do not run")
			}
			for _, b := range img.builds {
				runBuild(t, b)
			}
		})
	}
}

// runBuild runs a Dockerfile's go build from the repository root, as the
// image build does from its copy, with -o into a temporary directory, and
// checks that static binaries come out.
func runBuild(t *testing.T, b goBuild) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, filepath.Base(b.output))
	if strings.HasSuffix(b.output, "/") {
		out = dir + string(filepath.Separator)
	}
	args := slices.Clone(b.args)
	args[slices.Index(args, "-o")+1] = out
	cmd := exec.Command("go", append([]string{"build"}, args...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), b.env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build %v: %v\n%s", args, err, msg)
	}
	for bin := range b.binaries() {
		checkStatic(t, filepath.Join(dir, path.Base(bin)), bin)
	}
}

// checkStatic: the binary at file (the image's bin) needs no dynamic loader
// or library.
func checkStatic(t *testing.T, file, bin string) {
	t.Helper()
	f, err := elf.Open(file)
	if err != nil {
		t.Fatalf("%s: %v", bin, err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP || p.Type == elf.PT_DYNAMIC {
			t.Errorf("%s is dynamically linked (%s): the distroless static image cannot run it", bin, p.Type)
		}
	}
	if libs, err := f.ImportedLibraries(); err != nil || len(libs) > 0 {
		t.Errorf("%s needs %v (%v), want none", bin, libs, err)
	}
}
