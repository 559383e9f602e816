package manifests

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/docspub/platform/gateway"
	"github.com/docspub/platform/libs/httpx"
	"github.com/docspub/platform/libs/otelx"
	"github.com/docspub/platform/libs/service"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// decoder decodes YAML strictly into the Kubernetes API types: an unknown
// or duplicated field, or a kind outside the scheme, is an error.
func decoder(t *testing.T) runtime.Decoder {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme,
		autoscalingv2.AddToScheme, networkingv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
}

// build runs kustomize on dir (from the root) and decodes every object.
func build(t *testing.T, dir string) []runtime.Object {
	t.Helper()
	m, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), filepath.Join(root, dir))
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	return decodeAll(t, dir, m)
}

// decodeAll decodes every object of m strictly: the Kubernetes API's kinds
// into their types, the custom resources (crds) into this package's.
func decodeAll(t *testing.T, dir string, m resmap.ResMap) []runtime.Object {
	t.Helper()
	dec := decoder(t)
	var objs []runtime.Object
	for _, r := range m.Resources() {
		y, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		if newCR, ok := crds[r.GetApiVersion()+"/"+r.GetKind()]; ok {
			obj := newCR()
			if err := yaml.UnmarshalStrict(y, obj); err != nil {
				t.Fatalf("%s: %s/%s does not decode strictly: %v", dir, r.GetKind(), r.GetName(), err)
			}
			objs = append(objs, obj)
			continue
		}
		obj, _, err := dec.Decode(y, nil, nil)
		if err != nil {
			t.Fatalf("%s: %s/%s does not decode strictly: %v", dir, r.GetKind(), r.GetName(), err)
		}
		objs = append(objs, obj)
	}
	return objs
}

// The decoder is strict: a misspelt field fails.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	y := []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  replica: 2\n")
	if _, _, err := decoder(t).Decode(y, nil, nil); err == nil || !strings.Contains(err.Error(), "replica") {
		t.Errorf("decoding a misspelt field = %v, want a strict decoding error naming it", err)
	}
}

// objects indexes decoded objects by kind and name.
type objects map[string]runtime.Object

func index(objs []runtime.Object) objects {
	ix := objects{}
	for _, o := range objs {
		kind := fmt.Sprintf("%T", o)
		kind = kind[strings.LastIndex(kind, ".")+1:]
		ix[kind+"/"+name(o)] = o
	}
	return ix
}

func name(o runtime.Object) string {
	type named interface{ GetName() string }
	return o.(named).GetName()
}

