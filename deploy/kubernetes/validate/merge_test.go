package validate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/resmap"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// mergeComponent is the kustomize component with which the gateways merge every node's
// records by time.
const mergeComponent = "components/merge"

// mergeOverlays are the overlays whose gateways merge: the merge component alone (agents
// route with load_balancing), and with the Kafka component after it (agents produce to Kafka).
var mergeOverlays = [][]string{{mergeComponent}, {mergeComponent, kafkaComponent}}

// forEachOverlay runs check as a subtest on each of mergeOverlays, rendered.
func forEachOverlay(t *testing.T, check func(t *testing.T, r *rendered)) {
	for _, components := range mergeOverlays {
		t.Run(strings.Join(components, "+"), func(t *testing.T) { check(t, render(t, overlay(t, components...))) })
	}
}

// overlay writes an overlay as the components' READMEs show it, the base with the components
// in order, in a directory of its own (kustomize refuses an overlay inside its base's
// directory), and returns that directory.
func overlay(t *testing.T, components ...string) string {
	t.Helper()
	base, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	overlay := t.TempDir()
	rel, err := filepath.Rel(overlay, base) // kustomize takes no absolute paths
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, c := range components {
		paths = append(paths, fmt.Sprintf("%q", filepath.ToSlash(filepath.Join(rel, filepath.FromSlash(c)))))
	}
	text := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [%q]\ncomponents: [%s]\n",
		filepath.ToSlash(rel), strings.Join(paths, ", "))
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return overlay
}

// rendered is what `kubectl apply -k` of an overlay creates, rendered by kustomize's
// own library (as kubectl does) and decoded strictly.
type rendered struct {
	daemonSets   []*appsv1.DaemonSet
	deployments  []*appsv1.Deployment
	statefulSets []*appsv1.StatefulSet
	services     map[string]*corev1.Service
	configMaps   map[string]*corev1.ConfigMap // by name, hash suffix included
	clusterRoles map[string]*rbacv1.ClusterRole
	bindings     []*rbacv1.ClusterRoleBinding
	namespaces   map[string]*corev1.Namespace
	hardeningObjects
}

func render(t *testing.T, kustomizationDir string) *rendered {
	t.Helper()
	var docs [][]byte
	for _, res := range kustomizeBuild(t, kustomizationDir).Resources() {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, y)
	}
	return decodeRendered(t, docs)
}

// kustomizeBuild is `kustomize build` of a directory, by kustomize's own library.
func kustomizeBuild(t *testing.T, kustomizationDir string) resmap.ResMap {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), kustomizationDir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", kustomizationDir, err)
	}
	return m
}

// decodeRendered decodes rendered objects, one per document, strictly.
func decodeRendered(t *testing.T, docs [][]byte) *rendered {
	t.Helper()
	r := &rendered{services: map[string]*corev1.Service{}, configMaps: map[string]*corev1.ConfigMap{},
		clusterRoles: map[string]*rbacv1.ClusterRole{}, namespaces: map[string]*corev1.Namespace{}, hardeningObjects: newHardeningObjects()}
	dec := strictDecoder()
	for _, doc := range docs {
		obj, err := decodeManifest(dec, doc)
		if err != nil {
			t.Fatalf("%v\n%s", err, doc)
		}
		switch o := obj.(type) {
		case *appsv1.DaemonSet:
			r.daemonSets = append(r.daemonSets, o)
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, o)
		case *appsv1.StatefulSet:
			r.statefulSets = append(r.statefulSets, o)
		case *corev1.Service:
			r.services[o.Name] = o
		case *corev1.ConfigMap:
			r.configMaps[o.Name] = o
		case *rbacv1.ClusterRole:
			r.clusterRoles[o.Name] = o
		case *rbacv1.ClusterRoleBinding:
			r.bindings = append(r.bindings, o)
		case *corev1.Namespace:
			r.namespaces[o.Name] = o
		default:
			r.add(obj)
		}
	}
	return r
}

