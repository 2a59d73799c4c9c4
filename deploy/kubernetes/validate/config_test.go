package validate

import (
	"maps"
	"net"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// collectorConfig is a collector config file as plain YAML values.
type collectorConfig map[string]any

func parseConfig(t *testing.T, rel string) collectorConfig {
	t.Helper()
	var c collectorConfig
	if err := yaml.UnmarshalStrict(readFile(t, rel), &c); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	return c
}

// merged is c with over merged in as the collector merges several --config files: maps key by
// key, anything else (lists included) replaced.
func (c collectorConfig) merged(over collectorConfig) collectorConfig {
	out := maps.Clone(c)
	for k, v := range over {
		cm, ok1 := out[k].(map[string]any)
		om, ok2 := v.(map[string]any)
		if ok1 && ok2 {
			out[k] = map[string]any(collectorConfig(cm).merged(om))
		} else {
			out[k] = v
		}
	}
	return out
}

// get walks nested maps; nil if a key is missing.
func (c collectorConfig) get(keys ...string) any {
	var v any = map[string]any(c)
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func (c collectorConfig) str(keys ...string) string {
	s, _ := c.get(keys...).(string)
	return s
}

func (c collectorConfig) list(keys ...string) []string {
	var out []string
	l, _ := c.get(keys...).([]any)
	for _, v := range l {
		s, _ := v.(string)
		out = append(out, s)
	}
	return out
}

// componentType is the type part of a component ID such as "otlp_grpc/backend".
func componentType(id string) string {
	typ, _, _ := strings.Cut(id, "/")
	return typ
}

// enabledExtension is the ID of the one extension of the given type in service.extensions.
func (c collectorConfig) enabledExtension(t *testing.T, typ string) string {
	t.Helper()
	var ids []string
	for _, id := range c.list("service", "extensions") {
		if componentType(id) == typ {
			ids = append(ids, id)
		}
	}
	if len(ids) != 1 {
		t.Fatalf("want one %s extension in service.extensions, got %v", typ, ids)
	}
	return ids[0]
}

// logsExporter is the ID of the one exporter of the logs pipeline.
func (c collectorConfig) logsExporter(t *testing.T) string {
	t.Helper()
	ids := c.list("service", "pipelines", "logs", "exporters")
	if len(ids) != 1 {
		t.Fatalf("want one exporter in the logs pipeline, got %v", ids)
	}
	return ids[0]
}

var envRef = regexp.MustCompile(`\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}`)

// port is the port of an endpoint "host:port" (the host may be an ${env:...} reference).
func port(t *testing.T, endpoint string) string {
	t.Helper()
	_, p, err := net.SplitHostPort(envRef.ReplaceAllString(endpoint, "host"))
	if err != nil || p == "" {
		t.Fatalf("endpoint %q: want host:port (%v)", endpoint, err)
	}
	return p
}

// envVars are the variables a config file reads (${env:NAME}).
func envVars(text string) []string {
	var names []string
	for _, m := range envRef.FindAllStringSubmatch(text, -1) {
		names = append(names, m[1])
	}
	return names
}
