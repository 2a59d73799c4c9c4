// Command receiverbench runs contrib's file_log receiver and the mergelog receiver over the
// same generated files, in one process, into counting consumers, and prints MB per CPU-second
// (user+sys from getrusage: wall time is unreliable on a shared machine), their ratio, peak RSS
// and the Go heap's high-water mark.
//
//	cd bench && go run ./cmd/receiverbench -repo .. -size 200 -runs 3
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
)

type options struct {
	repo      string
	data      string
	sizeMB    int
	bigMB     int
	runs      int
	workloads string
	profiles  string
	timeout   time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.repo, "repo", "..", "root of the main module (genlogs is built from there)")
	flag.StringVar(&o.data, "data", "", "directory for the generated logs, kept and reused across runs (default: a temporary one, removed)")
	flag.IntVar(&o.sizeMB, "size", 200, "MB (10^6 bytes) of input per workload")
	flag.IntVar(&o.bigMB, "big", 1024, "MB of the single mergelog runs that show the heap stays flat (0: skip)")
	flag.IntVar(&o.runs, "runs", 3, "runs per receiver and workload, alternating; medians are reported")
	flag.StringVar(&o.workloads, "workloads", "logtail,clf,merge,pods", "comma-separated subset of logtail, clf, merge, pods")
	flag.StringVar(&o.profiles, "cpuprofile", "", "directory for a CPU profile of each receiver's first run per workload")
	flag.DurationVar(&o.timeout, "timeout", 10*time.Minute, "limit for one run")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "receiverbench:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.runs < 1 || o.sizeMB < 1 {
		return errors.New("-runs and -size must be at least 1")
	}
	if o.data == "" {
		dir, err := os.MkdirTemp("", "receiverbench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		o.data = dir
	} else if err := os.MkdirAll(o.data, 0o755); err != nil {
		return err
	}
	if o.profiles != "" {
		if err := os.MkdirAll(o.profiles, 0o755); err != nil {
			return err
		}
	}
	gen, err := newGenerator(o.repo, o.data)
	if err != nil {
		return err
	}
	size := int64(o.sizeMB) * 1e6
	cases, err := benchCases(gen, size, strings.Split(o.workloads, ","))
	if err != nil {
		return err
	}
	var rows []row
	for _, c := range cases {
		rows = append(rows, c.run(o)...)
	}
	var big []bigRun
	if o.bigMB > 0 {
		if big, err = heapRuns(o, gen, size, int64(o.bigMB)*1e6); err != nil {
			return err
		}
	}
	printTable(os.Stdout, o, rows, big)
	failed := 0
	for _, r := range rows {
		failed += len(r.failures)
	}
	for _, b := range big {
		if b.small.err != nil || b.big.err != nil {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d runs failed (see above)", failed)
	}
	return nil
}

// benchCase is one workload, run by each of its receivers.
type benchCase struct {
	name      string
	input     input
	keys      map[string]any
	fileLog   map[string]any // file_log's keys where they differ from keys
	receivers []rig.Receiver
	target    target
}

// target is what the issue asks of mergelog on a workload (zero: no such target).
type target struct {
	minRatio float64 // over file_log, in the same run
	minMBps  float64
}

func benchCases(gen *generator, size int64, workloads []string) ([]benchCase, error) {
	both := []rig.Receiver{rig.FileLog, rig.Mergelog}
	var cases []benchCase
	for _, w := range workloads {
		switch w {
		case "logtail":
			in, err := gen.logtail(size)
			if err != nil {
				return nil, err
			}
			for _, pattern := range []string{"cnt.*", "^cnt"} {
				cases = append(cases, benchCase{name: "logtail " + pattern, input: in, keys: multilineKeys(in.glob, pattern),
					receivers: both, target: target{minRatio: 15, minMBps: 633}})
			}
		case "clf":
			in, err := gen.clf(size)
			if err != nil {
				return nil, err
			}
			cases = append(cases, benchCase{name: "plain lines (CLF)", input: in, keys: baseKeys(in.glob), receivers: both,
				target: target{minRatio: 3}})
		case "merge":
			in, err := gen.merge(size)
			if err != nil {
				return nil, err
			}
			// file_log cannot merge: mergelog alone.
			cases = append(cases, benchCase{name: "7-file CLF merge", input: in, keys: mergeKeys(in.glob),
				receivers: []rig.Receiver{rig.Mergelog}, target: target{minMBps: 300}})
		case "pods":
			in, err := gen.pods(size)
			if err != nil {
				return nil, err
			}
			// The same job both ways: strip the CRI prefix, join split lines, take the pod's
			// identity from the path. file_log does it with its container operator.
			ours, theirs := baseKeys(in.glob), baseKeys(in.glob)
			ours["format"] = "container"
			theirs["include_file_path"] = true
			theirs["operators"] = []any{map[string]any{"type": "container", "format": "containerd"}}
			cases = append(cases, benchCase{name: "pod logs (CRI)", input: in, keys: ours, fileLog: theirs,
				receivers: both})
		default:
			return nil, fmt.Errorf("-workloads: unknown workload %q", w)
		}
	}
	return cases, nil
}

func baseKeys(glob string) map[string]any {
	return map[string]any{"include": []any{glob}, "start_at": "beginning"}
}

func multilineKeys(glob, pattern string) map[string]any {
	k := baseKeys(glob)
	k["multiline"] = map[string]any{"line_start_pattern": pattern}
	return k
}

func mergeKeys(glob string) map[string]any {
	k := baseKeys(glob)
	k["timestamp"] = map[string]any{"format": "clf"}
	k["merge"] = map[string]any{"enabled": true}
	return k
}

// row is one receiver's results on one workload.
type row struct {
	workload string
	receiver string
	target   target
	mbps     []float64 // per successful run
	records  int64
	bytes    int64 // body bytes
	rss      int64 // peak resident set of the runs, bytes
	heap     uint64
	failures []string
}

// run measures each receiver o.runs times, alternating which goes first, so that drifting
// load on the machine affects both alike. A failed run is reported and left out.
func (c benchCase) run(o options) []row {
	rows := make([]row, len(c.receivers))
	for i, r := range c.receivers {
		rows[i] = row{workload: c.name, receiver: r.Name, target: c.target}
	}
	for n := range o.runs {
		for k := range c.receivers {
			i := k
			if n%2 == 1 {
				i = len(c.receivers) - 1 - k
			}
			rcv, r := c.receivers[i], &rows[i]
			var profile string
			if o.profiles != "" && n == 0 {
				profile = filepath.Join(o.profiles, fileName(c.name)+"-"+rcv.Name+".pprof")
			}
			keys := c.keys
			if rcv == rig.FileLog && c.fileLog != nil {
				keys = c.fileLog
			}
			m := measure(rcv, keys, c.input, o.timeout, profile)
			if m.err != nil {
				fmt.Fprintf(os.Stderr, "%-20s %-9s run %d: FAILED: %v\n", c.name, rcv.Name, n+1, m.err)
				r.failures = append(r.failures, m.err.Error())
				continue
			}
			fmt.Fprintf(os.Stderr, "%-20s %-9s run %d: %7.1f MB/cpu-s (%d records, cpu %s)\n",
				c.name, rcv.Name, n+1, m.mbps(c.input.bytes), m.records, m.cpu.Round(time.Millisecond))
			r.mbps = append(r.mbps, m.mbps(c.input.bytes))
			r.records, r.bytes = m.records, m.bytes
			r.rss, r.heap = max(r.rss, m.rss), max(r.heap, m.heap)
		}
	}
	// Both delivered the same number of entries (measure checks it); their text must have
	// the same length too.
	for i := 1; i < len(rows); i++ {
		if a, b := rows[0], rows[i]; len(a.mbps) > 0 && len(b.mbps) > 0 && a.bytes != b.bytes {
			rows[i].failures = append(rows[i].failures, fmt.Sprintf("body bytes %d, %s's %d", b.bytes, a.receiver, a.bytes))
		}
	}
	return rows
}

// fileName turns a workload name into a file name part.
func fileName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, strings.ToLower(s))
}

