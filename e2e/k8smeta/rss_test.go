package k8smeta

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What the pod metadata costs an idle agent: VmRSS of the full build with the agent's config,
// without and with the component's (the processor holding the node's pods from the fake API
// server), over an empty tree, interleaved, medians. A measurement, not a check: it runs only
// with K8SMETA_RSS set (its value: pods on the node, e.g. 110, kubelet's default maximum):
//
//	cd e2e/k8smeta && K8SMETA_RSS=110 OTELCOL_BIN=$PWD/../../_build/otelcol-mergelog go test -run TestIdleRSS -v .
func TestIdleRSS(t *testing.T) {
	pods, err := strconv.Atoi(os.Getenv("K8SMETA_RSS"))
	if err != nil {
		t.Skip("K8SMETA_RSS (pods on the node) is not set: a measurement, not part of make test")
	}
	const runs, settle = 3, 10 * time.Second
	measure := func(withMetadata bool) int {
		root := t.TempDir()
		if err := os.MkdirAll(filepath.Join(root, "var", "log", "pods"), 0o755); err != nil {
			t.Fatal(err)
		}
		api := newFakeAPIServer(t, node, 0, clusterRoleRules(t))
		for i := range pods {
			p := checkout
			p.name, p.uid = fmt.Sprintf("checkout-7d9f8b6c5-%05d", i), fmt.Sprintf("3f1c2d4e-5a6b-4c7d-8e9f-%012d", i)
			api.addPod(p.object(time.Now()))
		}
		configs := []string{agentConfig, override(t, root, filepath.Join(root, "out.jsonl"))}
		if withMetadata {
			configs = []string{agentConfig, componentConfig(t), configs[1]}
		}
		env := []string{"K8S_NODE_NAME=" + node, "K8S_NAMESPACE=otelcol", "K8S_POD_IP=127.0.0.1",
			"KUBECONFIG=" + kubeconfig(t, root, api.srv.URL), "GOMAXPROCS=1", "GOMEMLIMIT=200MiB"}
		c := startCollector(t, env, configs...)
		time.Sleep(settle)
		select {
		case <-c.exited:
			t.Fatalf("the collector exited; output:\n%s", c.out.String())
		default:
		}
		status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		c.stop(t)
		for line := range strings.Lines(string(status)) {
			if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
				kib, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
				if err != nil {
					t.Fatal(err)
				}
				return kib
			}
		}
		t.Fatal("no VmRSS")
		return 0
	}
	var without, with []int
	for range runs {
		without = append(without, measure(false))
		with = append(with, measure(true))
	}
	median := func(v []int) float64 { slices.Sort(v); return float64(v[len(v)/2]) / 1024 }
	t.Logf("idle VmRSS, full build, %d pods on the node, median of %d: agent config %.1f MiB, with components/k8s-metadata %.1f MiB (runs: %v, %v KiB)",
		pods, runs, median(without), median(with), without, with)
}
