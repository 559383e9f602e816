package manifests

import (
	"context"
	"log/slog"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/compose-spec/compose-go/v2/types"
	"github.com/docspub/platform/services/content"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// migrators are the components with migration steps (libs/migrate), by
// name: what `<binary> migrate` runs, from its environment. Each one's
// Deployment runs it in an init container before the service starts, and
// compose in a one-shot service the component waits for.
var migrators = map[string]starter{
	"content": starterOf(func(ctx context.Context, cfg content.MigrateConfig, log *slog.Logger) error {
		_, err := content.Migrate(ctx, cfg, log, false)
		return err
	}),
}

// checkMigrate: a component with migration steps runs `migrate` (its own
// image, without --destructive) in an init container named migrate,
// locked down as the service is; one without steps has no init container.
func checkMigrate(t *testing.T, c component, d *appsv1.Deployment) {
	t.Helper()
	pod := d.Spec.Template.Spec
	if _, ok := migrators[c.name]; !ok {
		if len(pod.InitContainers) > 0 {
			t.Errorf("%d init containers; %s has no migration steps (add it to migrators if it has)", len(pod.InitContainers), c.name)
		}
		return
	}
	if len(pod.InitContainers) != 1 || pod.InitContainers[0].Name != "migrate" {
		t.Fatalf("init containers %+v; want one, migrate, that applies the migration steps before serving", pod.InitContainers)
	}
	ic := pod.InitContainers[0]
	if ic.Image != pod.Containers[0].Image || !slices.Equal(ic.Args, []string{"migrate"}) || len(ic.Command) > 0 {
		t.Errorf("migrate runs %s %v %v; want the service's image %s with args [migrate]", ic.Image, ic.Command, ic.Args, pod.Containers[0].Image)
	}
	sc := ic.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("migrate's security context %+v, want a read-only root, no privilege escalation, all capabilities dropped", sc)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := ic.Resources.Limits[r]; !ok {
			t.Errorf("migrate has no %s limit", r)
		}
	}
	if secretRefs(ic)["MONGO_URI"] == "" {
		t.Error("migrate's MONGO_URI does not come from a Secret")
	}
}

// migrateOverlay runs each component's init container as the cluster
// would, from its rendered environment, on the test's infrastructure:
// it must apply the steps (the services then start on the migrated
// databases), and a second run must too (nothing left to do).
func migrateOverlay(t *testing.T, ix objects, overlay string, cs []component, secrets map[string]map[string]string, rewrite *strings.Replacer) {
	t.Helper()
	for _, c := range cs {
		m, ok := migrators[c.name]
		if !ok {
			continue
		}
		d := ix["Deployment/"+c.name].(*appsv1.Deployment)
		if len(d.Spec.Template.Spec.InitContainers) == 0 {
			continue // checkMigrate says so
		}
		ic := d.Spec.Template.Spec.InitContainers[0]
		env := renderEnv(t, ix, d, ic, secrets)
		checkComplete(t, overlay, c.name+" migrate", m.cfg, env, configMap(t, ix, ic).Data)
		for k, v := range env {
			env[k] = rewrite.Replace(v)
		}
		for range 2 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			err := m.start(ctx, env, slog.New(slog.DiscardHandler))
			cancel()
			if err != nil {
				t.Fatalf("%s %s migrate: %v", overlay, c.name, err)
			}
		}
	}
}

// The compose stack runs each component's migration steps in a one-shot
// service (its image, `migrate`) that the component waits for.
func TestComposeMigratesBeforeServing(t *testing.T) {
	p, err := loadCompose(t, filepath.Join(root, "deployments/compose/compose.yaml"))
	if err != nil {
		t.Fatalf("load compose.yaml: %v", err)
	}
	for _, c := range components(t) {
		s, err := p.GetService(c.name)
		if err != nil {
			t.Fatalf("no compose service %s", c.name)
		}
		dep, waits := s.DependsOn[c.name+"-migrate"]
		if _, ok := migrators[c.name]; !ok {
			if waits {
				t.Errorf("%s waits for %s-migrate; it has no migration steps", c.name, c.name)
			}
			continue
		}
		if !waits || dep.Condition != types.ServiceConditionCompletedSuccessfully {
			t.Errorf("%s depends_on %s-migrate = %+v; want condition service_completed_successfully", c.name, c.name, dep)
		}
		m, err := p.GetService(c.name + "-migrate")
		if err != nil {
			t.Fatalf("no compose service %s-migrate", c.name)
		}
		if m.Build == nil || s.Build == nil || !reflect.DeepEqual(*m.Build, *s.Build) {
			t.Errorf("%s-migrate builds %+v; want the service's build %+v", c.name, m.Build, s.Build)
		}
		if m.Image != s.Image || !slices.Equal(m.Command, types.ShellCommand{"migrate"}) || m.Restart != "no" {
			t.Errorf("%s-migrate runs %s %v (restart %q); want %s migrate, once", c.name, m.Image, m.Command, m.Restart, s.Image)
		}
		if d, ok := m.DependsOn["mongo"]; !ok || d.Condition != types.ServiceConditionHealthy {
			t.Errorf("%s-migrate depends_on mongo = %+v, want condition service_healthy", c.name, d)
		}
		for _, k := range []string{"MONGO_URI", c.name + "_DB", "BLOB_URL"} {
			k = strings.ToUpper(k)
			if want := s.Environment[k]; want != nil && (m.Environment[k] == nil || *m.Environment[k] != *want) {
				t.Errorf("%s-migrate %s = %v, want the service's %s", c.name, k, ptrValue(m.Environment[k]), *want)
			}
		}
	}
}
