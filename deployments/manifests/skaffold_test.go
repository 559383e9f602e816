package manifests

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/GoogleContainerTools/skaffold/v2/pkg/skaffold/schema/latest"
	skaffoldyaml "github.com/GoogleContainerTools/skaffold/v2/pkg/skaffold/yaml"
	"gopkg.in/yaml.v3"
)

// skaffoldConfigs decodes every document of skaffold.yaml strictly into
// skaffold's own schema types, by metadata.name.
func skaffoldConfigs(t *testing.T) (map[string]*latest.SkaffoldConfig, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "skaffold.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	configs := map[string]*latest.SkaffoldConfig{}
	var order []string
	dec := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		doc, err := yaml.Marshal(&node)
		if err != nil {
			t.Fatal(err)
		}
		var c latest.SkaffoldConfig
		if err := skaffoldyaml.UnmarshalStrict(doc, &c); err != nil {
			t.Fatalf("skaffold.yaml document %d: %v", len(order)+1, err)
		}
		if c.APIVersion != latest.Version || c.Kind != "Config" {
			t.Errorf("config %s: %s %s, want %s Config", c.Metadata.Name, c.APIVersion, c.Kind, latest.Version)
		}
		if _, dup := configs[c.Metadata.Name]; dup || c.Metadata.Name == "" {
			t.Errorf("config name %q is empty or repeated", c.Metadata.Name)
		}
		configs[c.Metadata.Name] = &c
		order = append(order, c.Metadata.Name)
	}
	return configs, order
}

func TestSkaffoldStrictDecodingRefusesUnknownFields(t *testing.T) {
	var c latest.SkaffoldConfig
	err := skaffoldyaml.UnmarshalStrict([]byte("apiVersion: "+latest.Version+"\nkind: Config\nbuild:\n  artifact: []\n"), &c)
	if err == nil {
		t.Error("a misspelt field decoded")
	}
}

// Every component has a config of its name that builds its image from the
// root with the Dockerfile and its build arguments, and deploys its overlay, per profile; "all"
// requires them all, passing the profile on.
func TestSkaffoldHasAConfigPerComponent(t *testing.T) {
	configs, _ := skaffoldConfigs(t)
	all, ok := configs["all"]
	if !ok {
		t.Fatal("no config named all")
	}
	var required []string
	for _, dep := range all.Dependencies {
		required = append(required, dep.Names...)
		var active []string
		for _, p := range dep.ActiveProfiles {
			if slices.Equal(p.ActivatedBy, []string{p.Name}) {
				active = append(active, p.Name)
			}
		}
		if !slices.Equal(active, []string{"dev", "prod"}) {
			t.Errorf("all requires %v with profiles %+v, want dev and prod passed on", dep.Names, dep.ActiveProfiles)
		}
	}
	for name := range configs {
		if name != "all" && !slices.Contains(required, name) {
			t.Errorf("all does not require %s", name)
		}
	}
	if !slices.Contains(required, "infra") {
		t.Error("all does not require infra")
	}
	for _, c := range components(t) {
		t.Run(c.name, func(t *testing.T) {
			cfg, ok := configs[c.name]
			if !ok {
				t.Fatalf("no skaffold config named %s", c.name)
			}
			if !slices.Contains(required, c.name) {
				t.Errorf("all does not require %s", c.name)
			}
			arts := cfg.Build.Artifacts
			if len(arts) != 1 || arts[0].ImageName != "docspub/"+c.name || arts[0].Workspace != "." ||
				arts[0].DockerArtifact == nil || arts[0].DockerArtifact.DockerfilePath != dockerfile {
				t.Fatalf("artifacts %+v, want docspub/%s built from the root with %s", arts, c.name, dockerfile)
			}
			checkBuildArgs(t, arts[0].DockerArtifact.BuildArgs, c)
			checkKustomize(t, cfg.Render, "k8s/overlays/dev/"+c.name)
			profiles := map[string]latest.Profile{}
			for _, p := range cfg.Profiles {
				profiles[p.Name] = p
			}
			for _, overlay := range []string{"dev", "prod"} {
				p, ok := profiles[overlay]
				if !ok {
					t.Errorf("no profile %s", overlay)
					continue
				}
				checkKustomize(t, p.Render, "k8s/overlays/"+overlay+"/"+c.name)
			}
		})
	}
}

func checkKustomize(t *testing.T, r latest.RenderConfig, want string) {
	t.Helper()
	if r.Kustomize == nil || !slices.Equal(r.Kustomize.Paths, []string{want}) {
		t.Errorf("kustomize %+v, want paths [%s]", r.Kustomize, want)
		return
	}
	if _, err := os.Stat(filepath.Join(root, want, "kustomization.yaml")); err != nil {
		t.Errorf("kustomize path %s: %v", want, err)
	}
}
