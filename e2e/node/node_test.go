// Package node runs the node agent on the code a Kubernetes node runs: containerd v1.7's CRI
// loggers write the containers' logs under a pods directory, as containerd's CRI plugin does,
// and kubelet v1.37's ContainerLogManager rotates them; the agent's build (OTELCOL_AGENT_BIN, as
// the DaemonSet's image holds it) reads them with the shipped agent config
// (deploy/kubernetes/agent-config.yaml) under the pod's limits, beside the helm chart's file_log
// preset on the full distribution (OTELCOL_BIN), each sending to a gateway that checks every line
// arrives once and whole. A module of its own, so that k8s.io/kubernetes and containerd stay out
// of the distribution's go.mod. `make node` (in `make test`) runs TestNode; `make soak` runs
// TestNodeSoak. Both need OTELCOL_BIN; without OTELCOL_AGENT_BIN the shipped config runs on it.
package node

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// skipNoCollector is the skip message when OTELCOL_BIN is not set.
const skipNoCollector = "OTELCOL_BIN is not set: run `make node` or `make soak`, which build the collector and set it"

// peakLimit is the shipped agent's peak RSS the issue asks for under the pod's limits.
const peakLimit = 128 << 20

// The two rotation settings: fast (kubelet's smallest practical size, checked every second)
// and kubelet's defaults.
var (
	fastRotation   = setting{name: "fast 1Mi/5/1s", maxSize: "1Mi", maxFiles: 5, monitor: time.Second}
	kubeletDefault = setting{name: "default 10Mi/5/10s", maxSize: "10Mi", maxFiles: 5, monitor: 10 * time.Second}
)

// TestNode is the short run of `make test`: fast rotation with one SIGKILL of each agent (as
// kubelet rotates), about 15 s of writing.
func TestNode(t *testing.T) {
	s := fastRotation
	s.containers, s.duration, s.kills = 8, 15*time.Second, 1
	s.load = load{rate: 100, longEvery: 10, longMax: 64 << 10, stderrEvery: 7}
	s = fromEnv(t, s)
	checkRun(t, s, 1)
}

// TestNodeSoak runs each of five settings (both rotations, with and without kills; kubelet's
// defaults at 10 000 lines/s with kills) three times, longer, and writes the table
// (NODE_SOAK=1; `make soak`).
func TestNodeSoak(t *testing.T) {
	if os.Getenv("NODE_SOAK") == "" {
		t.Skip("NODE_SOAK is not set: `make soak` runs this")
	}
	fast := fastRotation
	fast.containers, fast.duration = 10, 60*time.Second
	fast.load = load{rate: 200, longEvery: 10, longMax: 96 << 10, stderrEvery: 7}
	def := kubeletDefault
	def.containers, def.duration = 10, 90*time.Second
	def.load = load{rate: 500, longEvery: 50, longMax: 64 << 10, stderrEvery: 7}
	// heavy: kubelet's defaults at 10 000 lines/s, 1 in 25 lines up to 95 KiB, killed 3 times:
	// where a line split across a rotation met a kill (TestSplitLineAcrossRotationCrash).
	heavy := kubeletDefault
	heavy.name = "heavy 10Mi/5/10s"
	heavy.containers, heavy.duration = 10, 60*time.Second
	heavy.load = load{rate: 1000, longEvery: 25, longMax: 95 << 10, stderrEvery: 7}
	var settings []setting
	for _, base := range []setting{fast, def} {
		for _, kills := range []int{0, 3} {
			s := base
			s.kills = kills
			settings = append(settings, s)
		}
	}
	heavy.kills = 3
	settings = append(settings, heavy)
	for _, s := range settings {
		s = fromEnv(t, s)
		for run := 1; run <= 3; run++ {
			t.Run(fmt.Sprintf("%s kills=%d run=%d", s.name, s.kills, run), func(t *testing.T) { checkRun(t, s, run) })
		}
	}
}

// checkRun runs s, reports it, and checks the shipped agent's part: every line arrived, whole,
// no duplicates but those a kill allows, peak RSS within the bound.
func checkRun(t *testing.T, s setting, run int) {
	t.Helper()
	if os.Getenv("OTELCOL_BIN") == "" {
		t.Skip(skipNoCollector)
	}
	bound, err := replayBound()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := runDir(t.TempDir(), "node")
	if err != nil {
		t.Fatal(err)
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("%s run %d in %s, seed %d", s.name, run, dir, seed)
	stats, outs, err := runNode(context.Background(), dir, s, seed)
	if err != nil {
		t.Fatal(err)
	}
	report(t, s, run, stats, outs)
	ours := outs[0]
	tl := ours.tally
	if tl.missing > 0 {
		t.Errorf("%s: %d of %d lines missing, in runs %s; agent log %s", ours.agent, tl.missing, tl.written, runsText(tl.missingRuns, 20), ours.logPath)
	}
	if tl.split > 0 || tl.malformed > 0 {
		t.Errorf("%s: %d lines arrived split only (%s), %d records no whole line", ours.agent, tl.split, runsText(tl.splitRuns, 20), tl.malformed)
	}
	if allowed := ours.kills * bound; tl.duplicated > allowed {
		t.Errorf("%s: %d lines duplicated, in runs %s; %d kills allow %d (max_in_flight × max_records each)",
			ours.agent, tl.duplicated, runsText(tl.duplicatedRuns, 20), ours.kills, allowed)
	}
	if ours.peak > peakLimit {
		t.Errorf("%s: peak RSS %d MiB, over %d MiB", ours.agent, ours.peak>>20, peakLimit>>20)
	}
	if t.Failed() {
		t.Logf("%s's receiver metrics at the end:\n%s", ours.agent, ours.metrics)
	}
}

// fromEnv lets a diagnosis run change the load: NODE_CONTAINERS, NODE_RATE, NODE_LONG_EVERY,
// NODE_LONG_MAX (bytes), NODE_DURATION and NODE_KILLS; NODE_ROTATION=default runs kubelet's
// default rotation.
func fromEnv(t *testing.T, s setting) setting {
	t.Helper()
	for key, v := range map[string]*int{"NODE_CONTAINERS": &s.containers, "NODE_RATE": &s.load.rate, "NODE_LONG_EVERY": &s.load.longEvery, "NODE_LONG_MAX": &s.load.longMax, "NODE_KILLS": &s.kills} {
		if text := os.Getenv(key); text != "" {
			if _, err := fmt.Sscan(text, v); err != nil {
				t.Fatalf("%s=%q: %v", key, text, err)
			}
		}
	}
	if os.Getenv("NODE_ROTATION") == "default" {
		s.name, s.maxSize, s.maxFiles, s.monitor = kubeletDefault.name, kubeletDefault.maxSize, kubeletDefault.maxFiles, kubeletDefault.monitor
	}
	if text := os.Getenv("NODE_DURATION"); text != "" {
		d, err := time.ParseDuration(text)
		if err != nil {
			t.Fatalf("NODE_DURATION=%q: %v", text, err)
		}
		s.duration = d
	}
	return s
}
