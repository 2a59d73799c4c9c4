package validate

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// otlpHTTPComponent opens the gateways' OTLP/HTTP port, which the base's NetworkPolicy closes.
const otlpHTTPComponent = "components/otlp-http"

// admission is who the NetworkPolicies rendered let reach one port of a pod.
type admission struct {
	isolated bool // some policy selects the pod for ingress: what no rule admits is refused
	anyone   bool // a rule admits every source
	peers    []networkingv1.NetworkPolicyPeer
}

// admitted evaluates the rendered policies for a pod (its labels, its container's ports) and a
// container port, as the network plugin does: policies add up, a rule without ports covers every
// port, one without from admits every source.
func (r *rendered) admitted(t *testing.T, pod corev1.PodTemplateSpec, port int32) admission {
	t.Helper()
	var a admission
	for _, name := range sortedKeys(r.networkPolicies) {
		np := r.networkPolicies[name]
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		if err != nil {
			t.Fatalf("NetworkPolicy %s: %v", name, err)
		}
		if !sel.Matches(labels.Set(pod.Labels)) || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
			continue
		}
		a.isolated = true
		for _, rule := range np.Spec.Ingress {
			covers := len(rule.Ports) == 0
			for _, p := range rule.Ports {
				covers = covers || p.Port == nil || policyPort(t, pod.Spec.Containers[0], *p.Port, name) == port
			}
			if !covers {
				continue
			}
			if len(rule.From) == 0 {
				a.anyone = true
			}
			a.peers = append(a.peers, rule.From...)
		}
	}
	return a
}

// policyPort resolves a policy's port, by number or by the container port's name; a name the
// container does not declare fails the test (the plugin would open nothing).
func policyPort(t *testing.T, c corev1.Container, p intstr.IntOrString, policy string) int32 {
	t.Helper()
	if p.Type == intstr.Int {
		return p.IntVal
	}
	for _, cp := range c.Ports {
		if cp.Name == p.StrVal {
			return cp.ContainerPort
		}
	}
	t.Errorf("NetworkPolicy %s: port %s is no port of container %s", policy, p.StrVal, c.Name)
	return -1
}

// namedPort is the container's port of that name.
func namedPort(t *testing.T, c corev1.Container, name string) int32 {
	t.Helper()
	return containerPort(t, c, intstr.FromString(name))
}

// Only the agents reach the gateways' OTLP/gRPC port (none at all when the gateways consume from
// Kafka and receive no OTLP); the OTLP/HTTP port is closed unless components/otlp-http (the
// chart's networkPolicy.otlpHttp) opens it; the metrics port of both tiers is open to scrapes;
// the agents admit nothing else.
func TestNetworkPolicies(t *testing.T) {
	forEachRendering(t, func(t *testing.T, r *rendered, v chartVariant) {
		gw, agent := r.gatewayPod(t), r.agentPod(t)
		gc, ac := gw.Spec.Containers[0], agent.Spec.Containers[0]
		cfg, _ := r.configOf(t, gw.Spec)

		grpc := r.admitted(t, gw, namedPort(t, gc, "otlp-grpc"))
		if !grpc.isolated {
			t.Fatal("no NetworkPolicy selects the gateway pods: any pod may send them records")
		}
		receivesOTLP := slices.Contains(cfg.list("service", "pipelines", "logs", "receivers"), "otlp")
		switch {
		case grpc.anyone:
			t.Error("OTLP/gRPC: a rule admits every source, want the agents alone")
		case receivesOTLP && len(grpc.peers) == 0:
			t.Error("OTLP/gRPC: no rule admits the agents")
		case !receivesOTLP && len(grpc.peers) > 0:
			t.Errorf("OTLP/gRPC: the gateways receive no OTLP (Kafka), yet %d peers are admitted", len(grpc.peers))
		}
		agentNS := r.daemonSets[0].Namespace
		for _, p := range grpc.peers {
			if p.IPBlock != nil || p.PodSelector == nil {
				t.Errorf("OTLP/gRPC admits %+v: want the agent pods, by pod selector", p)
				continue
			}
			// A peer without a namespace selector is of the policy's own namespace.
			if p.NamespaceSelector == nil && r.gatewayNamespace() != agentNS {
				t.Errorf("OTLP/gRPC admits pods of the gateways' namespace %s; the agents are in %s", r.gatewayNamespace(), agentNS)
			}
			if ns := p.NamespaceSelector; ns != nil {
				sel, err := metav1.LabelSelectorAsSelector(ns)
				if err != nil || sel.Empty() || !sel.Matches(labels.Set{"kubernetes.io/metadata.name": agentNS}) || sel.Matches(labels.Set{"kubernetes.io/metadata.name": "default"}) {
					t.Errorf("OTLP/gRPC admits namespaces %v: want the agents' %s alone", ns, agentNS)
				}
			}
			sel, err := metav1.LabelSelectorAsSelector(p.PodSelector)
			if err != nil || !sel.Matches(labels.Set(agent.Labels)) || sel.Matches(labels.Set(gw.Labels)) {
				t.Errorf("OTLP/gRPC admits pods %v: want the agents alone (%v)", p.PodSelector, agent.Labels)
			}
		}

		http := r.admitted(t, gw, namedPort(t, gc, "otlp-http"))
		if open := http.anyone || len(http.peers) > 0; open != slices.Contains(v.components, otlpHTTPComponent) {
			t.Errorf("OTLP/HTTP open: %v, want it open only with %s", open, otlpHTTPComponent)
		}

		for name, pod := range map[string]corev1.PodTemplateSpec{"gateway": gw, "agent": agent} {
			if m := r.admitted(t, pod, namedPort(t, pod.Spec.Containers[0], "metrics")); !m.anyone && len(m.peers) == 0 {
				t.Errorf("the %s's metrics port: closed to scrapes", name)
			}
		}
		health := r.admitted(t, agent, namedPort(t, ac, "health"))
		if !health.isolated || health.anyone || len(health.peers) > 0 {
			t.Errorf("the agents admit more than metrics scrapes: health port %+v", health)
		}
	})
}

// The chart's gateway alone (agent.enabled: false) admits the agents installed otherwise, named
// by networkPolicy.otlpFrom (here the official chart's release otelcol-agent), and no others.
func TestChartNetworkPolicyOtherAgents(t *testing.T) {
	helmBin(t)
	values := writeTemp(t, "values.yaml", `agent:
  enabled: false
networkPolicy:
  otlpFrom:
    - podSelector:
        matchLabels:
          app.kubernetes.io/instance: otelcol-agent
`)
	r := renderChart(t, "-f", values)
	gw := r.gatewayPod(t)
	grpc := r.admitted(t, gw, namedPort(t, gw.Spec.Containers[0], "otlp-grpc"))
	admits := func(podLabels labels.Set) bool {
		for _, p := range grpc.peers {
			if sel, err := metav1.LabelSelectorAsSelector(p.PodSelector); err == nil && p.NamespaceSelector == nil && sel.Matches(podLabels) {
				return true
			}
		}
		return grpc.anyone
	}
	if !admits(labels.Set{"app.kubernetes.io/name": "opentelemetry-collector", "app.kubernetes.io/instance": "otelcol-agent"}) {
		t.Error("the official chart's agent pods are not admitted to OTLP/gRPC")
	}
	if admits(labels.Set{"app.kubernetes.io/name": "checkout", "app.kubernetes.io/instance": "shop"}) {
		t.Error("another application's pods are admitted to OTLP/gRPC")
	}
}
