package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var drawn = []string{"shipped", "preset", "fluent-bit"}

func TestCatchupCharts(t *testing.T) {
	figures, err := catchupCharts(readTestdata(t, "agent-report.md"), "agent.md", drawn)
	require.NoError(t, err)
	require.Len(t, figures, 2)
	cpu, rss := figures[0], figures[1]
	assert.Equal(t, "catchup-cpu.svg", cpu.file)
	assert.Equal(t, "catchup-rss.svg", rss.file)

	require.Len(t, cpu.chart.groups, 3)
	var labels []string
	for _, g := range cpu.chart.groups {
		labels = append(labels, g.label)
		require.Len(t, g.bars, 2, "shipped and preset; preset-rx is not drawn")
		assert.True(t, g.bars[0].ours)
		assert.False(t, g.bars[1].ours)
	}
	assert.Equal(t, []string{"pod logs (CRI)", "plain lines", "multiline (Java traces)"}, labels)
	pods := cpu.chart.groups[0].bars
	assert.InDelta(t, 1000/83.1, pods[0].value, 1e-9)
	assert.InDelta(t, 1000/6.8, pods[1].value, 1e-9)
	assert.Equal(t, "12.0 (83.1 MB/cpu-s)", pods[0].text)
	assert.Equal(t, "147 (6.8 MB/cpu-s)", pods[1].text)

	plain := rss.chart.groups[1].bars
	assert.InDelta(t, 96, plain[0].value, 1e-9)
	assert.Equal(t, "718", plain[1].text)
	assert.Equal(t, []string{
		"300 MB per workload, 20 files, GOMAXPROCS=1 GOMEMLIMIT=400MiB, medians of 3 runs.",
		"From agent.md of 2026-12-01.",
	}, rss.chart.caption)
}

// agentbench's output as it prints it, with a column and a variant more, and a variant
// whose every run failed.
const agentbenchOutput = `
agentbench: 300 MB per workload, 20 files, GOMAXPROCS=1 GOMEMLIMIT=400MiB, medians of 3 runs (2026-12-03T05:06:07Z)

pods

| variant | agent CPU-s | MB/cpu-s | × (a) preset | × (b) preset-rx | peak RSS MiB | wall s | CPU ÷ wall in catch-up | wire MB | records | max dup | lost | failed |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| preset | 43.9 | 6.8 | 1.00× | – | 453 | 48.0 | 0.91 | 120.3 | 1500000 | 33474 | 0 | 0/3 |
| fluent-bit | 10.0 | 30.0 | 4.41× | – | 30 | 11.0 | 0.91 | 140.0 | 1500000 | 0 | 0 | 0/3 |
| shipped | 3.6 | 83.1 | 12.22× | – | 93 | 4.0 | 0.89 | 60.1 | 1500000 | 0 | 0 | 0/3 |

multiline

| variant | agent CPU-s | MB/cpu-s | × (a) preset | × (b) preset-rx | peak RSS MiB | wall s | CPU ÷ wall in catch-up | wire MB | records | max dup | lost | failed |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
| shipped | 2.7 | 113.2 | – | – | 94 | 3.9 | 0.70 | 50.0 | 400000 | 0 | 0 | 0/3 |
| fluent-bit | 0.0 | 0.0 | – | – | 0 | 0.0 | 0.00 | 0.0 | 400000 | 0 | 0 | 3/3 |
`

func TestCatchupChartsAgentbenchOutput(t *testing.T) {
	figures, err := catchupCharts(agentbenchOutput, "agent.md", drawn)
	require.NoError(t, err)
	groups := figures[0].chart.groups
	require.Len(t, groups, 2)
	var order []string
	for _, b := range groups[0].bars {
		order = append(order, b.label)
	}
	assert.Equal(t, []string{"ours: the shipped agent config", "the helm chart's logsCollection preset (file_log)", "Fluent Bit"}, order, "in the order asked for")
	assert.InDelta(t, 1000/30.0, groups[0].bars[2].value, 1e-9)
	require.Len(t, groups[1].bars, 1, "fluent-bit failed every run on multiline")
	assert.Equal(t, "From agent.md of 2026-12-03.", figures[0].chart.caption[1])
}

func TestCatchupChartsRefuses(t *testing.T) {
	_, err := catchupCharts(readTestdata(t, "steady-report.md"), "agent.md", drawn)
	assert.ErrorContains(t, err, "no agentbench table with a row of the variants shipped, preset, fluent-bit")

	bad := strings.Replace(agentbenchOutput, "| 43.9 | 6.8 |", "| 43.9 | – |", 1)
	_, err = catchupCharts(bad, "agent.md", drawn)
	assert.ErrorContains(t, err, "pods, preset: MB/cpu-s")
}
