package validate

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// k8sMetaComponent is the kustomize component that puts pod metadata (the k8s_attributes
// processor) on the agents' records.
const k8sMetaComponent = "components/k8s-metadata"

// k8sMetaOverlays are the overlays with pod metadata: alone, and after the merge component
// (whose agents route with load_balancing).
var k8sMetaOverlays = [][]string{{k8sMetaComponent}, {mergeComponent, k8sMetaComponent}}

func forEachK8sMetaOverlay(t *testing.T, check func(t *testing.T, r *rendered)) {
	for _, components := range k8sMetaOverlays {
		t.Run(strings.Join(components, "+"), func(t *testing.T) { check(t, render(t, overlay(t, components...))) })
	}
}

// The agents look each record's pod up by the k8s.pod.uid the receiver takes from the path,
// among their own node's pods only, and start their pipeline only once those are listed (the
// startupProbe waiting longer than that); owners, app.kubernetes.io/* labels and service.name
// are extracted; the processor runs after memory_limiter.
func TestK8sMetadataAgent(t *testing.T) { forEachK8sMetaOverlay(t, checkK8sMetadataAgent) }

func checkK8sMetadataAgent(t *testing.T, r *rendered) {
	if len(r.daemonSets) != 1 {
		t.Fatalf("want one DaemonSet, got %d", len(r.daemonSets))
	}
	pod := r.daemonSets[0].Spec.Template.Spec
	c := pod.Containers[0]
	cfg, _ := r.configOf(t, pod)
	procs := cfg.list("service", "pipelines", "logs", "processors")
	i := slices.IndexFunc(procs, func(id string) bool { return componentType(id) == "k8s_attributes" })
	if i < 0 || !slices.ContainsFunc(procs[:i], func(id string) bool { return componentType(id) == "memory_limiter" }) {
		t.Fatalf("logs processors %v: want k8s_attributes, after memory_limiter", procs)
	}
	p := collectorConfig(cfg.get("processors", procs[i]).(map[string]any))

	env := p.str("filter", "node_from_env_var")
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool {
		return e.Name == env && e.ValueFrom != nil && e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "spec.nodeName"
	}) {
		t.Errorf("filter.node_from_env_var %q: want an env var of the container from spec.nodeName (each agent watches its node's pods)", env)
	}
	assoc, _ := p.get("pod_association").([]any)
	if len(assoc) != 1 {
		t.Fatalf("pod_association %v: want one rule", assoc)
	}
	sources := collectorConfig(assoc[0].(map[string]any))
	if s, _ := sources.get("sources").([]any); len(s) != 1 ||
		collectorConfig(s[0].(map[string]any)).str("from") != "resource_attribute" || collectorConfig(s[0].(map[string]any)).str("name") != "k8s.pod.uid" {
		t.Errorf("pod_association %v: want the resource attribute k8s.pod.uid (the receiver sets it from the path)", assoc)
	}
	meta := p.list("extract", "metadata")
	for _, want := range []string{"k8s.deployment.name", "k8s.statefulset.name", "k8s.daemonset.name", "k8s.job.name", "k8s.cronjob.name", "service.name"} {
		if !slices.Contains(meta, want) {
			t.Errorf("extract.metadata %v: want %s", meta, want)
		}
	}
	if !extractsPodLabel(p, "app.kubernetes.io/name") || !extractsPodLabel(p, "app.kubernetes.io/part-of") {
		t.Errorf("extract.labels %v: want the app.kubernetes.io/* pod labels", p.get("extract", "labels"))
	}

	if wait, _ := p.get("wait_for_metadata").(bool); !wait {
		t.Error("want wait_for_metadata: true: records read at start must carry their metadata")
	}
	timeout, err := time.ParseDuration(p.str("wait_for_metadata_timeout"))
	if err != nil {
		t.Fatalf("wait_for_metadata_timeout: %v", err)
	}
	probe := c.StartupProbe
	if probe == nil || probe.HTTPGet == nil {
		t.Fatal("want a startupProbe: liveness must not kill the agent while it waits for the pods")
	}
	if got := time.Duration(probe.PeriodSeconds*probe.FailureThreshold) * time.Second; got <= timeout {
		t.Errorf("startupProbe gives %v, want more than wait_for_metadata_timeout %v", got, timeout)
	}
	health := port(t, cfg.str("extensions", cfg.enabledExtension(t, "health_check"), "endpoint"))
	if got := containerPort(t, c, probe.HTTPGet.Port); strconv.Itoa(int(got)) != health {
		t.Errorf("startupProbe port %s is %d, health_check listens on %s", probe.HTTPGet.Port.String(), got, health)
	}
}