// bigRun compares one mergelog run on a workload at the default size with one on a big input.
type bigRun struct {
	workload           string
	smallSize, bigSize int64
	small, big         measurement
}

// heapRuns runs mergelog over Logtail and plain lines at both sizes, to show that its heap
// follows buffers and batches, not the input.
func heapRuns(o options, gen *generator, small, big int64) ([]bigRun, error) {
	var out []bigRun
	for _, w := range []struct {
		name string
		gen  func(int64) (input, error)
		keys func(string) map[string]any
	}{
		{"logtail ^cnt", gen.logtail, func(g string) map[string]any { return multilineKeys(g, "^cnt") }},
		{"plain lines (CLF)", gen.clf, baseKeys},
	} {
		b := bigRun{workload: w.name, smallSize: small, bigSize: big}
		for _, s := range []struct {
			size int64
			dst  *measurement
		}{{small, &b.small}, {big, &b.big}} {
			in, err := w.gen(s.size)
			if err != nil {
				return nil, err
			}
			*s.dst = measure(rig.Mergelog, w.keys(in.glob), in, o.timeout, "")
			if s.dst.err != nil {
				fmt.Fprintf(os.Stderr, "%-20s mergelog  %d MB: FAILED: %v\n", w.name, s.size/1e6, s.dst.err)
			}
		}
		out = append(out, b)
	}
	return out, nil
}