// configOf returns the collector configs a container reads (--config, in order) from the
// ConfigMap mounted at their directory, merged as the collector merges them, and the raw texts.
func (r *rendered) configOf(t *testing.T, pod corev1.PodSpec) (collectorConfig, []string) {
	t.Helper()
	c := pod.Containers[0]
	var merged collectorConfig
	var texts []string
	for _, a := range c.Args {
		p, ok := strings.CutPrefix(a, "--config=")
		if !ok {
			continue
		}
		var cm *corev1.ConfigMap
		key := filepath.Base(p)
		for _, m := range c.VolumeMounts {
			for _, v := range pod.Volumes {
				if v.Name == m.Name && m.MountPath == filepath.Dir(p) && v.ConfigMap != nil {
					cm = r.configMaps[v.ConfigMap.Name]
					// A volume with items names each file's key (the official chart's relay.yaml is key relay).
					for _, item := range v.ConfigMap.Items {
						if item.Path == filepath.Base(p) {
							key = item.Key
						}
					}
				}
			}
		}
		if cm == nil {
			t.Fatalf("--config=%s: no rendered ConfigMap mounted at %s", p, filepath.Dir(p))
		}
		text, ok := cm.Data[key]
		if !ok {
			t.Fatalf("--config=%s: ConfigMap %s has no key %s", p, cm.Name, key)
		}
		var one collectorConfig
		if err := yaml.UnmarshalStrict([]byte(text), &one); err != nil {
			t.Fatalf("--config=%s: %v", p, err)
		}
		texts = append(texts, text)
		if merged == nil {
			merged = one
		} else {
			merged = merged.merged(one)
		}
	}
	return merged, texts
}

// The overlay replaces the gateway Deployment with a StatefulSet that keeps the processor's
// storage on a volume per pod, listed by the headless Service the agents resolve.
func TestMergeGatewayStatefulSet(t *testing.T) { forEachOverlay(t, checkGatewayStatefulSet) }

func checkGatewayStatefulSet(t *testing.T, r *rendered) {
	if len(r.deployments) != 0 {
		t.Errorf("want the gateway Deployment deleted, got %d Deployments", len(r.deployments))
	}
	if len(r.statefulSets) != 1 || len(r.daemonSets) != 1 {
		t.Fatalf("want one StatefulSet and one DaemonSet, got %d and %d", len(r.statefulSets), len(r.daemonSets))
	}
	sts, agent := r.statefulSets[0], r.daemonSets[0]
	pod := sts.Spec.Template
	if !labels.SelectorFromSet(sts.Spec.Selector.MatchLabels).Matches(labels.Set(pod.Labels)) {
		t.Errorf("selector %v does not match the pod labels %v", sts.Spec.Selector.MatchLabels, pod.Labels)
	}
	headless := r.services[sts.Spec.ServiceName]
	if headless == nil || headless.Spec.ClusterIP != corev1.ClusterIPNone ||
		!labels.SelectorFromSet(headless.Spec.Selector).Matches(labels.Set(pod.Labels)) {
		t.Errorf("serviceName %q: want a headless Service selecting the gateway pods", sts.Spec.ServiceName)
	}
	for name, svc := range r.services {
		sel := labels.SelectorFromSet(svc.Spec.Selector)
		if !sel.Matches(labels.Set(pod.Labels)) || sel.Matches(labels.Set(agent.Spec.Template.Labels)) {
			t.Errorf("Service %s: selector %v does not select the gateway pods alone", name, svc.Spec.Selector)
		}
	}

	cfg, _ := r.configOf(t, pod.Spec)
	storage := cfg.str("processors", "mergelog", "storage")
	if storage == "" || componentType(storage) != "file_storage" || !slices.Contains(cfg.list("service", "extensions"), storage) {
		t.Fatalf("mergelog.storage %q: want a file_storage extension the service enables", storage)
	}
	stateDir := cfg.str("extensions", storage, "directory")
	c := pod.Spec.Containers[0]
	i := slices.IndexFunc(c.VolumeMounts, func(m corev1.VolumeMount) bool { return m.MountPath == stateDir })
	if i < 0 || c.VolumeMounts[i].ReadOnly {
		t.Fatalf("%s directory %s: want a writable volumeMount there", storage, stateDir)
	}
	claim := c.VolumeMounts[i].Name
	if !slices.ContainsFunc(sts.Spec.VolumeClaimTemplates, func(p corev1.PersistentVolumeClaim) bool { return p.Name == claim }) {
		t.Errorf("volumeMount %s at %s: want a volumeClaimTemplate (a volume per pod), not a pod volume", claim, stateDir)
	}
	if sc := pod.Spec.SecurityContext; sc == nil || sc.FSGroup == nil || sc.RunAsGroup == nil || *sc.FSGroup != *sc.RunAsGroup {
		t.Error("want fsGroup set to the collector's group, so that the non-root gateway can write its volume")
	}
	lim := c.Resources.Limits[corev1.ResourceMemory]
	if e := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == "GOMEMLIMIT" }); e < 0 {
		t.Error("no GOMEMLIMIT")
	} else if ratio := float64(goMemLimit(t, c.Env[e].Value)) / float64(lim.Value()); ratio < 0.75 || ratio > 0.85 {
		t.Errorf("GOMEMLIMIT %s is %.0f%% of the memory limit %s, want about 80%%", c.Env[e].Value, 100*ratio, lim.String())
	}
}

