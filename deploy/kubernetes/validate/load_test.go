// Package validate checks the manifests in deploy/kubernetes offline: each decodes strictly
// into its k8s.io/api type, and the objects and the collector configs they carry fit together
// (labels, volumes, ports, probes, the agent-to-gateway endpoint). With OTELCOL_BIN and
// OTELCOL_AGENT_BIN set (as `make k8s` does), every collector config also passes `validate` by
// the build its pod's image holds.
package validate

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// dir is deploy/kubernetes, the kustomization root.
const dir = ".."

// kustomization holds the kustomization.yaml fields these manifests use. It is decoded
// strictly, so a misspelt or newly used field fails the test until it is added here.
type kustomization struct {
	APIVersion         string   `json:"apiVersion"`
	Kind               string   `json:"kind"`
	Namespace          string   `json:"namespace"`
	Resources          []string `json:"resources"`
	ConfigMapGenerator []struct {
		Name  string   `json:"name"`
		Files []string `json:"files"`
	} `json:"configMapGenerator"`
}

// deployment is what `kubectl apply -k deploy/kubernetes` creates, decoded.
type deployment struct {
	kustomization
	namespaces      []*corev1.Namespace
	serviceAccounts map[string]*corev1.ServiceAccount
	daemonSets      []*appsv1.DaemonSet
	deployments     []*appsv1.Deployment
	services        map[string]*corev1.Service
	hardeningObjects
	// configMaps are the generated ConfigMaps: name, then key, then the source file's path.
	configMaps map[string]map[string]string
}

// hardeningObjects are the objects of the hardening (hardening_test.go and the tests beside it),
// by name, as the base's manifests and rendered overlays or charts hold them.
type hardeningObjects struct {
	priorityClasses map[string]*schedulingv1.PriorityClass
	budgets         map[string]*policyv1.PodDisruptionBudget
	networkPolicies map[string]*networkingv1.NetworkPolicy
}

func newHardeningObjects() hardeningObjects {
	return hardeningObjects{map[string]*schedulingv1.PriorityClass{}, map[string]*policyv1.PodDisruptionBudget{}, map[string]*networkingv1.NetworkPolicy{}}
}

// add keeps obj if it is of a hardening kind, and reports whether it was.
func (h hardeningObjects) add(obj runtime.Object) bool {
	switch o := obj.(type) {
	case *schedulingv1.PriorityClass:
		h.priorityClasses[o.Name] = o
	case *policyv1.PodDisruptionBudget:
		h.budgets[o.Name] = o
	case *networkingv1.NetworkPolicy:
		h.networkPolicies[o.Name] = o
	default:
		return false
	}
	return true
}

// newScheme knows the kinds used here: core/v1, apps/v1, policy/v1, scheduling/v1,
// networking/v1 and rbac/v1 (components/k8s-metadata).
func newScheme() *runtime.Scheme {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, appsv1.AddToScheme, policyv1.AddToScheme,
		schedulingv1.AddToScheme, networkingv1.AddToScheme, rbacv1.AddToScheme} {
		if err := add(scheme); err != nil {
			panic(err)
		}
	}
	return scheme
}

// strictDecoder decodes YAML manifests as the API server's strict field validation does:
// unknown and duplicate fields are errors, and so are values of the wrong type.
func strictDecoder() runtime.Decoder {
	scheme := newScheme()
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
}

// splitDocuments returns the documents of a YAML stream, without the empty ones (a comment
// alone, as Helm writes before each object).
func splitDocuments(data []byte) ([][]byte, error) {
	r := kyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if j, err := yaml.YAMLToJSON(doc); err != nil || string(j) != "null" {
			docs = append(docs, doc)
		}
	}
}

// decodeManifest decodes a file that must hold exactly one object.
func decodeManifest(dec runtime.Decoder, data []byte) (runtime.Object, error) {
	docs, err := splitDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("want exactly one YAML document per file, got %d", len(docs))
	}
	obj, _, err := dec.Decode(docs[0], nil, nil)
	return obj, err
}