func printTable(w io.Writer, o options, rows []row, big []bigRun) {
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(w, "\nmergelog receiver vs contrib file_log v0.165.1: %d MB per workload, median of %d runs, %s, GOMAXPROCS %d, load %s\n",
		o.sizeMB, o.runs, runtime.Version(), runtime.GOMAXPROCS(0), strings.Join(strings.Fields(string(load))[:3], " "))
	fmt.Fprintln(w, "MB = 10^6 bytes of input file; CPU = user+sys of the whole process; peak RSS = VmHWM (ru_maxrss), reset before each run")
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\treceiver\tMB/cpu-s\tper run\trecords\tpeak RSS\theap high-water\t")
	byWorkload := map[string]map[string]row{}
	var order []string
	for _, r := range rows {
		if byWorkload[r.workload] == nil {
			byWorkload[r.workload] = map[string]row{}
			order = append(order, r.workload)
		}
		byWorkload[r.workload][r.receiver] = r
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%d\t%s\t%s\t\n", r.workload, r.receiver, median(r.mbps),
			runsList(r.mbps), r.records, mib(r.rss), mib(int64(r.heap)))
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, name := range order {
		ours, ok := byWorkload[name][rig.Mergelog.Name]
		if !ok || len(ours.mbps) == 0 {
			continue
		}
		m := median(ours.mbps)
		var verdicts []string
		if fl, ok := byWorkload[name][rig.FileLog.Name]; ok && len(fl.mbps) > 0 {
			ratio := m / median(fl.mbps)
			v := fmt.Sprintf("ours/file_log %.1fx", ratio)
			if ours.target.minRatio > 0 {
				v += fmt.Sprintf(" (target ≥ %gx: %s)", ours.target.minRatio, verdict(ratio >= ours.target.minRatio))
			}
			verdicts = append(verdicts, v)
		}
		if ours.target.minMBps > 0 {
			verdicts = append(verdicts, fmt.Sprintf("%.0f MB/cpu-s (target ≥ %g: %s)", m, ours.target.minMBps, verdict(m >= ours.target.minMBps)))
		}
		fmt.Fprintf(w, "%-20s %s\n", name+":", strings.Join(verdicts, "; "))
	}
	for _, r := range rows {
		for _, f := range r.failures {
			fmt.Fprintf(w, "FAILED %s, %s: %s\n", r.workload, r.receiver, f)
		}
	}
	if len(big) > 0 {
		fmt.Fprintln(w, "\nmergelog heap by input size (one run each):")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "workload\tinput\tMB/cpu-s\tpeak RSS\theap high-water\t")
		for _, b := range big {
			for _, s := range []struct {
				size int64
				m    measurement
			}{{b.smallSize, b.small}, {b.bigSize, b.big}} {
				if s.m.err != nil {
					fmt.Fprintf(tw, "%s\t%d MB\tFAILED: %v\t\t\t\n", b.workload, s.size/1e6, s.m.err)
					continue
				}
				fmt.Fprintf(tw, "%s\t%d MB\t%.1f\t%s\t%s\t\n", b.workload, s.size/1e6, s.m.mbps(s.size), mib(s.m.rss), mib(int64(s.m.heap)))
			}
		}
		tw.Flush()
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func runsList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, " ")
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

// measurement is one receiver's run over one input.
type measurement struct {
	cpu     time.Duration
	records int64
	bytes   int64
	rss     int64
	heap    uint64
	err     error
}

func (m measurement) mbps(inputBytes int64) float64 {
	return float64(inputBytes) / 1e6 / m.cpu.Seconds()
}

// measure starts r over in, waits until all of in's entries arrived, shuts it down and
// returns the CPU it took. A profile is written when profile is not empty.
func measure(r rig.Receiver, keys map[string]any, in input, timeout time.Duration, profile string) (m measurement) {
	// Start from a collected heap, so that the previous run's garbage is not billed to this one.
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	heap := startHeapSampler(50 * time.Millisecond)
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			heap.stop()
			return measurement{err: err}
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			heap.stop()
			return measurement{err: err}
		}
		defer pprof.StopCPUProfile()
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	counter := &rig.Counter{}
	var before, after usage
	before.read()
	rcv, err := r.Start(ctx, keys, counter, rig.Host{})
	if err != nil {
		heap.stop()
		return measurement{err: err}
	}
	for counter.Records() < in.entries && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	err = rcv.Shutdown(context.Background())
	after.read()
	m = measurement{
		cpu:     after.cpu - before.cpu,
		records: counter.Records(),
		bytes:   counter.Bytes(),
		rss:     peakRSS(after.maxRSS),
		heap:    heap.stop(),
	}
	switch {
	case err != nil:
		m.err = fmt.Errorf("shutdown: %w", err)
	case m.records != in.entries:
		m.err = fmt.Errorf("delivered %d records, want %d (waited up to %s)", m.records, in.entries, timeout)
	}
	return m
}
