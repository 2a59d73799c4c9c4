package validate

import (
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// Placeholders for the downward API fields the containers read; `validate` binds nothing, so
// any well-formed value does.
var fieldValues = map[string]string{
	"spec.nodeName": "node-1",
	"status.podIP":  "192.0.2.10",
	"status.hostIP": "192.0.2.1",
	"metadata.name": "pod-1",
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

// The builds the images hold, by image repository: the node agent's (builder-config-agent.yaml,
// OTELCOL_AGENT_BIN) and the full distribution (builder-config.yaml, OTELCOL_BIN).
var builds = map[string]string{
	"ghcr.io/mergelog/otelcol-mergelog-agent": "OTELCOL_AGENT_BIN",
	"ghcr.io/mergelog/otelcol-mergelog":       "OTELCOL_BIN",
}

// collectorFor returns the built collector image holds, so that a config is validated against
// the components its pod really has; it skips when that build is not given.
func collectorFor(t *testing.T, image string) string {
	t.Helper()
	repo := image
	if i := strings.IndexByte(repo, '@'); i >= 0 {
		repo = repo[:i] // a digest
	}
	if i := strings.LastIndexByte(repo, ':'); i > strings.LastIndexByte(repo, '/') {
		repo = repo[:i] // a tag
	}
	env, ok := builds[repo]
	if !ok {
		t.Fatalf("image %s: not one of our builds %v", image, slices.Collect(maps.Keys(builds)))
	}
	bin := os.Getenv(env)
	if bin == "" {
		t.Skipf("%s is not set: run `make k8s` (part of `make test`), which builds the collectors", env)
	}
	return bin
}

// Every collector config passes `validate` by the build its image holds, run with only the
// environment its pod has. The agent's file_storage directory is the node's /var/lib/otelcol,
// which validate insists exists: an override moves it to a temporary directory.
func TestCollectorConfigsValidate(t *testing.T) {
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
		image   string
		configs []string
	}{
		{"agent", agent, agent.container(t).Image, []string{abs(d.configFile(t, agent)), storage}},
		// load_balancing is in the full distribution only: the example says to run its image.
		{"agent with load_balancing", agent, "ghcr.io/mergelog/otelcol-mergelog", []string{abs(d.configFile(t, agent)), abs("examples/agent-load-balancing.yaml"), storage}},
		{"gateway", gw, gw.container(t).Image, []string{abs(d.configFile(t, gw))}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bin := collectorFor(t, tc.image)
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