func load(t *testing.T) *deployment {
	t.Helper()
	d := &deployment{
		serviceAccounts:  map[string]*corev1.ServiceAccount{},
		services:         map[string]*corev1.Service{},
		hardeningObjects: newHardeningObjects(),
		configMaps:       map[string]map[string]string{},
	}
	if err := yaml.UnmarshalStrict(readFile(t, "kustomization.yaml"), &d.kustomization); err != nil {
		t.Fatalf("kustomization.yaml: %v", err)
	}
	if d.APIVersion != "kustomize.config.k8s.io/v1beta1" || d.Kind != "Kustomization" {
		t.Fatalf("kustomization.yaml: apiVersion %q kind %q, want kustomize.config.k8s.io/v1beta1 Kustomization", d.APIVersion, d.Kind)
	}
	dec := strictDecoder()
	for _, res := range d.Resources {
		obj, err := decodeManifest(dec, readFile(t, res))
		if err != nil {
			t.Fatalf("%s: %v", res, err)
		}
		switch o := obj.(type) {
		case *corev1.Namespace:
			d.namespaces = append(d.namespaces, o)
		case *corev1.ServiceAccount:
			d.serviceAccounts[o.Name] = o
		case *corev1.Service:
			d.services[o.Name] = o
		case *appsv1.DaemonSet:
			d.daemonSets = append(d.daemonSets, o)
		case *appsv1.Deployment:
			d.deployments = append(d.deployments, o)
		default:
			if !d.add(obj) {
				t.Fatalf("%s: %T is not a kind these tests check", res, obj)
			}
		}
	}
	for _, g := range d.ConfigMapGenerator {
		keys := map[string]string{}
		for _, f := range g.Files {
			key, src, ok := strings.Cut(f, "=")
			if !ok {
				key, src = path.Base(f), f
			}
			if _, dup := keys[key]; dup {
				t.Fatalf("configMapGenerator %s: key %s twice", g.Name, key)
			}
			readFile(t, src) // it must exist
			keys[key] = src
		}
		d.configMaps[g.Name] = keys
	}
	return d
}

// readFile reads a file of deploy/kubernetes, by its path relative to it.
func readFile(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// workload is a pod template with the name and kind of its owner.
type workload struct {
	kind, name string
	selector   map[string]string
	pod        corev1.PodTemplateSpec
}

func (d *deployment) workloads() []workload {
	var ws []workload
	for _, ds := range d.daemonSets {
		ws = append(ws, workload{"DaemonSet", ds.Name, ds.Spec.Selector.MatchLabels, ds.Spec.Template})
	}
	for _, dp := range d.deployments {
		ws = append(ws, workload{"Deployment", dp.Name, dp.Spec.Selector.MatchLabels, dp.Spec.Template})
	}
	return ws
}

// agent and gateway are the two workloads: the only DaemonSet and the only Deployment.
func (d *deployment) agent(t *testing.T) workload {
	t.Helper()
	if len(d.daemonSets) != 1 {
		t.Fatalf("want one DaemonSet, got %d", len(d.daemonSets))
	}
	return d.workloads()[0]
}

func (d *deployment) gateway(t *testing.T) workload {
	t.Helper()
	if len(d.deployments) != 1 {
		t.Fatalf("want one Deployment, got %d", len(d.deployments))
	}
	return d.workloads()[len(d.daemonSets)]
}

// container is the workload's one container (the collector).
func (w workload) container(t *testing.T) corev1.Container {
	t.Helper()
	if n := len(w.pod.Spec.Containers); n != 1 {
		t.Fatalf("%s %s: want one container, got %d", w.kind, w.name, n)
	}
	return w.pod.Spec.Containers[0]
}

// configFile follows the container's --config to the ConfigMap key it reads, and returns the
// source file kustomize builds that key from.
func (d *deployment) configFile(t *testing.T, w workload) string {
	t.Helper()
	c := w.container(t)
	var cfgPath string
	for _, a := range slices.Concat(c.Command, c.Args) {
		if p, ok := strings.CutPrefix(a, "--config="); ok {
			cfgPath = p
		}
	}
	if cfgPath == "" {
		t.Fatalf("%s %s: no --config=<file> argument", w.kind, w.name)
	}
	for _, m := range c.VolumeMounts {
		if path.Dir(cfgPath) != m.MountPath {
			continue
		}
		for _, v := range w.pod.Spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			if v.ConfigMap == nil {
				t.Fatalf("%s %s: %s is not mounted from a ConfigMap", w.kind, w.name, cfgPath)
			}
			keys, ok := d.configMaps[v.ConfigMap.Name]
			if !ok {
				t.Fatalf("%s %s: ConfigMap %s is not generated by kustomization.yaml", w.kind, w.name, v.ConfigMap.Name)
			}
			src, ok := keys[path.Base(cfgPath)]
			if !ok {
				t.Fatalf("%s %s: ConfigMap %s has no key %s (--config=%s)", w.kind, w.name, v.ConfigMap.Name, path.Base(cfgPath), cfgPath)
			}
			return src
		}
	}
	t.Fatalf("%s %s: no volume mounted at %s (--config=%s)", w.kind, w.name, path.Dir(cfgPath), cfgPath)
	return ""
}
