package node

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// steadyAgent is one agent of the steady-state benchmark and how to start it on a run's pods
// directory, sending to its gateway.
type steadyAgent struct {
	name  string
	about string // the table's description
	start func(dir, pods string, g *seqGateway) (*agent, error)
}

// steadyAgents are the agents compared: ours and the helm preset on the collectors' builds, and
// Fluent Bit when FLUENT_BIT_BIN names its binary.
func steadyAgents() []steadyAgent {
	agents := []steadyAgent{
		{"mergelog", "ours: shipped agent config + `json_parser`", startOursSteady},
		{"file_log", "file_log: the helm preset + `json_parser`", startPresetSteady},
	}
	if os.Getenv("FLUENT_BIT_BIN") != "" {
		agents = append(agents, steadyAgent{"fluent-bit", "Fluent Bit: tail `docker, cri`, parser `json` on `log`, OTLP/HTTP", startFluentBit})
	}
	return agents
}

// The operators each collector adds for the workload's JSON lines, merged over its base config:
// ours after its `format: container`, the preset's after its container operator (a list is
// replaced whole when configs merge, so the preset's is restated).
const (
	oursJSON = `receivers:
  mergelog:
    operators:
      - type: json_parser
        parse_from: body
`
	presetJSON = `receivers:
  filelog:
    operators:
      - type: container
        id: container-parser
        max_log_size: 102400
      - type: json_parser
        parse_from: body
`
)

func startOursSteady(dir, pods string, g *seqGateway) (*agent, error) {
	return startCollectorSteady(dir, pods, "mergelog", shippedConfig, oursJSON, g)
}

func startPresetSteady(dir, pods string, g *seqGateway) (*agent, error) {
	return startCollectorSteady(dir, pods, "file_log", presetConfig, presetJSON, g)
}

// startCollectorSteady starts a collector as the node test does (startRunAgent), with extra
// merged over its config.
func startCollectorSteady(dir, pods, name, base, extra string, g *seqGateway) (*agent, error) {
	path := filepath.Join(dir, name+"-json.yaml")
	if err := os.WriteFile(path, []byte(extra), 0o600); err != nil {
		return nil, err
	}
	return startRunAgent(dir, name, base, pods, g.grpcAddr, path)
}

// fluentBitJSON is what the steady state adds to Fluent Bit's node-agent config
// (testdata/fluent-bit at the repository's root, shared with bench/cmd/agentbench): the JSON in
// the `log` key parsed into the record (the kubernetes filter's Merge_Log, without an API server).
const fluentBitJSON = `
[FILTER]
    Name          parser
    Match         kube.*
    Key_Name      log
    Parser        json
    Reserve_Data  On
`

func startFluentBit(dir, pods string, g *seqGateway) (*agent, error) {
	host, port, err := net.SplitHostPort(g.httpAddr)
	if err != nil {
		return nil, err
	}
	state := stateDir(dir, "fluent-bit")
	if err := os.MkdirAll(state, 0o755); err != nil {
		return nil, err
	}
	shared, err := filepath.Abs("../../testdata/fluent-bit")
	if err != nil {
		return nil, err
	}
	// Fluent Bit's @SET variables, then its node-agent config, then the JSON filter.
	text := fmt.Sprintf("@SET pods=%s\n@SET db=%s\n@SET host=%s\n@SET port=%s\n@SET storage=memory\n@SET buffers=%s\n@SET parsers=%s\n@INCLUDE %s\n%s",
		pods, filepath.Join(state, "tail.db"), host, port, filepath.Join(state, "buffers"), filepath.Join(shared, "parsers.conf"),
		filepath.Join(shared, "node-agent.conf"), fluentBitJSON)
	conf := filepath.Join(dir, "fluent-bit.conf")
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		return nil, err
	}
	return startAgent("fluent-bit", os.Getenv("FLUENT_BIT_BIN"), filepath.Join(dir, "fluent-bit.log"), state, 0, conf)
}
