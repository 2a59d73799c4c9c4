package validate

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
)

// The component and chart value that put the gateways in a namespace of their own, under the
// restricted Pod Security Standard.
const (
	gatewayNSComponent      = "components/gateway-namespace"
	gatewayNSMergeComponent = "components/gateway-namespace-merge"
	gatewayNamespace        = "otelcol-gateway"
)

// gatewayNamespace is the namespace of the gateway workload.
func (r *rendered) gatewayNamespace() string {
	for _, d := range r.deployments {
		return d.Namespace
	}
	for _, s := range r.statefulSets {
		return s.Namespace
	}
	return ""
}

// podSecurity evaluates a pod template at a Pod Security level (the latest version) with the
// Pod Security admission's own checks, and returns the reasons it is forbidden for.
func podSecurity(t *testing.T, level api.Level, pod corev1.PodTemplateSpec) []string {
	t.Helper()
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var reasons []string
	for _, r := range eval.EvaluatePod(api.LevelVersion{Level: level, Version: api.LatestVersion()}, &pod.ObjectMeta, &pod.Spec) {
		if !r.Allowed {
			reasons = append(reasons, r.ForbiddenReason+": "+r.ForbiddenDetail)
		}
	}
	return reasons
}

// enforced is the Pod Security level a namespace's labels enforce (privileged without a label).
func enforced(t *testing.T, ns *corev1.Namespace) api.Level {
	t.Helper()
	p, errs := api.PolicyToEvaluate(ns.Labels, api.Policy{Enforce: api.LevelVersion{Level: api.LevelPrivileged, Version: api.LatestVersion()}})
	if len(errs) > 0 {
		t.Fatalf("Namespace %s: %v", ns.Name, errs)
	}
	return p.Enforce.Level
}

// The gateway pods pass the restricted Pod Security Standard (checked by the Pod Security
// admission's own code: non-root, RuntimeDefault seccomp, no privilege escalation, every
// capability dropped, no host path), in every variant; the agent pods fail baseline for one
// reason only, their hostPath volumes (/var/log/pods and the checkpoints), and restricted also
// for running as root. Where the gateways have a namespace of their own it enforces restricted,
// and a rendered namespace of the agents' is privileged, as their host paths need.
func TestPodSecurity(t *testing.T) {
	forEachRendering(t, func(t *testing.T, r *rendered, v chartVariant) {
		if reasons := podSecurity(t, api.LevelRestricted, r.gatewayPod(t)); len(reasons) > 0 {
			t.Errorf("the gateway pods fail the restricted Pod Security Standard: %v", reasons)
		}
		agent := r.agentPod(t)
		if reasons := podSecurity(t, api.LevelBaseline, agent); len(reasons) != 1 || !slices.Contains([]string{"hostPath volumes"}, reasonOf(reasons[0])) {
			t.Errorf("the agent pods fail baseline for %v: want hostPath volumes alone", reasons)
		}
		for _, reason := range podSecurity(t, api.LevelRestricted, agent) {
			if !slices.Contains([]string{"hostPath volumes", "restricted volume types", "runAsNonRoot != true", "runAsUser=0"}, reasonOf(reason)) {
				t.Errorf("the agent pods fail restricted for %s: more than their host paths and root user", reason)
			}
		}

		gwNS, agentNS := r.gatewayNamespace(), r.daemonSets[0].Namespace
		split := slices.Contains(v.components, gatewayNSComponent)
		if split != (gwNS != agentNS) {
			t.Fatalf("the gateways are in namespace %s, the agents in %s: want them apart only with %s", gwNS, agentNS, gatewayNSComponent)
		}
		if split {
			ns := r.namespaces[gwNS]
			if ns == nil {
				t.Fatalf("the gateways' namespace %s is not rendered", gwNS)
			}
			if level := enforced(t, ns); level != api.LevelRestricted {
				t.Errorf("Namespace %s enforces %s, want restricted", gwNS, level)
			}
		}
		if ns := r.namespaces[agentNS]; ns != nil && enforced(t, ns) != api.LevelPrivileged {
			t.Errorf("Namespace %s enforces %s: the agents' host paths need privileged", agentNS, enforced(t, ns))
		}
	})
}

// reasonOf is a podSecurity reason without its detail.
func reasonOf(reason string) string {
	for i := range len(reason) - 1 {
		if reason[i:i+2] == ": " {
			return reason[:i]
		}
	}
	return reason
}
