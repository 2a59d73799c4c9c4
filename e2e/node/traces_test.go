package node

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/kubernetes/pkg/kubelet/logs"
)

// Traces' rotation: kubelet's log manager rotates a container's 0.log once it holds more than
// traceMaxSize, checked every traceMonitor (the fast setting's).
const (
	traceMaxSize = 1024
	traceMonitor = time.Second
)

// TestTraces writes what real runtimes printed (internal/stacktrace/testdata/<lang>: output.txt
// and records.txt, the records a reader should make of it) through containerd's CRI loggers,
// one container per language, the program's lines on one stream and the other stream's lines
// between them, while kubelet's log manager rotates the files at 1 KiB (in the middle of traces);
// and as plain files. The shipped
// agent, with its multiline.detect, must make each trace one record, equal to what the program
// printed, and every other line a record of its own.
func TestTraces(t *testing.T) {
	if agentBin(shippedConfig) == "" {
		t.Skip(skipNoCollector)
	}
	outputs, dir := startTraceRun(t, "traces")
	pods, plain := filepath.Join(dir, "pods"), filepath.Join(dir, "plain")
	if err := os.MkdirAll(plain, 0o755); err != nil {
		t.Fatal(err)
	}
	got := &recordsByKey{m: map[string][]string{}}
	g, err := startGateway(got.keep)
	if err != nil {
		t.Fatal(err)
	}
	defer g.stop()
	extra := filepath.Join(dir, "plain.yaml")
	if err := os.WriteFile(extra, []byte(plainReceiver(plain)), 0o600); err != nil {
		t.Fatal(err)
	}
	a, err := startRunAgent(dir, "mergelog", shippedConfig, pods, g.addr, extra)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = a.stop() }() // stopped below unless the test failed first

	want, forced, err := writeOutputs(dir, pods, plain, outputs)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("run in %s; kubelet rotated in the middle of a trace of %s", dir, strings.Join(forced, ", "))
	if len(forced) == 0 {
		t.Error("no rotation landed in the middle of a trace")
	}
	got.waitFor(want, 2*time.Minute)
	if err := a.stop(); err != nil {
		t.Error(err)
	}
	for _, key := range slices.Sorted(maps.Keys(want)) {
		if missing, extra := recordDiff(want[key], got.of(key)); len(missing)+len(extra) > 0 {
			t.Errorf("%s: %d records expected, %d arrived; expected, not arrived:\n%s\narrived, not expected:\n%s\nagent log %s",
				key, len(want[key]), len(got.of(key)), quoteAll(missing), quoteAll(extra), a.logPath)
		}
	}
}

// plainReceiver is the agent's config for a second receiver, on the plain files in plain, with
// the shipped receiver's detection, in the shipped pipeline.
func plainReceiver(plain string) string {
	return fmt.Sprintf(`
receivers:
  mergelog/plain:
    include: [%s/*.log]
    start_at: beginning
    include_file_name: true
    storage: file_storage
    multiline:
      detect: [all]
service:
  pipelines:
    logs:
      receivers: [mergelog, mergelog/plain]
`, plain)
}

// writeOutputs writes each program's output as a plain file and through a container of its own
// (the log manager rotating the containers' files), and returns the records expected by key
// (see recordsByKey.keep) and the languages with a rotation in the middle of a trace.
func writeOutputs(dir, pods, plain string, outputs []captured) (map[string][]string, []string, error) {
	j, err := newJournal(filepath.Join(dir, "files.log"), pods)
	if err != nil {
		return nil, nil, err
	}
	defer j.close()
	rt := newCRIRuntime()
	defer rt.removeAll()
	mgr, err := logs.NewContainerLogManager(rt, journalOS{j: j}, fmt.Sprint(traceMaxSize), 5, 1, metav1.Duration{Duration: traceMonitor})
	if err != nil {
		return nil, nil, err
	}
	mgr.Start(context.Background()) // for good: once rt has no containers, it has nothing to rotate
	for _, o := range outputs {
		if err := os.WriteFile(filepath.Join(plain, o.lang+".log"), []byte(o.text), 0o644); err != nil {
			return nil, nil, err
		}
	}
	w, err := writeCRIOutputs(j, dir, pods, outputs, rt)
	if err != nil {
		return nil, nil, err
	}
	for _, o := range outputs {
		w.records["plain/"+o.lang+".log"] = trimmed(o.records)
	}
	return w.records, w.rotated, nil
}