// The gateway merges, and nothing after the processor reorders: it is the last processor, and
// the exporter has no queue, or one with one consumer.
func TestMergeGatewayPipeline(t *testing.T) { forEachOverlay(t, checkGatewayPipeline) }

func checkGatewayPipeline(t *testing.T, r *rendered) {
	cfg, _ := r.configOf(t, r.statefulSets[0].Spec.Template.Spec)
	procs := cfg.list("service", "pipelines", "logs", "processors")
	if len(procs) == 0 || componentType(procs[len(procs)-1]) != "mergelog" {
		t.Fatalf("logs processors %v: want mergelog last (a batch processor after it would reorder)", procs)
	}
	id := cfg.logsExporter(t)
	exp := collectorConfig(cfg.get("exporters", id).(map[string]any))
	if componentType(id) != "debug" && componentType(id) != "file" {
		enabled, set := exp.get("sending_queue", "enabled").(bool)
		consumers, _ := exp.get("sending_queue", "num_consumers").(float64)
		if (!set || enabled) && consumers != 1 {
			t.Errorf("exporter %s: want sending_queue.num_consumers: 1 (or no queue): several consumers reorder", id)
		}
	}
}

// The agents merge their node's files and route each merge stream to one gateway: the
// load_balancing exporter's routing attributes are the processor's merge key, through the
// headless Service to the gateways' OTLP/gRPC port, with no queue and endless retries.
func TestMergeAgentRoutesByMergeKey(t *testing.T) {
	r, _, gw, exp := mergingAgent(t, "load_balancing", mergeComponent)
	if got := exp.str("routing_key"); got != "attributes" {
		t.Errorf("routing_key %q, want attributes", got)
	}
	if got, want := exp.list("routing_attributes"), gw.list("processors", "mergelog", "merge_key"); !slices.Equal(got, want) {
		t.Errorf("routing_attributes %v, want the gateway's merge_key %v", got, want)
	}
	host, svcPort := exp.str("resolver", "dns", "hostname"), exp.str("resolver", "dns", "port")
	if svc := r.services[host]; svc == nil || svc.Name != r.statefulSets[0].Spec.ServiceName {
		t.Errorf("resolver.dns.hostname %s: want the gateways' headless Service %s", host, r.statefulSets[0].Spec.ServiceName)
	}
	if want := port(t, gw.str("receivers", "otlp", "protocols", "grpc", "endpoint")); svcPort != want {
		t.Errorf("resolver.dns.port %s, the gateway's OTLP/gRPC is on %s", svcPort, want)
	}
	checkNoQueueRetryForever(t, exp, "a gateway accepted (and stored)")
}

