package validate

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// forEachRendering runs check on each of chartVariants, once as the kustomize overlay of its
// components and once as our chart with its values (the chart's subtests skip without helm).
func forEachRendering(t *testing.T, check func(t *testing.T, r *rendered, v chartVariant)) {
	t.Helper()
	for _, v := range chartVariants {
		t.Run("kustomize/"+v.name, func(t *testing.T) { check(t, render(t, overlay(t, v.components...)), v) })
		t.Run("chart/"+v.name, func(t *testing.T) {
			helmBin(t)
			check(t, renderChart(t, sets(v.set...)...), v)
		})
	}
}

// gatewayPod is the gateway's pod template: the Deployment's, or the merging StatefulSet's.
func (r *rendered) gatewayPod(t *testing.T) corev1.PodTemplateSpec {
	t.Helper()
	switch {
	case len(r.deployments) == 1 && len(r.statefulSets) == 0:
		return r.deployments[0].Spec.Template
	case len(r.statefulSets) == 1 && len(r.deployments) == 0:
		return r.statefulSets[0].Spec.Template
	}
	t.Fatalf("want one gateway Deployment or StatefulSet, got %d and %d", len(r.deployments), len(r.statefulSets))
	return corev1.PodTemplateSpec{}
}

// gatewayReplicas is the gateway workload's replicas.
func (r *rendered) gatewayReplicas() int32 {
	for _, d := range r.deployments {
		return *d.Spec.Replicas
	}
	for _, s := range r.statefulSets {
		return *s.Spec.Replicas
	}
	return 0
}

// agentPod is the agent DaemonSet's pod template.
func (r *rendered) agentPod(t *testing.T) corev1.PodTemplateSpec {
	t.Helper()
	if len(r.daemonSets) != 1 {
		t.Fatalf("want one agent DaemonSet, got %d", len(r.daemonSets))
	}
	return r.daemonSets[0].Spec.Template
}

// The agent is in the Guaranteed QoS class (every container's requests equal its limits, CPU
// and memory), so that node pressure evicts other pods first, and it has a priority above
// workload pods: a PriorityClass rendered beside it, or the documented system-node-critical.
func TestAgentScheduling(t *testing.T) {
	forEachRendering(t, func(t *testing.T, r *rendered, _ chartVariant) {
		pod := r.agentPod(t)
		for _, c := range pod.Spec.Containers {
			for _, res := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
				req, okReq := c.Resources.Requests[res]
				lim, okLim := c.Resources.Limits[res]
				if !okReq || !okLim || req.Cmp(lim) != 0 {
					t.Errorf("container %s %s: request %s, limit %s: want them equal (Guaranteed QoS)", c.Name, res, req.String(), lim.String())
				}
			}
		}
		name := pod.Spec.PriorityClassName
		if name == "system-node-critical" {
			return
		}
		pc := r.priorityClasses[name]
		if pc == nil {
			t.Fatalf("priorityClassName %q: want a PriorityClass rendered beside the agent (or system-node-critical)", name)
		}
		if pc.Value <= 0 || pc.Value > 1_000_000_000 || pc.GlobalDefault {
			t.Errorf("PriorityClass %s: value %d globalDefault %v, want above workload pods (0), at most 1e9, not the default", name, pc.Value, pc.GlobalDefault)
		}
	})
}

