package main

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The lines under bench-steady's table: the workload, then each agent's run with the bytes of
// a line written (its newline included).
var (
	steadyWorkload = regexp.MustCompile(`(?m)^\d+ pods at .*?(; each agent's run:)?$`)
	steadyLine     = regexp.MustCompile(`(?m)^- (\S+): .*\(([0-9.]+) B a line`)
)

// steadyCharts draws bench-steady's table (e2e/node steadyTable): each agent's CPU per GB of
// lines written (per million lines if the report does not give the bytes of a line) and its
// peak RSS.
func steadyCharts(text, path string) ([]figure, error) {
	t, err := steadyTable(text)
	if err != nil {
		return nil, err
	}
	lines := steadyLine.FindAllStringSubmatch(text, -1)
	perGB := len(lines) == len(t.rows)
	cpu := chart{title: "At a steady rate: CPU per GB of log lines", unit: "agent CPU-seconds per GB the pods wrote, lower is better"}
	if !perGB {
		cpu = chart{title: "At a steady rate: CPU per million lines", unit: "agent CPU-seconds per million lines the pods wrote, lower is better"}
	}
	rss := chart{title: "At a steady rate: peak RSS", unit: "MiB (VmHWM), lower is better"}
	var cpuBars, rssBars []bar
	for i, row := range t.rows {
		label := t.cell(row, "agent")
		v, err := values(t, row, "CPU s per M lines", "cores", "peak RSS MiB")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		cpuSecs, cores, peak := v[0], v[1], v[2] // CPU-seconds per million lines, then per GB
		if perGB {
			lineBytes, err := strconv.ParseFloat(lines[i][2], 64)
			if err != nil || lineBytes == 0 {
				return nil, fmt.Errorf("%s: %q bytes a line", lines[i][1], lines[i][2])
			}
			cpuSecs *= 1000 / lineBytes // 1 GB is 1000/lineBytes million lines
		}
		ours := strings.HasPrefix(label, "ours")
		cpuBars = append(cpuBars, bar{label: label, value: cpuSecs, text: fmt.Sprintf("%s (%.3f cores)", shown(cpuSecs), cores), ours: ours})
		rssBars = append(rssBars, bar{label: label, value: peak, text: t.cell(row, "peak RSS MiB"), ours: ours})
	}
	cpu.groups, rss.groups = []group{{bars: cpuBars}}, []group{{bars: rssBars}}
	var caption []string
	if w := steadyWorkload.FindStringSubmatch(text); w != nil {
		caption = append(caption, strings.TrimSuffix(w[0], w[1])+".")
	}
	caption = append(caption, sourceLine(path, text))
	cpu.caption, rss.caption = caption, caption
	return []figure{{"steady-cpu.svg", cpu}, {"steady-rss.svg", rss}}, nil
}

// steadyTable is the report's table of agents; a ramp's table (NODE_STEADY_RAMP=1) is not it.
func steadyTable(text string) (table, error) {
	for _, t := range tables(text) {
		if t.has("agent", "cores", "CPU s per M lines", "peak RSS MiB") && len(t.rows) > 0 {
			return t, nil
		}
		if slices.ContainsFunc(t.header, func(h string) bool { return strings.HasPrefix(h, "highest rate") }) {
			return table{}, errors.New("a ramp's report (NODE_STEADY_RAMP=1): draw the steady table, from make bench-steady without the ramp")
		}
	}
	return table{}, errors.New("no table with the columns agent, cores, CPU s per M lines and peak RSS MiB")
}

// values are the numbers of row's named columns.
func values(t table, row []string, names ...string) ([]float64, error) {
	out := make([]float64, len(names))
	for i, n := range names {
		v, err := number(t.cell(row, n))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out[i] = v
	}
	return out, nil
}