func of[T runtime.Object](ix objects) []T {
	var out []T
	for _, o := range ix {
		if v, ok := o.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// grace is the termination grace every component needs: the preStop pause,
// discovery's deregistration and linger, the drain of in-flight requests,
// closing the app and flushing traces.
func grace(preStop int64) int64 {
	d := time.Duration(preStop)*time.Second + service.DeregisterTimeout + httpx.Linger + httpx.ShutdownTimeout + 2*service.CloseTimeout
	return int64(d / time.Second)
}

func TestOverlaysBuildAndDecodeStrictly(t *testing.T) {
	cs := components(t)
	for _, overlay := range []string{"dev", "prod"} {
		t.Run(overlay, func(t *testing.T) {
			ix := index(build(t, "k8s/overlays/"+overlay))
			secrets := map[string]bool{}
			for _, s := range of[*corev1.Secret](ix) {
				secrets[s.Name] = true
			}
			for _, c := range cs {
				t.Run(c.name, func(t *testing.T) {
					// Each component's overlay builds alone (skaffold -m <component>).
					build(t, "k8s/overlays/"+overlay+"/"+c.name)
					checkComponent(t, ix, overlay, c, secrets)
				})
			}
			checkExposure(t, ix, overlay)
			checkInfrastructure(t, ix, overlay)
		})
	}
}

func checkComponent(t *testing.T, ix objects, overlay string, c component, secrets map[string]bool) {
	d, ok := ix["Deployment/"+c.name].(*appsv1.Deployment)
	if !ok {
		t.Fatalf("no Deployment %s", c.name)
	}
	for _, kind := range []string{"Service", "ServiceAccount", "PodDisruptionBudget"} {
		if _, ok := ix[kind+"/"+c.name]; !ok {
			t.Errorf("no %s %s", kind, c.name)
		}
	}
	hpa, hasHPA := ix["HorizontalPodAutoscaler/"+c.name].(*autoscalingv2.HorizontalPodAutoscaler)
	// A Deployment under an autoscaler sets no replicas: every apply
	// would reset the autoscaler's count.
	if hasHPA && d.Spec.Replicas != nil {
		t.Errorf("replicas %d under an autoscaler; want none (the autoscaler owns the count)", *d.Spec.Replicas)
	}
	switch overlay {
	case "dev":
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || hasHPA {
			t.Errorf("dev: replicas %v, autoscaler %v; want 1 replica and none", ptrValue(d.Spec.Replicas), hasHPA)
		}
	case "prod":
		if !hasHPA || *hpa.Spec.MinReplicas < 2 || hpa.Spec.ScaleTargetRef.Name != c.name {
			t.Errorf("prod: autoscaler %v; want an autoscaler of the Deployment with several replicas at least", hasHPA)
		}
	}
	checkScheduling(t, d)
	checkMigrate(t, c, d)
	if hasHPA {
		// Every replica's consumer gets a partition of the topics it provisions.
		cm := configMap(t, ix, d.Spec.Template.Spec.Containers[0])
		if n, _ := strconv.Atoi(cm.Data["KAFKA_TOPIC_PARTITIONS"]); n < int(hpa.Spec.MaxReplicas) {
			t.Errorf("KAFKA_TOPIC_PARTITIONS %q under the autoscaler's maxReplicas %d: replicas past it would consume nothing", cm.Data["KAFKA_TOPIC_PARTITIONS"], hpa.Spec.MaxReplicas)
		}
	}

	pod := d.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want 1", len(pod.Containers))
	}
	ctr := pod.Containers[0]
	checkImage(t, overlay, c.name, ctr.Image)
	if pod.SecurityContext == nil || pod.SecurityContext.RunAsNonRoot == nil || !*pod.SecurityContext.RunAsNonRoot {
		t.Error("pod does not require a non-root user")
	}
	if pod.ServiceAccountName != c.name || pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Errorf("service account %q (token mounted: %v), want its own without token", pod.ServiceAccountName, pod.AutomountServiceAccountToken)
	}
	sc := ctr.SecurityContext
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
		sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
		sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
		t.Errorf("container security context %+v, want a read-only root, no privilege escalation, all capabilities dropped", sc)
	}
	if ctr.ReadinessProbe == nil || ctr.ReadinessProbe.HTTPGet == nil || ctr.ReadinessProbe.HTTPGet.Path != "/readyz" ||
		ctr.LivenessProbe == nil || ctr.LivenessProbe.HTTPGet == nil || ctr.LivenessProbe.HTTPGet.Path != "/healthz" {
		t.Error("want readiness on /readyz and liveness on /healthz")
	}
	// Start-up (index builds) gets its own budget, far above liveness's.
	if sp := ctr.StartupProbe; sp == nil || sp.HTTPGet == nil || sp.HTTPGet.Path != "/healthz" ||
		int(sp.PeriodSeconds)*int(sp.FailureThreshold) < 120 {
		t.Errorf("startupProbe %+v; want one on /healthz allowing at least 2 minutes", sp)
	} else if lp := ctr.LivenessProbe; lp.InitialDelaySeconds != 0 {
		t.Errorf("liveness waits %ds; the startupProbe holds it back already", lp.InitialDelaySeconds)
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if _, ok := ctr.Resources.Requests[r]; !ok {
			t.Errorf("no %s request", r)
		}
		if _, ok := ctr.Resources.Limits[r]; !ok {
			t.Errorf("no %s limit", r)
		}
	}
	if len(ctr.Ports) < 2 || ctr.Ports[0].ContainerPort != int32(c.port) || ctr.Ports[0].Name != "http" ||
		ctr.Ports[1].ContainerPort != adminPort || ctr.Ports[1].Name != "metrics" || !gatewayPorts(c.name, ctr.Ports[2:]) {
		t.Errorf("ports %+v, want http on %d and metrics on %d (and the gateway's readers on %d, the prod gateway's tls on 8443 and acme-http on 8880)",
			ctr.Ports, c.port, adminPort, readersPort)
	}
	checkMemoryLimit(t, ctr)
	var preStop int64
	if ctr.Lifecycle != nil && ctr.Lifecycle.PreStop != nil && ctr.Lifecycle.PreStop.Sleep != nil {
		preStop = ctr.Lifecycle.PreStop.Sleep.Seconds
	}
	if preStop == 0 || pod.TerminationGracePeriodSeconds == nil || *pod.TerminationGracePeriodSeconds != grace(preStop) {
		t.Errorf("preStop sleep %ds, grace %v; want a preStop sleep and a grace of %ds (preStop + deregister + linger + drain + close + flush)",
			preStop, ptrValue(pod.TerminationGracePeriodSeconds), grace(preStop))
	}

	// Configuration: the listen address on the container port, secrets by reference.
	cm := configMap(t, ix, ctr)
	if got, want := cm.Data[c.addrVar], "0.0.0.0:"+strconv.Itoa(c.port); got != want {
		t.Errorf("%s = %q, want %q", c.addrVar, got, want)
	}
	for _, k := range []string{"DISCOVERY", "OTEL_TRACES_EXPORTER", "LOG_LEVEL", "OTEL_TRACES_SAMPLER", "OTEL_TRACES_SAMPLER_ARG"} {
		if cm.Data[k] == "" {
			t.Errorf("ConfigMap has no %s", k)
		}
	}
	if _, err := otelx.Sampler(cm.Data["OTEL_TRACES_SAMPLER"], cm.Data["OTEL_TRACES_SAMPLER_ARG"]); err != nil {
		t.Errorf("sampling: %v", err)
	}
	if got, want := cm.Data["ADMIN_ADDR"], "0.0.0.0:"+strconv.Itoa(adminPort); got != want {
		t.Errorf("ADMIN_ADDR = %q, want %q (the metrics port)", got, want)
	}
	refs := secretRefs(ctr)
	if refs["INTERNAL_TOKEN_SECRET"] == "" {
		t.Error("INTERNAL_TOKEN_SECRET does not come from a Secret")
	}
	for _, k := range []string{"INTERNAL_TOKEN_SECRET", "MONGO_URI", "KAFKA_BROKERS", "REDIS_URL"} {
		if _, inConfig := cm.Data[k]; inConfig {
			t.Errorf("%s is in the ConfigMap, want a Secret reference", k)
		}
	}
	if c.name == "gateway" && refs["REDIS_URL"] == "" {
		t.Error("the gateway's REDIS_URL does not come from a Secret")
	}
	if c.name != "gateway" && refs["MONGO_URI"] == "" {
		t.Error("MONGO_URI does not come from a Secret")
	}
	if refs["KAFKA_BROKERS"] == "" {
		t.Error("KAFKA_BROKERS does not come from a Secret")
	}
	// Each component's own database and Kafka users: from its own Secret.
	for _, k := range []string{"MONGO_URI", "KAFKA_SASL_USERNAME", "KAFKA_SASL_PASSWORD"} {
		if s, ok := refs[k]; ok && s != "docspub-"+c.name {
			t.Errorf("%s comes from Secret %s, want docspub-%s (the component's own user)", k, s, c.name)
		}
	}
	for env, secret := range refs {
		optional := false
		for _, e := range ctr.Env {
			if e.Name == env && e.ValueFrom.SecretKeyRef.Optional != nil {
				optional = *e.ValueFrom.SecretKeyRef.Optional
			}
		}
		switch overlay {
		case "dev":
			if !secrets[secret] && !optional {
				t.Errorf("%s refers to Secret %s, which dev does not create", env, secret)
			}
		case "prod":
			if secrets[secret] {
				t.Errorf("prod creates Secret %s: production secrets come from the operator", secret)
			}
			if secret != "docspub-internal" && secret != "docspub-infra" && secret != "docspub-"+c.name {
				t.Errorf("%s refers to Secret %s; deploy.md documents docspub-internal, docspub-infra and docspub-%s", env, secret, c.name)
			}
		}
	}
	if overlay == "dev" && cm.Data["DISCOVERY"] != "consul" {
		t.Errorf("dev DISCOVERY = %q, want consul (the in-cluster agent)", cm.Data["DISCOVERY"])
	}
}