// A PodDisruptionBudget selects the gateway pods (not the agents) and lets a drain take some
// gateways but never all of them; the gateway pods spread over nodes and zones without keeping
// a small cluster from running them.
func TestGatewayDisruptionAndSpread(t *testing.T) {
	forEachRendering(t, func(t *testing.T, r *rendered, _ chartVariant) {
		pod, agent := r.gatewayPod(t), r.agentPod(t)
		replicas := int(r.gatewayReplicas())
		var found int
		for name, pdb := range r.budgets {
			sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
			if err != nil || sel.Empty() {
				t.Errorf("PodDisruptionBudget %s: selector empty or invalid (%v)", name, err)
				continue
			}
			if sel.Matches(labels.Set(agent.Labels)) {
				t.Errorf("PodDisruptionBudget %s selects the agents", name)
			}
			if !sel.Matches(labels.Set(pod.Labels)) {
				continue
			}
			found++
			var allowed int
			switch {
			case pdb.Spec.MaxUnavailable != nil:
				n, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, replicas, false)
				if err != nil {
					t.Fatal(err)
				}
				allowed = n
			case pdb.Spec.MinAvailable != nil:
				n, err := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, replicas, true)
				if err != nil {
					t.Fatal(err)
				}
				allowed = replicas - n
			}
			if allowed < 1 || allowed >= replicas {
				t.Errorf("PodDisruptionBudget %s allows %d of %d gateways down: want at least one (drains must proceed) and fewer than all", name, allowed, replicas)
			}
		}
		if found != 1 {
			t.Errorf("%d PodDisruptionBudgets select the gateway pods, want 1", found)
		}
		keys := map[string]bool{}
		for _, c := range pod.Spec.TopologySpreadConstraints {
			sel, err := metav1.LabelSelectorAsSelector(c.LabelSelector)
			if err != nil || !sel.Matches(labels.Set(pod.Labels)) || sel.Matches(labels.Set(agent.Labels)) {
				t.Errorf("topologySpreadConstraint %s: labelSelector %v does not select the gateway pods alone", c.TopologyKey, c.LabelSelector)
			}
			if c.WhenUnsatisfiable != corev1.ScheduleAnyway {
				t.Errorf("topologySpreadConstraint %s: %s would leave gateways pending on a small cluster", c.TopologyKey, c.WhenUnsatisfiable)
			}
			keys[c.TopologyKey] = true
		}
		for _, k := range []string{"kubernetes.io/hostname", "topology.kubernetes.io/zone"} {
			if !keys[k] {
				t.Errorf("no topologySpreadConstraint on %s", k)
			}
		}
	})
}

// imageOverlay writes an overlay of the base and components that pins both images by digest,
// as a user's kustomization does with `images:`.
func imageOverlay(t *testing.T, full, agent string, components ...string) string {
	t.Helper()
	o := overlay(t, components...)
	text := string(readOverlay(t, o)) + "images:\n" +
		"  - name: ghcr.io/mergelog/otelcol-mergelog\n    digest: " + full + "\n" +
		"  - name: ghcr.io/mergelog/otelcol-mergelog-agent\n    digest: " + agent + "\n"
	writeOverlay(t, o, text)
	return o
}

// The kustomize manifests take images by digest (kustomize's images: digest), as the chart's
// image.digest (TestChartImage): every container then runs repository@digest.
func TestKustomizeImageDigest(t *testing.T) {
	full, agent := "sha256:"+strings.Repeat("0123456789abcdef", 4), "sha256:"+strings.Repeat("fedcba9876543210", 4)
	for _, v := range chartVariants {
		t.Run(v.name, func(t *testing.T) {
			r := render(t, imageOverlay(t, full, agent, v.components...))
			wantAgent := "ghcr.io/mergelog/otelcol-mergelog-agent@" + agent
			if slices.Contains(v.components, mergeComponent) || slices.Contains(v.components, k8sMetaComponent) {
				wantAgent = "ghcr.io/mergelog/otelcol-mergelog@" + full // they need components the agent's build lacks
			}
			if got := r.agentPod(t).Spec.Containers[0].Image; got != wantAgent {
				t.Errorf("the agent's image %s, want %s", got, wantAgent)
			}
			if got := r.gatewayPod(t).Spec.Containers[0].Image; got != "ghcr.io/mergelog/otelcol-mergelog@"+full {
				t.Errorf("the gateway's image %s, want it by digest", got)
			}
		})
	}
}
