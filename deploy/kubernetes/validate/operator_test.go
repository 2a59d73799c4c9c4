package validate

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
	"sigs.k8s.io/yaml"
)

// operatorAgent is our OpenTelemetryCollector resource for the OpenTelemetry Operator.
const operatorAgent = "../../operator/otelcol-agent.yaml"

// crdSchema is the OpenAPI schema of a version of the Operator's OpenTelemetryCollector CRD,
// made strict as the API server's field validation is (kubectl's default): an object's fields
// are those its schema lists, unless it has x-kubernetes-preserve-unknown-fields (the
// collector config's components) or additionalProperties (maps).
func crdSchema(t *testing.T, version string) *spec.Schema {
	t.Helper()
	path := filepath.Join(thirdParty(t, "opentelemetry-operator-crds"), "opentelemetry.io_opentelemetrycollectors.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `json:"name"`
				Schema struct {
					OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, v := range crd.Spec.Versions {
		if v.Name != version {
			continue
		}
		var s spec.Schema
		if err := json.Unmarshal(v.Schema.OpenAPIV3Schema, &s); err != nil {
			t.Fatalf("%s %s: %v", path, version, err)
		}
		strictFields(&s)
		return &s
	}
	t.Fatalf("%s: no version %s", path, version)
	return nil
}

// strictFields sets additionalProperties: false on every object schema that lists its
// properties, has no additionalProperties and does not preserve unknown fields.
func strictFields(s *spec.Schema) {
	preserve, _ := s.Extensions.GetBool("x-kubernetes-preserve-unknown-fields")
	if len(s.Properties) > 0 && s.AdditionalProperties == nil && !preserve {
		s.AdditionalProperties = &spec.SchemaOrBool{Allows: false}
	}
	for name, p := range s.Properties {
		strictFields(&p)
		s.Properties[name] = p
	}
	if s.Items != nil {
		if s.Items.Schema != nil {
			strictFields(s.Items.Schema)
		}
		for i := range s.Items.Schemas {
			strictFields(&s.Items.Schemas[i])
		}
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		strictFields(s.AdditionalProperties.Schema)
	}
}

// crdErrors validates a custom resource (as plain values) against the CRD schema, as the API
// server does for the fields: the schema, and metadata as an ObjectMeta, strictly.
func crdErrors(t *testing.T, s *spec.Schema, obj map[string]any) []string {
	t.Helper()
	var errs []string
	for _, err := range validate.NewSchemaValidator(s, nil, "", strfmt.Default).Validate(obj).Errors {
		errs = append(errs, err.Error())
	}
	meta, err := json.Marshal(obj["metadata"])
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.UnmarshalStrict(meta, &metav1.ObjectMeta{}); err != nil {
		errs = append(errs, "metadata: "+err.Error())
	}
	return errs
}

// readCR reads a file that holds one custom resource, as plain values.
func readCR(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.UnmarshalStrict(data, &obj); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return obj
}

// Our OpenTelemetryCollector is valid against the Operator's v1beta1 CRD schema, and the
// strict schema catches what the API server refuses: a misspelt field, a value outside an
// enum, a wrong type; while a collector component's settings, which the CRD leaves open, pass.
func TestOperatorCollectorMatchesTheCRD(t *testing.T) {
	s := crdSchema(t, "v1beta1")
	cr := readCR(t, operatorAgent)
	if cr["apiVersion"] != "opentelemetry.io/v1beta1" || cr["kind"] != "OpenTelemetryCollector" {
		t.Fatalf("%s: apiVersion %v kind %v, want opentelemetry.io/v1beta1 OpenTelemetryCollector", operatorAgent, cr["apiVersion"], cr["kind"])
	}
	if errs := crdErrors(t, s, cr); len(errs) > 0 {
		t.Fatalf("%s:\n%s", operatorAgent, strings.Join(errs, "\n"))
	}
	for _, tc := range []struct {
		name    string
		change  func(spec map[string]any)
		mention string // "" for a change the CRD accepts
	}{
		{"misspelt field", func(s map[string]any) { s["volumeMount"] = s["volumeMounts"] }, "volumeMount"},
		{"misspelt field in a pod field", func(s map[string]any) {
			s["securityContext"].(map[string]any)["readOnlyRootFileSystem"] = true
		}, "readOnlyRootFileSystem"},
		{"mode outside the enum", func(s map[string]any) { s["mode"] = "deamonset" }, "mode"},
		{"wrong type", func(s map[string]any) { s["tolerations"] = "all" }, "tolerations"},
		{"a component's own settings", func(s map[string]any) {
			collectorConfig(s).get("config", "receivers", "mergelog").(map[string]any)["not_in_the_crd"] = 1
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			changed := readCR(t, operatorAgent)
			tc.change(changed["spec"].(map[string]any))
			errs := crdErrors(t, s, changed)
			switch {
			case tc.mention == "" && len(errs) > 0:
				t.Errorf("refused: %v", errs)
			case tc.mention != "" && !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, tc.mention) }):
				t.Errorf("errors %v, want one naming %s", errs, tc.mention)
			}
		})
	}
	t.Run("misspelt metadata", func(t *testing.T) {
		changed := readCR(t, operatorAgent)
		changed["metadata"].(map[string]any)["namepsace"] = "otelcol"
		if errs := crdErrors(t, s, changed); !slices.ContainsFunc(errs, func(e string) bool { return strings.Contains(e, "namepsace") }) {
			t.Errorf("errors %v, want one naming namepsace", errs)
		}
	})
}

