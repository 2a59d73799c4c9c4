package node

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// reportMu serialises appends to the report file.
var reportMu sync.Mutex

// reportHeader heads the table of runs, one row per agent per run.
const reportHeader = "| setting | run | agent | lines written (lines/s, MB) | missing | duplicated | split | malformed | kills | CPU s | peak RSS MiB | catch-up s | rotations |\n" +
	"|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"

// report writes a run's rows to the test's log and, if NODE_REPORT names a file, appends them
// to it (the Makefile prints it: go test shows nothing of a test that passes).
func report(t *testing.T, s setting, run int, stats runStats, outs []outcome) {
	t.Helper()
	var b strings.Builder
	for _, o := range outs {
		tl := o.tally
		incomplete := ""
		if o.incomplete {
			incomplete = " (gave up)"
		}
		fmt.Fprintf(&b, "| %s | %d | %s | %d (%.0f/s, %.0f) | %d | %d | %d | %d | %d | %.1f | %d | %.1f%s | %d |\n",
			s.name, run, o.agent, tl.written, stats.rate, float64(stats.bytes)/1e6, tl.missing, tl.duplicated, tl.split,
			tl.malformed, o.kills, o.cpu.Seconds(), o.peak>>20, o.catchUp.Seconds(), incomplete, stats.rotations)
	}
	t.Log("\n" + reportHeader + b.String())
	path := os.Getenv("NODE_REPORT")
	if path == "" {
		return
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	_, err := os.Stat(path)
	header := os.IsNotExist(err)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // the write's error is checked
	if header {
		b2 := reportHeader + b.String()
		b.Reset()
		b.WriteString(b2)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
}

// runsText lists up to n runs of missing lines.
func runsText(runs []lineRun, n int) string {
	var parts []string
	for i, r := range runs {
		if i == n {
			parts = append(parts, fmt.Sprintf("… (%d runs)", len(runs)))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d-%d", r.container, r.first, r.last))
	}
	return strings.Join(parts, ", ")
}
