package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A variant is an agent pipeline: a base config file and overrides merged over it, as the
// collector merges several --config files (later maps win key by key; lists are replaced).
type variant struct {
	name      string
	about     string
	preset    bool     // based on the helm chart's preset rather than the shipped config
	renamed   bool     // the preset with file_log renamed to mergelog, nothing else changed
	fluentBit bool     // Fluent Bit (fluentbit.go) rather than a collector
	fbStorage string   // Fluent Bit's tail buffer: memory ("": memory) or filesystem
	overrides []string // YAML documents
	args      []string // more command-line arguments of the agent (an override's "# args: …" line)
}

// presetFileLog is the preset's file_log receiver.
const presetFileLog = `
receivers:
  filelog:
    include: [/var/log/pods/*/*/*.log]
    exclude: [/var/log/pods/otel_otelcol-agent-*/*/*.log]
    start_at: beginning
    retry_on_failure:
      enabled: true
    include_file_path: true
    include_file_name: false
    storage: file_storage
    operators:
      - type: container
        id: container-parser
        max_log_size: 102400
`

// presetConfig is the opentelemetry-helm-charts logsCollection preset as the chart renders it
// for a DaemonSet (file_log with the container operator, file_storage for its checkpoints,
// memory_limiter and batch, the OTLP exporter with its defaults), with start_at beginning for
// the catch-up.
const presetConfig = presetFileLog + `
extensions:
  file_storage:
    directory: /var/lib/otelcol
processors:
  memory_limiter:
    check_interval: 5s
    limit_percentage: 80
    spike_limit_percentage: 25
  batch: {}
exporters:
  otlp_grpc:
    endpoint: otelcol-gateway:4317
    tls:
      insecure: true
service:
  extensions: [file_storage]
  pipelines:
    logs:
      receivers: [filelog]
      processors: [memory_limiter, batch]
      exporters: [otlp_grpc]
`

// presetReceiver puts the preset's file_log receiver into another pipeline.
const presetReceiver = presetFileLog + `
service:
  pipelines:
    logs:
      receivers: [filelog]
`

var variants = []variant{
	{name: "shipped", about: "deploy/kubernetes/agent-config.yaml as shipped"},
	{name: "preset", about: "(a) helm logsCollection preset: file_log + container operator, memory_limiter, batch, otlp_grpc defaults", preset: true},
	{name: "preset-rx", about: "(b) the preset's file_log receiver in the shipped pipeline", overrides: []string{presetReceiver}},
	{name: "preset-renamed", about: "the preset with file_log renamed to mergelog (the drop-in)", preset: true, renamed: true},
	{name: "detect-off", about: "the shipped config without stack trace detection (multiline.detect: [])", overrides: []string{detectOff}},
	{name: "preset-recombine", about: "(a) the preset with a recombine operator joining Java traces (the traces workload)", preset: true, overrides: []string{presetRecombine}},
	{name: "fluent-bit", about: "Fluent Bit as its docs and chart run it: tail `docker, cri` with an offset DB, OTLP/HTTP out (the pods workload)", fluentBit: true},
	{name: "fluent-bit-fs", about: "fluent-bit with `storage.type filesystem`, its docs' answer to the records a paused tail loses (fluent/fluent-bit#8353)", fluentBit: true, fbStorage: "filesystem"},
}

// detectOff turns the shipped agent's stack trace detection off.
const detectOff = `
receivers:
  mergelog:
    multiline:
      detect: []
`

// presetRecombine is what file_log users are told to add for Java traces: a recombine operator
// after the container operator, joining each line that begins with whitespace to the one before,
// per file.
const presetRecombine = `
receivers:
  filelog:
    operators:
      - type: container
        id: container-parser
        max_log_size: 102400
      - type: recombine
        combine_field: body
        is_first_entry: body matches "^[^\\s]"
        source_identifier: attributes["log.file.path"]
`

// workloadOverride points each receiver at a workload's files and sets how entries are made.
func workloadOverride(wl workload) string {
	if c, ok := opsCases[wl.name]; ok {
		return c.override(wl.root)
	}
	switch wl.name {
	case "plain":
		return fmt.Sprintf(`
receivers:
  mergelog:
    include: [%[1]s/*.log]
    format: text
  filelog:
    include: [%[1]s/*.log]
    operators: []
`, wl.root)
	case "multiline":
		return fmt.Sprintf(`
receivers:
  mergelog:
    include: [%[1]s/*.log]
    format: text
    multiline:
      detect: [] # the shipped detection does not combine with a pattern
      line_start_pattern: '\d{4}-\d{2}-\d{2} '
  filelog:
    include: [%[1]s/*.log]
    operators: []
    multiline:
      line_start_pattern: '^\d{4}-\d{2}-\d{2} '
`, wl.root)
	}
	return ""
}

// configDocs are the config documents of v on wl, in the order the collector merges them: the
// base, v's overrides, and the workload's override of the receivers v has.
func configDocs(shipped string, v variant, wl workload) ([]string, error) {
	base := shipped
	if v.preset {
		base = presetConfig
	}
	if v.renamed {
		base = strings.ReplaceAll(base, "filelog", "mergelog")
	}
	docs := append([]string{base}, v.overrides...)
	if o := workloadOverride(wl); o != "" {
		has, err := componentIDs(docs, "receivers")
		if err != nil {
			return nil, err
		}
		if o, err = keepReceivers(o, has); err != nil {
			return nil, err
		}
		if o != "" {
			docs = append(docs, o)
		}
	}
	return docs, nil
}

// configFiles writes the config docs of one run of v on wl and returns their paths. The node's
// paths and the gateway's address are rewritten to the run's: the log tree, the state
// directory and the local gateway.
func configFiles(dir string, v variant, docs []string, wl workload, gatewayAddr, gatewayHTTP, state string) ([]string, error) {
	var paths []string
	for i, d := range docs {
		d = strings.ReplaceAll(d, "/var/log/pods", wl.root)
		d = strings.ReplaceAll(d, "/var/lib/otelcol", state)
		d = strings.ReplaceAll(d, "otelcol-gateway:4317", gatewayAddr)
		d = strings.ReplaceAll(d, "http://otelcol-gateway:4318", "http://"+gatewayHTTP)
		p := filepath.Join(dir, fmt.Sprintf("%s-%d.yaml", v.name, i))
		if err := os.WriteFile(p, []byte(d), 0o600); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
