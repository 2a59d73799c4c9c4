package validate

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// The chart, with its defaults (merge.enabled, kafka.enabled), renders the objects of the
// kustomize base (with components/merge, components/kafka), field by field; collector configs
// are compared as YAML values, not text. What Helm adds by convention is left out of the
// comparison: its labels (helm.sh/chart, app.kubernetes.io/managed-by, instance, version,
// also in selectors) and the pods' checksum/config annotation, as is what kustomize adds: the
// content hash in ConfigMap names. The base's Namespace is not the chart's: helm installs
// into a namespace it is given (--create-namespace).
func TestChartRendersTheKustomizeObjects(t *testing.T) {
	helmBin(t)
	for _, v := range chartVariants {
		t.Run(v.name, func(t *testing.T) {
			want := kustomizeObjects(t, v.components...)
			delete(want, "Namespace/"+namespace)
			got := chartObjects(t, sets(v.set...)...)
			for _, key := range sortedKeys(want, got) {
				w, inKustomize := want[key]
				g, inChart := got[key]
				switch {
				case !inChart:
					t.Errorf("%s: in the kustomize build, not rendered by the chart", key)
				case !inKustomize:
					t.Errorf("%s: rendered by the chart, not in the kustomize build", key)
				default:
					for _, d := range valueDiff("", w, g) {
						t.Errorf("%s: %s", key, d)
					}
				}
			}
		})
	}
}

// chartObjects renders our chart with the values arguments and returns its objects as plain
// values by kind/name, normalized.
func chartObjects(t *testing.T, args ...string) map[string]map[string]any {
	t.Helper()
	objs := map[string]map[string]any{}
	for _, doc := range helmTemplate(t, chartDir, args...) {
		var obj map[string]any
		if err := yaml.Unmarshal(doc, &obj); err != nil {
			t.Fatal(err)
		}
		objs[objectKey(obj)] = normalized(t, obj, nil)
	}
	return objs
}

// With agent.enabled false the chart renders the gateway tier alone (for agents installed with
// the official chart or the Operator), each object as with the agent.
func TestChartGatewayAlone(t *testing.T) {
	helmBin(t)
	all := chartObjects(t)
	alone := chartObjects(t, "--set", "agent.enabled=false")
	for _, key := range sortedKeys(all, alone) {
		obj, inAll := all[key]
		kept, inAlone := alone[key]
		isAgent := strings.HasSuffix(key, "/"+release+"-agent")
		switch {
		case !inAll:
			t.Errorf("%s: rendered only without the agent", key)
		case isAgent && inAlone:
			t.Errorf("%s: rendered with agent.enabled false", key)
		case !isAgent && !inAlone:
			t.Errorf("%s: missing with agent.enabled false", key)
		case inAlone:
			for _, d := range valueDiff("", obj, kept) {
				t.Errorf("%s: %s", key, d)
			}
		}
	}
}

// kustomizeObjects builds the base with the components and returns its objects as plain
// values by kind/name, normalized, ConfigMaps by their generator's name (without the hash).
func kustomizeObjects(t *testing.T, components ...string) map[string]map[string]any {
	t.Helper()
	resources := kustomizeBuild(t, overlay(t, components...)).Resources()
	generators := load(t).ConfigMapGenerator
	hashed := map[string]string{} // ConfigMap name with hash → generator's name
	for _, res := range resources {
		for _, g := range generators {
			if hash, ok := strings.CutPrefix(res.GetName(), g.Name+"-"); ok && res.GetKind() == "ConfigMap" && len(hash) == 10 {
				hashed[res.GetName()] = g.Name
			}
		}
	}
	objs := map[string]map[string]any{}
	for _, res := range resources {
		y, err := res.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var obj map[string]any
		if err := yaml.Unmarshal(y, &obj); err != nil {
			t.Fatal(err)
		}
		obj = normalized(t, obj, hashed)
		objs[objectKey(obj)] = obj
	}
	return objs
}

func objectKey(obj map[string]any) string {
	return fmt.Sprintf("%v/%v", obj["kind"], collectorConfig(obj).str("metadata", "name"))
}

// helmLabels are the labels Helm charts set by convention, which kustomize's objects lack.
var helmLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/instance", "app.kubernetes.io/version"}

// normalized is obj without Helm's labels and checksum annotations, with ConfigMap names
// renamed (configMaps: from, to), and a ConfigMap's data as YAML values.
func normalized(t *testing.T, obj map[string]any, configMaps map[string]string) map[string]any {
	t.Helper()
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				walk(e)
			}
		case map[string]any:
			for k, child := range v {
				m, isMap := child.(map[string]any)
				switch {
				case isMap && (k == "labels" || k == "matchLabels" || k == "selector"):
					for _, l := range helmLabels {
						delete(m, l)
					}
				case isMap && k == "annotations":
					delete(m, "checksum/config")
				case isMap && k == "configMap" && configMaps[fmt.Sprint(m["name"])] != "":
					m["name"] = configMaps[fmt.Sprint(m["name"])]
				}
				walk(child)
				if isMap && len(m) == 0 && (k == "labels" || k == "annotations") {
					delete(v, k)
				}
			}
		}
	}
	walk(obj)
	if obj["kind"] == "ConfigMap" {
		meta := obj["metadata"].(map[string]any)
		if to := configMaps[fmt.Sprint(meta["name"])]; to != "" {
			meta["name"] = to
		}
		data, _ := obj["data"].(map[string]any)
		for key, text := range data {
			var parsed any
			if err := yaml.UnmarshalStrict([]byte(fmt.Sprint(text)), &parsed); err != nil {
				t.Fatalf("ConfigMap %s key %s: %v", meta["name"], key, err)
			}
			data[key] = parsed
		}
	}
	return obj
}

// valueDiff lists where a plain value (maps, lists, scalars) differs from the one wanted, by path.
func valueDiff(path string, want, got any) []string {
	wm, wIsMap := want.(map[string]any)
	gm, gIsMap := got.(map[string]any)
	if wIsMap && gIsMap {
		var diffs []string
		for _, k := range sortedKeys(wm, gm) {
			w, inWant := wm[k]
			g, inGot := gm[k]
			switch {
			case !inGot:
				diffs = append(diffs, fmt.Sprintf("%s.%s: missing (want %v)", path, k, w))
			case !inWant:
				diffs = append(diffs, fmt.Sprintf("%s.%s: not wanted (%v)", path, k, g))
			default:
				diffs = append(diffs, valueDiff(path+"."+k, w, g)...)
			}
		}
		return diffs
	}
	wl, wIsList := want.([]any)
	gl, gIsList := got.([]any)
	if wIsList && gIsList && len(wl) == len(gl) {
		var diffs []string
		for i := range wl {
			diffs = append(diffs, valueDiff(fmt.Sprintf("%s[%d]", path, i), wl[i], gl[i])...)
		}
		return diffs
	}
	if !reflect.DeepEqual(want, got) {
		return []string{fmt.Sprintf("%s: %v, want %v", path, got, want)}
	}
	return nil
}

func sortedKeys[V any](maps ...map[string]V) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	sort.Strings(keys)
	return keys
}