// trimmed is records as the agent sends them: without the whitespace at their ends, as
// file_log trims by default; those left empty are dropped.
func trimmed(records []string) []string {
	var out []string
	for _, r := range records {
		if r = strings.Trim(r, " \t\r\n"); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// writeGap is the pause after each line written: containerd's two loggers copy the streams
// apart, and the pause lets each line reach the file before the next, so that the other
// stream's lines land between a trace's lines; and kubelet's rotation, every traceMonitor, lands
// between two lines, most often inside a trace. It is well under force_flush_period: a program
// prints a trace at once.
const writeGap = 50 * time.Millisecond

// write writes o's lines to prog, and a line of its own to other after every second one, which
// it returns; rotated says kubelet reopened the file between two lines of a trace.
func (o captured) write(c *container, prog, other *os.File) (ticks []string, rotated bool, err error) {
	reopens := c.reopenCount()
	for i, line := range strings.SplitAfter(strings.TrimSuffix(o.text, "\n"), "\n") {
		if n := c.reopenCount(); n > reopens {
			rotated, reopens = rotated || o.inside[i], n
		}
		if _, err := prog.WriteString(strings.TrimSuffix(line, "\n") + "\n"); err != nil {
			return nil, false, err
		}
		time.Sleep(writeGap)
		if i%2 == 1 {
			tick := fmt.Sprintf("%s served request %d", o.lang, i)
			if _, err := other.WriteString(tick + "\n"); err != nil {
				return nil, false, err
			}
			ticks = append(ticks, tick)
		}
	}
	return ticks, rotated, nil
}

// recordsByKey is what a gateway received, by source: "pod/<pod>/<stream>" for a container's
// stream, "plain/<file name>" for a plain file.
type recordsByKey struct {
	mu sync.Mutex
	m  map[string][]string
}

func (r *recordsByKey) keep(res pcommon.Map, lr plog.LogRecord) {
	key := "unknown"
	if pod, ok := res.Get("k8s.pod.name"); ok {
		stream, _ := lr.Attributes().Get("log.iostream")
		key = "pod/" + pod.Str() + "/" + stream.Str()
	} else if name, ok := lr.Attributes().Get("log.file.name"); ok {
		key = "plain/" + name.Str()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m[key] = append(r.m[key], lr.Body().AsString())
}

func (r *recordsByKey) of(key string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.m[key])
}

// waitFor waits until every key has at least as many records as want says, and then as long
// again as that took at most 5 s (for what must not come), or for patience.
func (r *recordsByKey) waitFor(want map[string][]string, patience time.Duration) {
	start := time.Now()
	for time.Since(start) < patience {
		done := true
		for key, records := range want {
			done = done && len(r.of(key)) >= len(records)
		}
		if done {
			time.Sleep(min(time.Since(start), 5*time.Second))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// recordDiff returns the records of want that got lacks and those of got that want lacks, as
// multisets.
func recordDiff(want, got []string) (missing, extra []string) {
	left := map[string]int{}
	for _, w := range want {
		left[w]++
	}
	for _, g := range got {
		if left[g] > 0 {
			left[g]--
			continue
		}
		extra = append(extra, g)
	}
	for _, w := range want {
		if left[w] > 0 {
			left[w]--
			missing = append(missing, w)
		}
	}
	return missing, extra
}

func quoteAll(records []string) string {
	var b strings.Builder
	for _, r := range records {
		fmt.Fprintf(&b, "  %q\n", r)
	}
	return b.String()
}
