package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"

	"github.com/mergelog/otelcol-mergelog/bench/internal/rig"
	"github.com/mergelog/otelcol-mergelog/bench/internal/stats"
)

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
		fmt.Fprintf(tw, "%s\t%s\t%.1f\t%s\t%d\t%s\t%s\t\n", r.workload, r.receiver, stats.Median(r.mbps),
			runsList(r.mbps), r.records, mib(r.rss), mib(int64(r.heap)))
	}
	_ = tw.Flush() // w is stdout: nothing to do about a failed write
	fmt.Fprintln(w)
	for _, name := range order {
		ours, ok := byWorkload[name][rig.Mergelog.Name]
		if !ok || len(ours.mbps) == 0 {
			continue
		}
		m := stats.Median(ours.mbps)
		var verdicts []string
		if fl, ok := byWorkload[name][rig.FileLog.Name]; ok && len(fl.mbps) > 0 {
			ratio := m / stats.Median(fl.mbps)
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
		_ = tw.Flush()
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func runsList(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.0f", x)
	}
	return strings.Join(parts, " ")
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
