package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
)

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
		defer func() {
			if err := f.Close(); err != nil {
				fmt.Fprintln(os.Stderr, "receiverbench: writing the profile:", err)
			}
		}()
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