func configMap(t *testing.T, ix objects, ctr corev1.Container) *corev1.ConfigMap {
	t.Helper()
	if len(ctr.EnvFrom) != 1 || ctr.EnvFrom[0].ConfigMapRef == nil {
		t.Fatalf("envFrom %+v, want one ConfigMap", ctr.EnvFrom)
	}
	cm, ok := ix["ConfigMap/"+ctr.EnvFrom[0].ConfigMapRef.Name].(*corev1.ConfigMap)
	if !ok {
		t.Fatalf("ConfigMap %s is not in the build", ctr.EnvFrom[0].ConfigMapRef.Name)
	}
	return cm
}

// secretRefs maps each variable read from a Secret to the Secret's name.
func secretRefs(ctr corev1.Container) map[string]string {
	refs := map[string]string{}
	for _, e := range ctr.Env {
		if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
			refs[e.Name] = e.ValueFrom.SecretKeyRef.Name
		}
	}
	return refs
}

// checkExposure: every Service is cluster-internal; in prod the one Ingress
// leads to the gateway.
func checkExposure(t *testing.T, ix objects, overlay string) {
	for _, s := range of[*corev1.Service](ix) {
		if overlay == "prod" && s.Name == "gateway-custom-hostnames" {
			checkCustomHostnames(t, s)
			continue
		}
		if s.Spec.Type != "" && s.Spec.Type != corev1.ServiceTypeClusterIP {
			t.Errorf("Service %s is %s, want ClusterIP (only the gateway is exposed: through the Ingress, and its custom hostnames' LoadBalancer)", s.Name, s.Spec.Type)
		}
	}
	if _, ok := ix["Service/gateway-custom-hostnames"]; overlay == "prod" && !ok {
		t.Error("prod has no LoadBalancer of custom hostnames (gateway-custom-hostnames)")
	}
	ingresses := of[*networkingv1.Ingress](ix)
	if overlay == "dev" {
		if len(ingresses) != 0 {
			t.Errorf("dev has %d Ingresses, want none (skaffold forwards the gateway's port)", len(ingresses))
		}
		return
	}
	if len(ingresses) != 1 {
		t.Fatalf("prod has %d Ingresses, want 1", len(ingresses))
	}
	ing := ingresses[0]
	if ing.Spec.IngressClassName == nil || *ing.Spec.IngressClassName == "" {
		t.Error("the Ingress has no ingressClassName")
	}
	// An explicit host per rule, no default backend: the Ingress does not
	// claim a shared controller's default server.
	api := strings.TrimPrefix(prodPublicURL, "https://")
	if ing.Spec.DefaultBackend != nil {
		t.Error("the Ingress has a default backend: it would claim the controller's default server")
	}
	for _, r := range ing.Spec.Rules {
		if r.Host != api {
			t.Errorf("Ingress rule for host %q; want only the API host %s (no catch-all without host)", r.Host, api)
		}
	}
	if len(ing.Spec.TLS) == 0 || !slices.Contains(ing.Spec.TLS[0].Hosts, api) {
		t.Errorf("Ingress TLS %+v; want the API host", ing.Spec.TLS)
	}
	// Published sites (PUBLISHED_URL's path) to the readers' listener, the
	// rest to the API's.
	backends := map[string]string{}
	for _, r := range ing.Spec.Rules {
		for _, p := range r.HTTP.Paths {
			if p.Backend.Service == nil || p.Backend.Service.Name != "gateway" {
				t.Errorf("the Ingress leads to %+v, want the gateway only", p.Backend)
				continue
			}
			backends[p.Path] = p.Backend.Service.Port.Name
		}
	}
	if want := map[string]string{"/": "http", "/sites": "readers"}; !maps.Equal(backends, want) {
		t.Errorf("the Ingress's paths lead to the gateway's ports %v; want %v", backends, want)
	}
	checkEdgeLimits(t, ix, ing)
}

