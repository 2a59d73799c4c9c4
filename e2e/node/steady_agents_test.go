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

// fluentBitSteadyConfig runs Fluent Bit as its docs and chart run it as a node agent (and as
// VictoriaMetrics' benchmark does): tail with the docker and cri multiline parsers, an offset
// DB, Mem_Buf_Limit 5MB, long lines skipped, new files looked for every 10 s; the JSON in the
// `log` key parsed into the record (the kubernetes filter's Merge_Log, without an API server);
// out to the gateway over OTLP/HTTP. Read_from_Head: the files exist, empty, when it starts.
const fluentBitSteadyConfig = `[SERVICE]
    Flush        1
    Daemon       Off
    Log_Level    info
    Parsers_File %[1]s
    HTTP_Server  Off

[INPUT]
    Name              tail
    Path              %[2]s/*/*/*.log
    Tag               kube.*
    multiline.parser  docker, cri
    DB                %[3]s
    Mem_Buf_Limit     5MB
    Skip_Long_Lines   On
    Refresh_Interval  10
    Read_from_Head    On

[FILTER]
    Name          parser
    Match         kube.*
    Key_Name      log
    Parser        json
    Reserve_Data  On

[OUTPUT]
    Name      opentelemetry
    Match     kube.*
    Host      %[4]s
    Port      %[5]s
    Logs_uri  /v1/logs
    Tls       Off
`

const fluentBitParsers = `[PARSER]
    Name   json
    Format json
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
	parsers := filepath.Join(dir, "fluent-bit-parsers.conf")
	if err := os.WriteFile(parsers, []byte(fluentBitParsers), 0o600); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "fluent-bit.conf")
	text := fmt.Sprintf(fluentBitSteadyConfig, parsers, pods, filepath.Join(state, "tail.db"), host, port)
	if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
		return nil, err
	}
	return startAgent("fluent-bit", os.Getenv("FLUENT_BIT_BIN"), filepath.Join(dir, "fluent-bit.log"), state, 0, conf)
}
