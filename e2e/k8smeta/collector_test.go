package k8smeta

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The component's files, and the agent's config they are merged over, as the pods read them.
const (
	component   = "../../deploy/kubernetes/components/k8s-metadata"
	agentConfig = "../../deploy/kubernetes/agent-config.yaml"
)

// collector is the built full distribution (OTELCOL_BIN) run as a process.
type collector struct {
	cmd    *exec.Cmd
	out    syncBuffer
	exited chan struct{}
}

// syncBuffer is the collector's output, written by the process and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startCollector runs the agent's config, the component's, and an override with the
// environment env added to the test's; it is stopped when the test ends.
func startCollector(t *testing.T, env []string, configs ...string) *collector {
	t.Helper()
	bin := os.Getenv("OTELCOL_BIN")
	if bin == "" {
		t.Skip("OTELCOL_BIN is not set: run `make e2e` (part of `make test`), which builds the collector")
	}
	var args []string
	for _, c := range configs {
		args = append(args, "--config", c)
	}
	c := &collector{cmd: exec.Command(bin, args...), exited: make(chan struct{})}
	c.cmd.Env = append(os.Environ(), env...)
	c.cmd.Stdout, c.cmd.Stderr = &c.out, &c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() { c.stop(t) })
	return c
}

// stop ends the collector with SIGINT (SIGKILL after 20 s, which fails the test).
func (c *collector) stop(t *testing.T) {
	select {
	case <-c.exited:
		return
	default:
	}
	_ = c.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-c.exited:
	case <-time.After(20 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
		t.Errorf("the collector did not stop on SIGINT; output:\n%s", c.out.String())
	}
}

// record is a log record the collector wrote: its body and its resource's attributes.
type record struct {
	body     string
	resource map[string]string
}

// waitRecords waits (up to two minutes, whatever the machine's speed) until the file exporter
// wrote at least n records, and returns them; it fails if the collector exits.
func waitRecords(t *testing.T, c *collector, path string, n int) []record {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		recs := readRecords(t, path)
		if len(recs) >= n {
			return recs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("got %d records, want %d; collector output:\n%s", len(recs), n, c.out.String())
		case <-c.exited:
			t.Fatalf("the collector exited (%v) with %d records of %d; output:\n%s", c.cmd.ProcessState, len(recs), n, c.out.String())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// readRecords reads the file exporter's OTLP JSON lines; a last line still being written is
// left for the next read.
func readRecords(t *testing.T, path string) []record {
	t.Helper()
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var recs []record
	for line := range bytes.Lines(data) {
		if !bytes.HasSuffix(line, []byte("\n")) {
			break
		}
		var logs struct {
			ResourceLogs []struct {
				Resource struct {
					Attributes []otlpAttribute `json:"attributes"`
				} `json:"resource"`
				ScopeLogs []struct {
					LogRecords []struct {
						Body otlpValue `json:"body"`
					} `json:"logRecords"`
				} `json:"scopeLogs"`
			} `json:"resourceLogs"`
		}
		if err := json.Unmarshal(line, &logs); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, rl := range logs.ResourceLogs {
			res := map[string]string{}
			for _, a := range rl.Resource.Attributes {
				res[a.Key] = a.Value.StringValue
			}
			for _, sl := range rl.ScopeLogs {
				for _, lr := range sl.LogRecords {
					recs = append(recs, record{lr.Body.StringValue, res})
				}
			}
		}
	}
	return recs
}

type otlpAttribute struct {
	Key   string    `json:"key"`
	Value otlpValue `json:"value"`
}

type otlpValue struct {
	StringValue string `json:"stringValue"`
}

// clusterRoleRules reads the component's ClusterRole, which the fake API server enforces.
func clusterRoleRules(t *testing.T) []policyRule {
	t.Helper()
	var role struct {
		Kind  string       `yaml:"kind"`
		Rules []policyRule `yaml:"rules"`
	}
	data, err := os.ReadFile(filepath.Join(component, "clusterrole.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &role); err != nil || role.Kind != "ClusterRole" {
		t.Fatalf("clusterrole.yaml: kind %q, %v", role.Kind, err)
	}
	return role.Rules
}

// componentConfig is the component's agent config file: the --config the DaemonSet appends,
// read from the kustomization's configMapGenerator.
func componentConfig(t *testing.T) string {
	t.Helper()
	var k struct {
		ConfigMapGenerator []struct {
			Name  string   `yaml:"name"`
			Files []string `yaml:"files"`
		} `yaml:"configMapGenerator"`
	}
	data, err := os.ReadFile(filepath.Join(component, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		t.Fatal(err)
	}
	for _, g := range k.ConfigMapGenerator {
		for _, f := range g.Files {
			if key, src, ok := strings.Cut(f, "="); ok && g.Name == "otelcol-agent" && key == "k8s-metadata.yaml" {
				return filepath.Join(component, src)
			}
		}
	}
	t.Fatal("kustomization.yaml: no k8s-metadata.yaml in the otelcol-agent ConfigMap")
	return ""
}

// override is merged over the agent's and the component's configs: the receiver's globs under
// root, checkpoints under root, records to a file instead of the gateway, no ports, and the
// processor's API server from a kubeconfig (a pod has its ServiceAccount token instead).
func override(t *testing.T, root, out string) string {
	t.Helper()
	var agent struct {
		Receivers struct {
			Mergelog struct {
				Include []string `yaml:"include"`
				Exclude []string `yaml:"exclude"`
			} `yaml:"mergelog"`
		} `yaml:"receivers"`
	}
	data, err := os.ReadFile(agentConfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &agent); err != nil {
		t.Fatal(err)
	}
	rooted := func(globs []string) string {
		var q []string
		for _, g := range globs {
			q = append(q, fmt.Sprintf("%q", filepath.Join(root, g)))
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	storage := filepath.Join(root, "storage")
	if err := os.MkdirAll(storage, 0o755); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf(`
receivers:
  mergelog:
    include: %s
    exclude: %s
    poll_interval: 50ms
extensions:
  file_storage:
    directory: %q
    compaction:
      directory: %q
  health_check:
    endpoint: 127.0.0.1:0
processors:
  k8s_attributes:
    auth_type: kubeConfig
exporters:
  file:
    path: %q
service:
  telemetry:
    metrics:
      level: none
  pipelines:
    logs:
      exporters: [file]
`, rooted(agent.Receivers.Mergelog.Include), rooted(agent.Receivers.Mergelog.Exclude), storage, storage, out)
	path := filepath.Join(root, "override.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// kubeconfig writes a kubeconfig naming the fake API server, and returns its path.
func kubeconfig(t *testing.T, dir, server string) string {
	t.Helper()
	text := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
  - name: fake
    cluster:
      server: %s
users:
  - name: agent
    user:
      token: not-checked
contexts:
  - name: fake
    context:
      cluster: fake
      user: agent
current-context: fake
`, server)
	path := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}