// gatewayPorts tells whether extra are no ports for a service, or the
// gateway's readers' listener (READER_ADDR :8088) and, in prod, its
// listeners of custom hostnames (TLS_ADDR :8443, ACME_HTTP_ADDR :8880).
func gatewayPorts(name string, extra []corev1.ContainerPort) bool {
	if name != "gateway" {
		return len(extra) == 0
	}
	if len(extra) == 0 || extra[0].Name != "readers" || extra[0].ContainerPort != readersPort {
		return false
	}
	extra = extra[1:]
	return len(extra) == 0 || (len(extra) == 2 &&
		extra[0].Name == "tls" && extra[0].ContainerPort == 8443 && extra[1].Name == "acme-http" && extra[1].ContainerPort == 8880)
}

// readersPort is the gateway's readers' listener's (READER_ADDR).
const readersPort = 8088

// checkCustomHostnames: custom hostnames' LoadBalancer leads to the
// gateway alone, 443 to its TLS listener and 80 to its HTTP-01 listener.
func checkCustomHostnames(t *testing.T, s *corev1.Service) {
	t.Helper()
	if s.Spec.Type != corev1.ServiceTypeLoadBalancer || s.Spec.Selector["app.kubernetes.io/name"] != "gateway" || len(s.Spec.Selector) != 1 {
		t.Errorf("Service %s: type %s, selector %v; want a LoadBalancer of the gateway", s.Name, s.Spec.Type, s.Spec.Selector)
	}
	ports := map[int32]string{}
	for _, p := range s.Spec.Ports {
		ports[p.Port] = p.TargetPort.String()
	}
	if len(ports) != 2 || ports[443] != "tls" || ports[80] != "acme-http" {
		t.Errorf("Service %s ports %v; want 443 to tls and 80 to acme-http", s.Name, ports)
	}
}

