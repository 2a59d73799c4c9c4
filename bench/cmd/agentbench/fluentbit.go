package main

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// fluentBitConfig runs Fluent Bit as its docs and chart run it as a node agent (and as
// e2e/node's steady-state benchmark does): tail with the docker and cri multiline parsers
// (joining the runtime's partial lines), an offset DB, Mem_Buf_Limit 5MB, long lines skipped,
// new files looked for every 10 s, the files read from the beginning (a catch-up); out to the
// gateway over OTLP/HTTP. The pods workload's lines are not JSON, so there is no parser filter.
// Mem_Buf_Limit with Flush 1 paces delivery by design: compare CPU per MB, not wall time.
const fluentBitConfig = `[SERVICE]
    Flush        1
    Daemon       Off
    Log_Level    info
    HTTP_Server  Off

[INPUT]
    Name              tail
    Path              %[1]s/*/*/*.log
    Tag               kube.*
    multiline.parser  docker, cri
    DB                %[2]s
    Mem_Buf_Limit     5MB
    Skip_Long_Lines   On
    Refresh_Interval  10
    Read_from_Head    On

[OUTPUT]
    Name      opentelemetry
    Match     kube.*
    Host      %[3]s
    Port      %[4]s
    Logs_uri  /v1/logs
    Tls       Off
`

// fluentBitSkip says why Fluent Bit does not run on wl, or "" when it does: its config is for
// kubelet's tree of CRI lines with one record a line (pods).
func fluentBitSkip(wl workload) string {
	if wl.name != "pods" {
		return "Fluent Bit runs on the pods workload only"
	}
	return ""
}

// fluentBitFiles writes Fluent Bit's config for one run on wl, its offset DB in state, and
// returns its path.
func fluentBitFiles(dir string, wl workload, gatewayHTTP, state string) ([]string, error) {
	host, port, err := net.SplitHostPort(gatewayHTTP)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "fluent-bit.conf")
	text := fmt.Sprintf(fluentBitConfig, wl.root, filepath.Join(state, "tail.db"), host, port)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, err
	}
	return []string{path}, nil
}
