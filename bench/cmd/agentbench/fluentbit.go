package main

import (
	"cmp"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// fluentBitShared is Fluent Bit's node-agent config, shared with e2e/node's steady-state
// benchmark, from the repository's root (where agentbench runs). The pods workload's lines are
// not JSON, so no parser filter is added. With memory buffers, Mem_Buf_Limit and Flush 1 pace
// delivery by design: compare CPU per MB, not wall time.
const fluentBitShared = "testdata/fluent-bit"

// fluentBitSkip says why Fluent Bit does not run on wl, or "" when it does: its config is for
// kubelet's tree of CRI lines with one record a line (pods).
func fluentBitSkip(wl workload) string {
	if wl.name != "pods" {
		return "Fluent Bit runs on the pods workload only"
	}
	return ""
}

// fluentBitFiles writes Fluent Bit's config for one run of v on wl, its offset DB and buffers in
// state, and returns its path.
func fluentBitFiles(dir string, v variant, wl workload, gatewayHTTP, state string) ([]string, error) {
	host, port, err := net.SplitHostPort(gatewayHTTP)
	if err != nil {
		return nil, err
	}
	shared, err := filepath.Abs(fluentBitShared)
	if err != nil {
		return nil, err
	}
	// Fluent Bit's @SET variables, then its node-agent config.
	path := filepath.Join(dir, "fluent-bit.conf")
	storage := cmp.Or(v.fbStorage, "memory")
	text := fmt.Sprintf("@SET pods=%s\n@SET db=%s\n@SET host=%s\n@SET port=%s\n@SET storage=%s\n@SET buffers=%s\n@SET parsers=%s\n@INCLUDE %s\n",
		wl.root, filepath.Join(state, "tail.db"), host, port, storage, filepath.Join(state, "buffers"),
		filepath.Join(shared, "parsers.conf"), filepath.Join(shared, "node-agent.conf"))
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		return nil, err
	}
	return []string{path}, nil
}
