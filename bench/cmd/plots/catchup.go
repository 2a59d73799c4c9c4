package main

import (
	"fmt"
	"regexp"
	"strings"
)

// The names agentbench gives its workloads and variants, as the charts show them.
var (
	workloadLabels = map[string]string{
		"pods":      "pod logs (CRI)",
		"plain":     "plain lines",
		"multiline": "multiline (Java traces)",
	}
	variantLabels = map[string]string{
		"shipped":       "ours: the shipped agent config",
		"preset":        "the helm chart's logsCollection preset (file_log)",
		"preset-rx":     "the preset's file_log in our pipeline",
		"fluent-bit":    "Fluent Bit",
		"fluent-bit-fs": "Fluent Bit, filesystem buffers",
	}
)

// oursVariant is the variant drawn highlighted.
const oursVariant = "shipped"

// agentbenchSetting is agentbench's line above its tables: the size, limits and runs.
var agentbenchSetting = regexp.MustCompile(`(?m)^agentbench: (.*?)(?: \([^)]*\))?$`)

// catchupCharts draws bench-agent's tables (agentbench printTable), a group of bars per
// workload, a bar per variant in the order given: CPU-seconds per GB read from the beginning
// (1000 ÷ MB/cpu-s) and peak RSS. A variant whose every run failed has no bar.
func catchupCharts(text, path string, variants []string) ([]figure, error) {
	cpu := chart{title: "Catching up: CPU per GB of logs", unit: "agent CPU-seconds per GB read from the beginning, lower is better"}
	rss := chart{title: "Catching up: peak RSS", unit: "MiB, lower is better"}
	for _, t := range tables(text) {
		if !t.has("variant", "MB/cpu-s", "peak RSS MiB") {
			continue
		}
		name, _, _ := strings.Cut(t.title, ":")
		cpuGroup, rssGroup := group{label: label(workloadLabels, name)}, group{label: label(workloadLabels, name)}
		for _, v := range variants {
			for _, row := range t.rows {
				if t.cell(row, "variant") != v {
					continue
				}
				n, err := values(t, row, "MB/cpu-s", "peak RSS MiB")
				if err != nil {
					return nil, fmt.Errorf("%s, %s: %w", name, v, err)
				}
				if n[0] == 0 {
					continue
				}
				mbPerCPU, rssMiB := t.cell(row, "MB/cpu-s"), t.cell(row, "peak RSS MiB")
				perGB, ours, about := 1000/n[0], v == oursVariant, label(variantLabels, v)
				cpuGroup.bars = append(cpuGroup.bars, bar{label: about, value: perGB, text: shown(perGB) + " (" + mbPerCPU + " MB/cpu-s)", ours: ours})
				rssGroup.bars = append(rssGroup.bars, bar{label: about, value: n[1], text: rssMiB, ours: ours})
			}
		}
		if len(cpuGroup.bars) > 0 {
			cpu.groups, rss.groups = append(cpu.groups, cpuGroup), append(rss.groups, rssGroup)
		}
	}
	if len(cpu.groups) == 0 {
		return nil, fmt.Errorf("no agentbench table with a row of the variants %s", strings.Join(variants, ", "))
	}
	var caption []string
	if m := agentbenchSetting.FindStringSubmatch(text); m != nil {
		caption = append(caption, m[1]+".")
	}
	caption = append(caption, sourceLine(path, text))
	cpu.caption, rss.caption = caption, caption
	return []figure{{"catchup-cpu.svg", cpu}, {"catchup-rss.svg", rss}}, nil
}

func label(labels map[string]string, name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	return name
}