// mergingAgent renders the overlay of the components and returns it, the agent's and the
// gateway's configs and the agent's logs exporter, which must be of type exporter; the agent's
// receiver must merge its node's files.
func mergingAgent(t *testing.T, exporter string, components ...string) (r *rendered, agent, gw, exp collectorConfig) {
	t.Helper()
	r = render(t, overlay(t, components...))
	agent, _ = r.configOf(t, r.daemonSets[0].Spec.Template.Spec)
	gw, _ = r.configOf(t, r.statefulSets[0].Spec.Template.Spec)
	if on, _ := agent.get("receivers", "mergelog", "merge", "enabled").(bool); !on {
		t.Error("want the agent's receiver merge enabled: each node's output in time order")
	}
	id := agent.logsExporter(t)
	if componentType(id) != exporter {
		t.Fatalf("the agent's logs exporter is %s, want %s", id, exporter)
	}
	return r, agent, gw, collectorConfig(agent.get("exporters", id).(map[string]any))
}

// checkNoQueueRetryForever checks that the exporter has no queue (the receiver checkpoints what
// the next hop accepted) and retries until it is back.
func checkNoQueueRetryForever(t *testing.T, exp collectorConfig, accepted string) {
	t.Helper()
	if enabled, _ := exp.get("sending_queue", "enabled").(bool); enabled {
		t.Errorf("want sending_queue.enabled: false: the receiver checkpoints what %s", accepted)
	}
	if v, ok := exp.get("retry_on_failure", "max_elapsed_time").(float64); !ok || v != 0 {
		t.Errorf("want retry_on_failure.max_elapsed_time: 0, got %v", exp.get("retry_on_failure", "max_elapsed_time"))
	}
}

// The overlay's collector configs, as the pods read them, pass `otelcol-mergelog validate`,
// with their file_storage directories moved to temporary ones (validate insists they exist).
func TestMergeConfigsValidate(t *testing.T) {
	forEachOverlay(t, validateConfigs)
}

// validateConfigs runs `validate` on the configs of every workload rendered, by the build each
// pod's image holds.
func validateConfigs(t *testing.T, r *rendered) {
	type pod struct {
		name string
		pod  corev1.PodSpec
	}
	var pods []pod
	for _, o := range r.daemonSets {
		pods = append(pods, pod{"DaemonSet " + o.Name, o.Spec.Template.Spec})
	}
	for _, o := range r.deployments {
		pods = append(pods, pod{"Deployment " + o.Name, o.Spec.Template.Spec})
	}
	for _, o := range r.statefulSets {
		pods = append(pods, pod{"StatefulSet " + o.Name, o.Spec.Template.Spec})
	}
	if len(pods) == 0 {
		t.Fatal("no workload rendered")
	}
	for _, tc := range pods {
		t.Run(tc.name, func(t *testing.T) {
			bin := collectorFor(t, tc.pod.Containers[0].Image)
			_, texts := r.configOf(t, tc.pod)
			if out, err := runValidate(t, bin, texts, podEnv(t, tc.pod.Containers[0], "otelcol")); err != nil {
				t.Errorf("%v\n%s", err, out)
			}
		})
	}
}

// runValidate runs `otelcol-mergelog validate` on collector configs (merged in order, as the
// collector reads several --config files) with only the environment env, their file_storage
// directories moved to temporary ones (validate insists they exist).
func runValidate(t *testing.T, bin string, texts []string, env []string) ([]byte, error) {
	t.Helper()
	args := []string{"validate"}
	merged := collectorConfig{}
	for i, text := range texts {
		args = append(args, "--config", writeTemp(t, fmt.Sprintf("config-%d.yaml", i), text))
		var one collectorConfig
		if err := yaml.Unmarshal([]byte(text), &one); err != nil {
			t.Fatalf("config %d: %v", i, err)
		}
		merged = merged.merged(one)
	}
	var override strings.Builder
	for _, id := range merged.list("service", "extensions") {
		if componentType(id) == "file_storage" {
			fmt.Fprintf(&override, "  %s:\n    directory: %q\n    compaction:\n      directory: %q\n", id, t.TempDir(), t.TempDir())
		}
	}
	if override.Len() > 0 {
		args = append(args, "--config", writeTemp(t, "storage.yaml", "extensions:\n"+override.String()))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %v: %w", bin, args, err)
	}
	return out, nil
}

func writeTemp(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// readOverlay and writeOverlay read and rewrite an overlay's kustomization.yaml.
func readOverlay(t *testing.T, overlayDir string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(overlayDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeOverlay(t *testing.T, overlayDir, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(overlayDir, "kustomization.yaml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
