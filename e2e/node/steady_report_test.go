package node

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

func mib(n int64) float64 { return float64(n) / (1 << 20) }

// cpuPerMillion is a run's CPU seconds per million lines written, its catch-up included.
func cpuPerMillion(r steadyResult) float64 {
	if r.tally.written == 0 {
		return 0
	}
	return r.cpuAll.Seconds() / (float64(r.tally.written) / 1e6)
}

// steadyTable is the benchmark's table: one row per agent, then the workload.
func steadyTable(results []steadyResult) string {
	var b strings.Builder
	b.WriteString("| agent | cores | CPU s per M lines | peak RSS MiB | avg RSS MiB | RssAnon peak MiB | lines lost | duplicated | catch-up s |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		lost := fmt.Sprint(r.tally.missing)
		if r.incomplete {
			lost += " (gave up waiting)"
		}
		fmt.Fprintf(&b, "| %s | %.3f | %.2f | %.1f | %.1f | %.1f | %s of %d | %d | %.1f |\n",
			steadyAbout(r.agent), r.cores, cpuPerMillion(r), mib(r.peak), mib(r.avgRSS), mib(r.anonPeak), lost, r.tally.written,
			r.tally.duplicated, r.catchUp.Seconds())
	}
	if len(results) > 0 {
		l := results[0].load
		fmt.Fprintf(&b, "\n%d pods at %d lines/s in all for %s, kubelet rotating at %s/%d files/%s; each agent's run:\n",
			l.pods, l.rate, l.duration, steadyMaxSize, steadyMaxFiles, steadyMonitor)
	}
	for _, r := range results {
		line := float64(r.bytes) / float64(max(r.tally.written, 1))
		fmt.Fprintf(&b, "- %s: %.0f lines/s written (%.0f B a line, %.2f MB/s), %d rotations, %d pod-seconds written late, %d records without a sequence_id\n",
			r.agent, r.rate, line, r.rate*line/1e6, r.rotations, r.late, r.tally.unnumbered)
	}
	b.WriteString("\n")
	return b.String()
}

// steadyAbout is an agent's description in the table.
func steadyAbout(name string) string {
	for _, sa := range steadyAgents() {
		if sa.name == name {
			return sa.about
		}
	}
	return name
}

// steadyReport logs the table and, if NODE_REPORT names a file, writes it there (the Makefile
// prints it: go test shows nothing of a test that passes).
func steadyReport(t *testing.T, table string) {
	t.Helper()
	t.Log("\n" + table)
	if path := os.Getenv("NODE_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
}
