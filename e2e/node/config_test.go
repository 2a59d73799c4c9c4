package node

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// The two agents of every run: the shipped node agent and the helm chart's file_log preset.
const (
	shippedConfig = "../../deploy/kubernetes/agent-config.yaml"
	presetConfig  = "testdata/helm-preset.yaml"
)

// agentConfigs writes the config files of one agent for a run (the base config with the node's
// paths and the gateway's address rewritten to the run's, then the run's telemetry) and
// returns their paths in the order the collector merges them.
func agentConfigs(dir, name, base, pods, gatewayAddr string, healthPort, promPort int) ([]string, error) {
	text, err := os.ReadFile(base)
	if err != nil {
		return nil, err
	}
	rewritten := strings.NewReplacer(
		"/var/log/pods", pods,
		"/var/lib/otelcol", stateDir(dir, name),
		"otelcol-gateway:4317", gatewayAddr,
	).Replace(string(text))
	if err := os.MkdirAll(stateDir(dir, name), 0o755); err != nil {
		return nil, err
	}
	// The health check and the metrics on ports of the run's; debug logs when asked for
	// (NODE_DEBUG=1), to see what the receiver did with each file.
	level := "info"
	if os.Getenv("NODE_DEBUG") != "" {
		level = "debug"
	}
	override := fmt.Sprintf(`
extensions:
  health_check:
    endpoint: 127.0.0.1:%d
service:
  telemetry:
    logs:
      level: %s
    metrics:
      readers:
        - pull:
            exporter:
              prometheus:
                host: 127.0.0.1
                port: %d
`, healthPort, level, promPort)
	paths := []string{filepath.Join(dir, name+".yaml"), filepath.Join(dir, name+"-run.yaml")}
	for i, doc := range []string{rewritten, override} {
		if err := os.WriteFile(paths[i], []byte(doc), 0o600); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// stateDir is where agent name of the run in dir keeps its checkpoints.
func stateDir(dir, name string) string { return filepath.Join(dir, name+"-state") }

// replayBound is how many records a SIGKILL of the shipped agent may send twice: the batches in
// flight when it died, max_in_flight × max_records of its config.
func replayBound() (int, error) {
	text, err := os.ReadFile(shippedConfig)
	if err != nil {
		return 0, err
	}
	n := 1
	for _, key := range []string{"max_records", "max_in_flight"} {
		m := regexp.MustCompile(`(?m)^\s+` + key + `:\s*(\d+)`).FindSubmatch(text)
		if m == nil {
			return 0, fmt.Errorf("%s: no %s", shippedConfig, key)
		}
		v, _ := strconv.Atoi(string(m[1])) // digits
		n *= v
	}
	return n, nil
}

// freePort is a TCP port free on the loopback address a moment ago.
func freePort() (int, error) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = lis.Close() }() // only its port was wanted
	return lis.Addr().(*net.TCPAddr).Port, nil
}