// checkEdgeLimits: the Ingress controller takes the bodies the gateway
// takes (MAX_BODY_BYTES, as its ConfigMap sets it or the code defaults it:
// 10 MiB; ingress-nginx's default is 1 MiB), streams them, and waits for the
// gateway exactly as long as the gateway's server reads a request
// (proxy-send-timeout: httpx.ReadTimeout) and writes a response
// (proxy-read-timeout: httpx.WriteTimeout, beyond UPSTREAM_TIMEOUT).
func checkEdgeLimits(t *testing.T, ix objects, ing *networkingv1.Ingress) {
	d, ok := ix["Deployment/gateway"].(*appsv1.Deployment)
	if !ok {
		t.Fatal("no gateway Deployment")
	}
	gw := configMap(t, ix, d.Spec.Template.Spec.Containers[0]).Data
	setting := func(name string) string {
		if v, ok := gw[name]; ok {
			return v
		}
		for _, v := range envVars(gateway.Config{}) {
			if v.name == name {
				return v.def
			}
		}
		t.Fatalf("the gateway's configuration has no %s", name)
		return ""
	}
	maxBody, err := strconv.ParseInt(setting("MAX_BODY_BYTES"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	annotation := func(name string) string { return ing.Annotations["nginx.ingress.kubernetes.io/"+name] }
	body := annotation("proxy-body-size")
	n, err := strconv.ParseInt(strings.TrimSuffix(body, "m"), 10, 64)
	if err != nil || !strings.HasSuffix(body, "m") || n<<20 != maxBody {
		t.Errorf("the Ingress's proxy-body-size is %q, the gateway's MAX_BODY_BYTES %d: want the same size", body, maxBody)
	}
	if b := annotation("proxy-request-buffering"); b != "off" {
		t.Errorf("proxy-request-buffering %q, want off (bodies streamed to the gateway)", b)
	}
	upstream, err := time.ParseDuration(setting("UPSTREAM_TIMEOUT"))
	if err != nil {
		t.Fatalf("the gateway's UPSTREAM_TIMEOUT: %v", err)
	}
	for a, want := range map[string]time.Duration{"proxy-send-timeout": httpx.ReadTimeout, "proxy-read-timeout": httpx.WriteTimeout} {
		s, err := strconv.Atoi(annotation(a))
		if err != nil || time.Duration(s)*time.Second != want {
			t.Errorf("the Ingress's %s is %q, want %d (the gateway's server timeout)", a, annotation(a), int(want.Seconds()))
		}
	}
	if httpx.WriteTimeout < upstream {
		t.Errorf("UPSTREAM_TIMEOUT %s is longer than the server's WriteTimeout %s", upstream, httpx.WriteTimeout)
	}
}

// infrastructure are dev's in-cluster workloads; prod has none of them.
var infrastructure = []string{"mongo", "kafka", "redis", "consul", "otel-collector"}

func checkInfrastructure(t *testing.T, ix objects, overlay string) {
	workloads := map[string]corev1.PodSpec{}
	for _, d := range of[*appsv1.Deployment](ix) {
		workloads[d.Name] = d.Spec.Template.Spec
	}
	for _, s := range of[*appsv1.StatefulSet](ix) {
		workloads[s.Name] = s.Spec.Template.Spec
	}
	for _, name := range infrastructure {
		_, ok := workloads[name]
		if overlay == "prod" && ok {
			t.Errorf("prod runs %s; production infrastructure is external", name)
		}
		if overlay == "dev" && !ok {
			t.Errorf("dev does not run %s", name)
		}
	}
	if overlay == "prod" {
		return
	}
	env := func(spec corev1.PodSpec, name string) string {
		for _, e := range spec.Containers[0].Env {
			if e.Name == name {
				return e.Value
			}
		}
		return ""
	}
	if roles := env(workloads["kafka"], "KAFKA_PROCESS_ROLES"); roles != "broker,controller" {
		t.Errorf("kafka KAFKA_PROCESS_ROLES = %q, want broker,controller (KRaft, no ZooKeeper)", roles)
	}
	if args := workloads["mongo"].Containers[0].Args; !slices.Contains(args, "--replSet") {
		t.Errorf("mongo args %v, want a replica set", args)
	}
	// The replica set is initiated before the pod is ready: its name must
	// resolve then (headless, not-ready addresses published).
	if s, ok := ix["Service/mongo"].(*corev1.Service); !ok || s.Spec.ClusterIP != corev1.ClusterIPNone || !s.Spec.PublishNotReadyAddresses {
		t.Error("Service mongo is not headless with publishNotReadyAddresses: initiating the replica set would wait for a readiness it gives")
	}
	kafka := workloads["kafka"].Containers[0]
	mounted := false
	for _, m := range kafka.VolumeMounts {
		mounted = mounted || m.MountPath == env(workloads["kafka"], "KAFKA_LOG_DIRS")
	}
	if !mounted {
		t.Errorf("kafka writes to %q, where no volume is mounted", env(workloads["kafka"], "KAFKA_LOG_DIRS"))
	}
	if auto := env(workloads["kafka"], "KAFKA_AUTO_CREATE_TOPICS_ENABLE"); auto != "false" {
		t.Errorf("kafka KAFKA_AUTO_CREATE_TOPICS_ENABLE = %q, want false (the components provision their topics)", auto)
	}
}

func ptrValue[T any](p *T) any {
	if p == nil {
		return "unset"
	}
	return *p
}
