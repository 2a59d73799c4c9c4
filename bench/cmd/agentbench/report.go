package main

import (
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/mergelog/otelcol-mergelog/bench/internal/stats"
)

// row is the medians of one variant's runs on one workload.
type row struct {
	workload, variant string
	build             string // the binary's (build.name)
	about             string // the workload's
	runs, failed      int
	cpu, wall         float64 // seconds
	busy              float64 // CPU ÷ wall during the catch-up
	mbPerCPU          float64
	peakRSS           float64 // MiB
	wireMB            float64
	records           int
	duplicates        int // the most in one run
}

func (r result) line(wl workload) string {
	if r.err != nil {
		return "FAILED: " + r.err.Error()
	}
	return fmt.Sprintf("%.1f CPU-s, %.1f MB/cpu-s, wall %.1f s, CPU/wall %.2f, peak RSS %.0f MiB, wire %.1f MB, %d records (%d duplicates)",
		r.cpu.Seconds(), float64(wl.bytes)/1e6/r.cpu.Seconds(), r.wall.Seconds(), r.busy,
		float64(r.peakRSS)/(1<<20), float64(r.wire)/1e6, r.unique, r.duplicates)
}

func summarize(wl workload, p plan, rs []result) row {
	out := row{workload: wl.name, about: wl.about, variant: p.v.name, build: p.build.name, runs: len(rs), records: wl.records}
	var cpu, wall, busy, rss, wire []float64
	for _, r := range rs {
		if r.err != nil {
			out.failed++
			continue
		}
		cpu = append(cpu, r.cpu.Seconds())
		wall = append(wall, r.wall.Seconds())
		busy = append(busy, r.busy)
		rss = append(rss, float64(r.peakRSS)/(1<<20))
		wire = append(wire, float64(r.wire)/1e6)
		out.duplicates = max(out.duplicates, r.duplicates)
	}
	out.cpu, out.wall, out.busy, out.peakRSS, out.wireMB = stats.Median(cpu), stats.Median(wall), stats.Median(busy), stats.Median(rss), stats.Median(wire)
	if out.cpu > 0 {
		out.mbPerCPU = float64(wl.bytes) / 1e6 / out.cpu
	}
	return out
}

// printTable prints a Markdown table per workload, with each variant's MB per CPU-second set
// against the anchors of the same run: the preset (a), its receiver in the shipped pipeline
// (b) and Fluent Bit: as its chart runs it, or with filesystem buffers where none of its runs
// delivered every record (a run that lost records gives no rate).
func printTable(w io.Writer, o options, rows []row) {
	fmt.Fprintf(w, "\nagentbench: %d MB per workload, %d files, GOMAXPROCS=%s GOMEMLIMIT=%s, medians of %d runs (%s)\n",
		o.sizeMB, o.pods, o.limits.gomaxprocs, o.limits.gomemlimit, o.runs, time.Now().UTC().Format(time.RFC3339))
	for _, wl := range uniqueWorkloads(rows) {
		anchor := map[string]float64{}
		title := wl
		for _, r := range rows {
			if r.workload == wl {
				anchor[r.variant] = r.mbPerCPU // of the runs that delivered every record
				if r.about != "" {
					title = wl + ": " + r.about + ", the same operators in both receivers"
				}
			}
		}
		fb := "fluent-bit"
		if anchor[fb] == 0 && anchor["fluent-bit-fs"] > 0 {
			fb = "fluent-bit-fs"
		}
		fmt.Fprintf(w, "\n%s\n\n", title)
		fmt.Fprintf(w, "| variant | build | agent CPU-s | MB/cpu-s | × (a) preset | × (b) preset-rx | × %s | peak RSS MiB | wall s | CPU ÷ wall in catch-up | wire MB | records | max dup | failed |\n", fb)
		fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
		for _, r := range rows {
			if r.workload != wl {
				continue
			}
			fmt.Fprintf(w, "| %s | %s | %.1f | %.1f | %s | %s | %s | %.0f | %.1f | %.2f | %.1f | %d | %d | %d/%d |\n",
				r.variant, r.build, r.cpu, r.mbPerCPU, ratio(r.mbPerCPU, anchor["preset"]), ratio(r.mbPerCPU, anchor["preset-rx"]), ratio(r.mbPerCPU, anchor[fb]),
				r.peakRSS, r.wall, r.busy, r.wireMB, r.records, r.duplicates, r.failed, r.runs)
		}
	}
}

func ratio(v, anchor float64) string {
	if v == 0 || anchor == 0 {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v/anchor)
}

func uniqueWorkloads(rows []row) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r.workload) {
			out = append(out, r.workload)
		}
	}
	return out
}
