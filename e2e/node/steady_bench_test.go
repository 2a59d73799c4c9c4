package node

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestSteady is the steady-state benchmark (NODE_STEADY=1; `make bench-steady`): the workload
// of VictoriaMetrics' log-collectors-benchmark — 10 pods writing its generator's JSON lines,
// 10 000 lines/s in all, through containerd's CRI loggers, kubelet rotating at 10Mi — read by
// each agent in turn, one run each on the same lines: ours, the helm preset, Fluent Bit. It
// reports each one's average cores, peak and average RSS, peak RssAnon and lines lost, and
// fails only if ours loses a line. NODE_STEADY_RATE and NODE_STEADY_DURATION change the
// load; NODE_STEADY_RAMP=1 doubles the rate from NODE_STEADY_RATE until each agent loses or
// falls behind, and reports the highest rate each sustained. NODE_STEADY_AGENTS (names, comma
// separated: mergelog, file_log, fluent-bit) runs only those.
func TestSteady(t *testing.T) {
	if os.Getenv("NODE_STEADY") == "" {
		t.Skip("NODE_STEADY is not set: `make bench-steady` runs this")
	}
	if os.Getenv("OTELCOL_BIN") == "" {
		t.Skip(skipNoCollector)
	}
	ramp := os.Getenv("NODE_STEADY_RAMP") != ""
	load := steadyLoad{rate: 10000, pods: 10, duration: time.Minute}
	if ramp {
		load.duration = 30 * time.Second
	}
	if text := os.Getenv("NODE_STEADY_RATE"); text != "" {
		if _, err := fmt.Sscan(text, &load.rate); err != nil || load.rate < load.pods {
			t.Fatalf("NODE_STEADY_RATE=%q: %v", text, err)
		}
	}
	if text := os.Getenv("NODE_STEADY_DURATION"); text != "" {
		d, err := time.ParseDuration(text)
		if err != nil || d < time.Second {
			t.Fatalf("NODE_STEADY_DURATION=%q: %v", text, err)
		}
		load.duration = d.Truncate(time.Second)
	}
	load.rate -= load.rate % load.pods
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	if ramp {
		rampSteady(t, load, seed)
		return
	}
	var results []steadyResult
	for _, sa := range steadyAgents() {
		if !steadySelected(sa.name) {
			continue
		}
		res := steadyRun(t, sa, load, seed)
		results = append(results, res)
		if res.tally.missing > 0 || res.incomplete {
			t.Logf("%s lost %d of %d lines; its log: %s", sa.name, res.tally.missing, res.tally.written, res.logPath)
		}
		if sa.name == "mergelog" && (res.tally.missing > 0 || res.tally.unnumbered > 0) {
			t.Errorf("%s: %d of %d lines lost, %d records without a sequence_id; log %s",
				sa.name, res.tally.missing, res.tally.written, res.tally.unnumbered, res.logPath)
		}
	}
	steadyReport(t, steadyTable(results))
}

// steadyRun runs sa once on load in a new directory.
func steadyRun(t *testing.T, sa steadyAgent, load steadyLoad, seed uint64) steadyResult {
	t.Helper()
	dir, err := runDir(t.TempDir(), "steady-"+sa.name)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%s at %d lines/s for %s in %s", sa.name, load.rate, load.duration, dir)
	res, err := runSteady(context.Background(), dir, sa, load, seed)
	if err != nil {
		t.Fatalf("%s: %v", sa.name, err)
	}
	return res
}

// rampLag is how long after the writing an agent may still be delivering and count as having
// kept up: a few of the agents' flush intervals, far below a backlog of many seconds.
const rampLag = 5 * time.Second

// rampSteady doubles each agent's rate from load.rate until it loses a line or falls behind,
// or the writers cannot write the rate, and reports the highest rate it sustained.
func rampSteady(t *testing.T, load steadyLoad, seed uint64) {
	t.Helper()
	var b strings.Builder
	b.WriteString("| agent | highest rate kept up, nothing lost (lines/s) | its cores | its CPU s per M lines | its peak RSS MiB | the next rate | why it stopped |\n|---|---|---|---|---|---|---|\n")
	for _, sa := range steadyAgents() {
		if !steadySelected(sa.name) {
			continue
		}
		var best steadyResult
		l := load
		for {
			res := steadyRun(t, sa, l, seed)
			why := rampVerdict(res)
			t.Logf("%s at %d lines/s: cores %.3f, catch-up %.1f s, %d lost: %s", sa.name, l.rate, res.cores,
				res.catchUp.Seconds(), res.tally.missing, why)
			if why != "" {
				bestRate := "none"
				if best.agent != "" {
					bestRate = fmt.Sprint(best.load.rate)
				}
				fmt.Fprintf(&b, "| %s | %s | %.3f | %.2f | %.0f | %d | %s |\n", sa.name, bestRate, best.cores, cpuPerMillion(best),
					mib(best.peak), l.rate, why)
				break
			}
			best = res
			l.rate *= 2
		}
	}
	steadyReport(t, b.String())
}

// rampVerdict says why a run of the ramp does not count as sustained, or "" if it does.
func rampVerdict(res steadyResult) string {
	switch {
	case res.rate < 0.95*float64(res.load.rate) || res.late > 0:
		return fmt.Sprintf("the writers wrote %.0f lines/s (%d pod-seconds late): the machine's limit, not the agent's", res.rate, res.late)
	case res.tally.missing > 0 || res.incomplete:
		return fmt.Sprintf("lost %d of %d lines (nothing more arrived in %s)", res.tally.missing, res.tally.written, steadyQuiet)
	case res.catchUp > rampLag:
		return fmt.Sprintf("fell behind: the last line arrived %.1f s after the writing", res.catchUp.Seconds())
	}
	return ""
}

// steadySelected reports whether agent name is to run: NODE_STEADY_AGENTS names it, or is unset.
func steadySelected(name string) bool {
	list := os.Getenv("NODE_STEADY_AGENTS")
	return list == "" || slices.Contains(strings.Split(list, ","), name)
}