// extractsPodLabel reports whether one of the processor's extract.labels rules takes the pod
// label key.
func extractsPodLabel(p collectorConfig, key string) bool {
	rules, _ := p.get("extract", "labels").([]any)
	for _, r := range rules {
		rule := collectorConfig(r.(map[string]any))
		if from := rule.str("from"); from != "" && from != "pod" {
			continue
		}
		if rule.str("key") == key {
			return true
		}
		if re, err := regexp.Compile(rule.str("key_regex")); err == nil && rule.str("key_regex") != "" && re.MatchString(key) {
			return true
		}
	}
	return false
}

// The agents' pods, and only they, get a ServiceAccount token, bound to a ClusterRole that
// allows what the processor asks for and nothing more: get, list and watch of pods.
func TestK8sMetadataRBAC(t *testing.T) { forEachK8sMetaOverlay(t, checkK8sMetadataRBAC) }

func checkK8sMetadataRBAC(t *testing.T, r *rendered) {
	ds := r.daemonSets[0]
	pod := ds.Spec.Template.Spec
	if pod.AutomountServiceAccountToken == nil || !*pod.AutomountServiceAccountToken {
		t.Error("want automountServiceAccountToken: true on the agent pods: the processor calls the API server")
	}
	for _, w := range r.deployments {
		if a := w.Spec.Template.Spec.AutomountServiceAccountToken; a == nil || *a {
			t.Errorf("Deployment %s: want no token (automountServiceAccountToken: false)", w.Name)
		}
	}
	for _, w := range r.statefulSets {
		if a := w.Spec.Template.Spec.AutomountServiceAccountToken; a == nil || *a {
			t.Errorf("StatefulSet %s: want no token (automountServiceAccountToken: false)", w.Name)
		}
	}
	var bound []*rbacv1.ClusterRole
	for _, b := range r.bindings {
		if !slices.ContainsFunc(b.Subjects, func(s rbacv1.Subject) bool {
			return s.Kind == rbacv1.ServiceAccountKind && s.Name == pod.ServiceAccountName && s.Namespace == ds.Namespace
		}) {
			t.Errorf("ClusterRoleBinding %s binds %v, not the agents' ServiceAccount %s/%s", b.Name, b.Subjects, ds.Namespace, pod.ServiceAccountName)
			continue
		}
		role := r.clusterRoles[b.RoleRef.Name]
		if b.RoleRef.Kind != "ClusterRole" || role == nil {
			t.Fatalf("ClusterRoleBinding %s: roleRef %v is no rendered ClusterRole", b.Name, b.RoleRef)
		}
		bound = append(bound, role)
	}
	if len(bound) != 1 || len(r.clusterRoles) != 1 {
		t.Fatalf("want one ClusterRole bound to the agents' ServiceAccount, got %d bound of %d", len(bound), len(r.clusterRoles))
	}
	want := []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get", "list", "watch"}}}
	if got := bound[0].Rules; !slices.EqualFunc(got, want, func(a, b rbacv1.PolicyRule) bool {
		return slices.Equal(a.APIGroups, b.APIGroups) && slices.Equal(a.Resources, b.Resources) && slices.Equal(a.Verbs, b.Verbs) &&
			len(a.ResourceNames)+len(a.NonResourceURLs) == 0
	}) {
		t.Errorf("ClusterRole %s rules %+v, want only %+v", bound[0].Name, got, want)
	}
}

// Without the component the agents call no API: no RBAC object, no token.
func TestBaseHasNoRBAC(t *testing.T) {
	r := render(t, overlay(t))
	if len(r.clusterRoles)+len(r.bindings) != 0 {
		t.Errorf("the base renders %d ClusterRoles and %d ClusterRoleBindings, want none", len(r.clusterRoles), len(r.bindings))
	}
	for _, ds := range r.daemonSets {
		if a := ds.Spec.Template.Spec.AutomountServiceAccountToken; a == nil || *a {
			t.Errorf("DaemonSet %s: want automountServiceAccountToken: false", ds.Name)
		}
	}
}

// The overlays' collector configs, as the pods read them, pass `validate` by the full build.
func TestK8sMetadataConfigsValidate(t *testing.T) { forEachK8sMetaOverlay(t, validateConfigs) }

// With Kafka too (the chart only: see components/k8s-metadata/README.md), the agents' pipeline
// adds the metadata before the Kafka transform, which stays last.
func TestChartK8sMetadataWithKafka(t *testing.T) {
	helmBin(t)
	r := renderChart(t, sets("merge.enabled=true", "kafka.enabled=true", "k8sMetadata.enabled=true")...)
	cfg, _ := r.configOf(t, r.daemonSets[0].Spec.Template.Spec)
	if got, want := cfg.list("service", "pipelines", "logs", "processors"), []string{"memory_limiter", "k8s_attributes", "transform/kafka_key"}; !slices.Equal(got, want) {
		t.Errorf("the agent's logs processors %v, want %v", got, want)
	}
	checkK8sMetadataRBAC(t, r)
}
