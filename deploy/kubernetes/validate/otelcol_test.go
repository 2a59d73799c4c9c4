package validate

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Placeholders for the downward API fields the containers read; `validate` binds nothing, so
// any well-formed value does.
var fieldValues = map[string]string{
	"spec.nodeName": "node-1",
	"status.podIP":  "192.0.2.10",
}

// podEnv is the container's environment as the kubelet would set it, with placeholders for the
// downward API (and the deployment's namespace for metadata.namespace).
func podEnv(t *testing.T, c corev1.Container, namespace string) []string {
	t.Helper()
	var env []string
	for _, e := range c.Env {
		switch {
		case e.ValueFrom == nil:
			env = append(env, e.Name+"="+e.Value)
		case e.ValueFrom.FieldRef != nil && e.ValueFrom.FieldRef.FieldPath == "metadata.namespace":
			env = append(env, e.Name+"="+namespace)
		case e.ValueFrom.FieldRef != nil && fieldValues[e.ValueFrom.FieldRef.FieldPath] != "":
			env = append(env, e.Name+"="+fieldValues[e.ValueFrom.FieldRef.FieldPath])
		default:
			t.Fatalf("env %s: no placeholder for %+v", e.Name, e.ValueFrom)
		}
	}
	return env
}

// Every collector config passes `otelcol-mergelog validate` (OTELCOL_BIN), run with only the
// environment its pod has. The agent's file_storage directory is the node's /var/lib/otelcol,
// which validate insists exists: an override moves it to a temporary directory.
func TestCollectorConfigsValidate(t *testing.T) {
	bin := os.Getenv("OTELCOL_BIN")
	if bin == "" {
		t.Skip("OTELCOL_BIN is not set: run `make k8s` (part of `make test`), which builds the collector")
	}
	d := load(t)
	agent, gw := d.agent(t), d.gateway(t)

	state := t.TempDir()
	storage := filepath.Join(t.TempDir(), "storage.yaml")
	ext := parseConfig(t, d.configFile(t, agent)).enabledExtension(t, "file_storage")
	if err := os.WriteFile(storage, fmt.Appendf(nil, "extensions:\n  %s:\n    directory: %q\n    compaction:\n      directory: %q\n", ext, state, state), 0o644); err != nil {
		t.Fatal(err)
	}
	abs := func(rel string) string { return filepath.Join(dir, filepath.FromSlash(rel)) }

	for _, tc := range []struct {
		name    string
		w       workload
		configs []string
	}{
		{"agent", agent, []string{abs(d.configFile(t, agent)), storage}},
		{"agent with load_balancing", agent, []string{abs(d.configFile(t, agent)), abs("examples/agent-load-balancing.yaml"), storage}},
		{"gateway", gw, []string{abs(d.configFile(t, gw))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"validate"}
			for _, c := range tc.configs {
				args = append(args, "--config", c)
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = podEnv(t, tc.w.container(t), d.Namespace)
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("%s %v: %v\n%s", bin, args, err, out)
			}
		})
	}
}
