package manifests

import (
	"io/fs"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// envSettings are an environment's settings, as its settings component
// (k8s/overlays/<env>/settings/kustomization.yaml) writes them.
type envSettings struct {
	file      string // from the root
	namespace string
	tags      map[string]string // image name → tag
	literals  map[string]string // docspub-settings
}

func (s envSettings) host() string {
	u, _ := url.Parse(s.literals["PUBLIC_URL"])
	return u.Host
}

// settingsOf reads env's settings component strictly.
func settingsOf(t *testing.T, env string) envSettings {
	t.Helper()
	s := envSettings{file: "k8s/overlays/" + env + "/settings/kustomization.yaml", tags: map[string]string{}, literals: map[string]string{}}
	var k types.Kustomization
	if err := yaml.UnmarshalStrict([]byte(readFile(t, filepath.Join(root, s.file))), &k); err != nil {
		t.Fatalf("%s: %v", s.file, err)
	}
	if k.Kind != types.ComponentKind || k.Namespace == "" {
		t.Fatalf("%s: kind %s, namespace %q; want a Component setting the namespace", s.file, k.Kind, k.Namespace)
	}
	s.namespace = k.Namespace
	for _, img := range k.Images {
		s.tags[img.Name] = img.NewTag
	}
	for _, g := range k.ConfigMapGenerator {
		if g.Name != "docspub-settings" {
			continue
		}
		for _, l := range g.LiteralSources {
			k, v, _ := strings.Cut(l, "=")
			s.literals[k] = v
		}
	}
	for _, k := range []string{"PUBLIC_URL", "TLS_ISSUER"} {
		if s.literals[k] == "" {
			t.Errorf("%s: docspub-settings has no %s", s.file, k)
		}
	}
	return s
}

// settingKey matches a line that sets what the settings components own.
// (a namespace at the top or in metadata; another namespace, such as an
// HTTPRoute's parent Gateway's, is deeper).
var settingKey = regexp.MustCompile(`^((  )?namespace|\s*-?\s*(newTag|newName|digest|cert-manager\.io/cluster-issuer)):\s*\S`)

// TestSettingsInOnePlace: each environment's namespace, image tags, public
// host and TLS issuer are written in its settings component and nowhere
// else in k8s/ (the release component aside, which `make release` writes),
// and every rendered object carries them.
func TestSettingsInOnePlace(t *testing.T) {
	all := map[string]envSettings{"dev": settingsOf(t, "dev"), "prod": settingsOf(t, "prod")}
	err := filepath.WalkDir(filepath.Join(root, "k8s"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for i, line := range strings.Split(readFile(t, path), "\n") {
			l := strings.TrimRight(line, " ")
			if strings.HasPrefix(strings.TrimSpace(l), "#") || rel == all["dev"].file || rel == all["prod"].file {
				continue
			}
			if settingKey.MatchString(l) && !strings.Contains(l, "set-by-settings") && rel != "k8s/components/release/kustomization.yaml" {
				t.Errorf("%s:%d: %q; the namespace, images and TLS issuer belong in k8s/overlays/<env>/settings", rel, i+1, l)
			}
			for env, s := range all {
				if h := s.host(); !strings.HasPrefix(h, "127.0.0.1") && strings.Contains(l, h) {
					t.Errorf("%s:%d names %s's host %s; it belongs in %s", rel, i+1, env, h, s.file)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for env, s := range all {
		t.Run(env, func(t *testing.T) { checkSettingsRendered(t, s, build(t, "k8s/overlays/"+env)) })
	}
}

// checkSettingsRendered: the rendered objects carry the settings s.
func checkSettingsRendered(t *testing.T, s envSettings, objs []runtime.Object) {
	for _, o := range objs {
		y, _ := yaml.Marshal(o)
		if strings.Contains(string(y), "set-by-settings") {
			t.Errorf("%T %s keeps a placeholder the settings should have replaced", o, name(o))
		}
		switch o := o.(type) {
		case *corev1.Namespace:
			if o.Name != s.namespace {
				t.Errorf("Namespace %s, want %s", o.Name, s.namespace)
			}
		case *corev1.ConfigMap:
			for _, k := range []string{"PUBLIC_URL", "APP_URL", "PUBLISHED_URL"} {
				if v, ok := o.Data[k]; ok && !strings.HasPrefix(v, s.literals["PUBLIC_URL"]) {
					t.Errorf("%s %s = %s, want it under %s", o.Name, k, v, s.literals["PUBLIC_URL"])
				}
			}
		case *networkingv1.Ingress:
			if o.Annotations["cert-manager.io/cluster-issuer"] != s.literals["TLS_ISSUER"] || o.Spec.Rules[0].Host != s.host() {
				t.Errorf("Ingress issuer %q host %q, want %q %q", o.Annotations["cert-manager.io/cluster-issuer"], o.Spec.Rules[0].Host, s.literals["TLS_ISSUER"], s.host())
			}
		case *appsv1.Deployment:
			for _, c := range append(o.Spec.Template.Spec.InitContainers, o.Spec.Template.Spec.Containers...) {
				n, tag, _ := strings.Cut(c.Image, ":")
				if want, ok := s.tags[n]; ok && tag != want {
					t.Errorf("%s runs %s, want the tag %s", o.Name, c.Image, want)
				}
			}
		}
		if m, ok := o.(interface{ GetNamespace() string }); ok {
			if _, isNS := o.(*corev1.Namespace); !isNS && m.GetNamespace() != s.namespace {
				t.Errorf("%T %s in namespace %q, want %s", o, name(o), m.GetNamespace(), s.namespace)
			}
		}
	}
}

// TestReleaseComponentIsEmpty: the committed release component pins
// nothing (make release writes it; committing a release is the operator's
// choice in their own repository).
func TestReleaseComponentIsEmpty(t *testing.T) {
	var k types.Kustomization
	if err := yaml.UnmarshalStrict([]byte(readFile(t, filepath.Join(root, "k8s/components/release/kustomization.yaml"))), &k); err != nil {
		t.Fatal(err)
	}
	if k.Kind != types.ComponentKind || len(k.Images) != 0 {
		t.Errorf("the release component is %s with images %+v; want an empty Component", k.Kind, k.Images)
	}
}
