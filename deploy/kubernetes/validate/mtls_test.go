package validate

import (
	"path"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The mTLS components: components/mtls (the base's agents and the gateways), and after it with
// components/merge, components/mtls-merge (the merging agents' load_balancing exporter).
const (
	mtlsComponent      = "components/mtls"
	mtlsMergeComponent = "components/mtls-merge"
)

// The Secrets the mTLS components mount, as their READMEs name them (the chart's defaults with
// the release otelcol).
const (
	agentTLSSecret   = "otelcol-agent-tls"
	gatewayTLSSecret = "otelcol-gateway-tls"
)

// secretKeys are the Secret's keys (cert-manager's layout, as the READMEs document them) each
// TLS setting reads.
var secretKeys = map[string]string{"ca_file": "ca.crt", "client_ca_file": "ca.crt", "cert_file": "tls.crt", "key_file": "tls.key"}

// secretFile checks that a config's TLS file (setting: its key in the config) is the Secret's
// documented key, in a volume of the pod mounted from the Secret, read-only.
func secretFile(t *testing.T, pod corev1.PodSpec, setting, file, secret string) {
	t.Helper()
	if path.Base(file) != secretKeys[setting] {
		t.Errorf("%s %s: want the Secret's key %s", setting, file, secretKeys[setting])
	}
	c := pod.Containers[0]
	for _, m := range c.VolumeMounts {
		if !strings.HasPrefix(file, m.MountPath+"/") || path.Dir(file) != m.MountPath {
			continue
		}
		i := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if i < 0 || pod.Volumes[i].Secret == nil || pod.Volumes[i].Secret.SecretName != secret {
			t.Errorf("%s: want it from the Secret %s, mounted at %s", file, secret, m.MountPath)
		}
		if !m.ReadOnly {
			t.Errorf("%s: mounted writable", m.MountPath)
		}
		return
	}
	if file == "" {
		t.Errorf("a TLS file is not set: want it from the Secret %s", secret)
		return
	}
	t.Errorf("%s: no volume mounted at %s", file, path.Dir(file))
}

// With mTLS, the agents' exporter to the gateways speaks TLS, verifies the gateway's certificate
// against a CA and for the gateway Service's name, and presents a certificate, every file from
// the agents' Secret; the gateways' OTLP receiver, on every protocol it serves, presents its
// certificate and requires a client certificate (client_ca_file), files from the gateways'
// Secret. Without mTLS the agents send in plain text, as before.
func TestMTLS(t *testing.T) {
	forEachRendering(t, func(t *testing.T, r *rendered, v chartVariant) {
		agentPod, gwPod := r.agentPod(t).Spec, r.gatewayPod(t).Spec
		agent, _ := r.configOf(t, agentPod)
		gw, _ := r.configOf(t, gwPod)
		id := agent.logsExporter(t)
		tlsPath := []string{"exporters", id, "tls"}
		switch componentType(id) {
		case "load_balancing":
			tlsPath = []string{"exporters", id, "protocol", "otlp", "tls"}
		case "kafka":
			return // no OTLP between the tiers
		}
		tls, _ := agent.get(tlsPath...).(map[string]any)
		clientTLS := collectorConfig(tls)
		if !slices.Contains(v.components, mtlsComponent) {
			if insecure, _ := clientTLS.get("insecure").(bool); !insecure {
				t.Errorf("without %s: want the agents' %v insecure: true, as the gateways serve plain text", mtlsComponent, tlsPath)
			}
			return
		}
		if insecure, _ := clientTLS.get("insecure").(bool); insecure {
			t.Errorf("%v: insecure", tlsPath)
		}
		if skip, _ := clientTLS.get("insecure_skip_verify").(bool); skip {
			t.Errorf("%v: insecure_skip_verify: the gateway's certificate must be verified", tlsPath)
		}
		for _, k := range []string{"ca_file", "cert_file", "key_file"} {
			secretFile(t, agentPod, k, clientTLS.str(k), agentTLSSecret)
		}
		if want := r.gatewayPodServiceName(t) + "." + namespace + ".svc"; clientTLS.str("server_name_override") != want {
			t.Errorf("%v.server_name_override %q, want the gateway Service's name %s (the gateways' certificate holds it)", tlsPath, clientTLS.str("server_name_override"), want)
		}

		protocols, _ := gw.get("receivers", "otlp", "protocols").(map[string]any)
		if len(protocols) == 0 {
			t.Fatal("the gateway has no OTLP receiver")
		}
		for proto := range protocols {
			server := collectorConfig(map[string]any{})
			if m, ok := gw.get("receivers", "otlp", "protocols", proto, "tls").(map[string]any); ok {
				server = m
			}
			for _, k := range []string{"cert_file", "key_file", "client_ca_file"} {
				t.Run(proto+"/"+k, func(t *testing.T) { secretFile(t, gwPod, k, server.str(k), gatewayTLSSecret) })
			}
		}
	})
}

// gatewayPodServiceName is the name of the Service (with a cluster IP) that selects the gateways.
func (r *rendered) gatewayPodServiceName(t *testing.T) string {
	t.Helper()
	for _, name := range sortedKeys(r.services) {
		if r.services[name].Spec.ClusterIP != corev1.ClusterIPNone {
			return name
		}
	}
	t.Fatal("no gateway Service with a cluster IP")
	return ""
}

// The configs of every kustomize overlay the chart is compared with (the mTLS and OTLP/HTTP
// components included) pass `validate` by the builds their images hold.
func TestOverlayConfigsValidate(t *testing.T) {
	for _, v := range chartVariants {
		t.Run(v.name, func(t *testing.T) { validateConfigs(t, render(t, overlay(t, v.components...))) })
	}
}