// operatorPod is the pod the Operator makes of the resource's spec, as far as the spec says.
func operatorPod(t *testing.T, cr map[string]any) corev1.PodSpec {
	t.Helper()
	var s struct {
		Image              string                      `json:"image"`
		Env                []corev1.EnvVar             `json:"env"`
		Resources          corev1.ResourceRequirements `json:"resources"`
		SecurityContext    *corev1.SecurityContext     `json:"securityContext"`
		PodSecurityContext *corev1.PodSecurityContext  `json:"podSecurityContext"`
		Tolerations        []corev1.Toleration         `json:"tolerations"`
		Volumes            []corev1.Volume             `json:"volumes"`
		VolumeMounts       []corev1.VolumeMount        `json:"volumeMounts"`
	}
	data, err := json.Marshal(cr["spec"])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	return corev1.PodSpec{
		SecurityContext: s.PodSecurityContext,
		Tolerations:     s.Tolerations,
		Volumes:         s.Volumes,
		Containers: []corev1.Container{{
			Image: s.Image, Env: s.Env, Resources: s.Resources,
			SecurityContext: s.SecurityContext, VolumeMounts: s.VolumeMounts,
		}},
	}
}

// The resource runs our agent as the kustomize base's DaemonSet does: in daemonset mode, our
// image, our agent config value for value, the same host paths mounted the same way, security
// contexts, resources, tolerations and environment; and its config passes
// `otelcol-mergelog validate` with that environment.
func TestOperatorCollectorRunsOurAgent(t *testing.T) {
	cr := readCR(t, operatorAgent)
	if mode := collectorConfig(cr).str("spec", "mode"); mode != "daemonset" {
		t.Errorf("spec.mode %q, want daemonset", mode)
	}
	d := load(t)
	ours := d.agent(t)
	pod := operatorPod(t, cr)
	got := pod.Containers[0]
	cfg, ok := collectorConfig(cr).get("spec", "config").(map[string]any)
	if !ok {
		t.Fatal("no spec.config")
	}
	for _, diff := range valueDiff("", map[string]any(parseConfig(t, d.configFile(t, ours))), cfg) {
		t.Errorf("spec.config: %s", diff)
	}
	checkRunsLikeOurAgent(t, ours, pod)

	bin := collectorFor(t, got.Image)
	text, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := collectorConfig(cr).str("metadata", "namespace")
	if out, err := runValidate(t, bin, []string{string(text)}, podEnv(t, got, ns)); err != nil {
		t.Errorf("%v\n%s", err, out)
	}
}
