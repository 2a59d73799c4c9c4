package main

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name)
	require.NoError(t, err)
	return string(data)
}

func TestSteadyCharts(t *testing.T) {
	figures, err := steadyCharts(readTestdata(t, "steady-report.md"), "steady.md")
	require.NoError(t, err)
	require.Len(t, figures, 2)
	cpu, rss := figures[0], figures[1]
	assert.Equal(t, "steady-cpu.svg", cpu.file)
	assert.Equal(t, "steady-rss.svg", rss.file)
	assert.Contains(t, cpu.chart.title, "per GB")

	require.Len(t, cpu.chart.groups, 1)
	bars := cpu.chart.groups[0].bars
	require.Len(t, bars, 3)
	// CPU s per M lines × 1000 ÷ 219 B a line.
	for i, perM := range []float64{5.65, 18.43, 9.03} {
		assert.InDelta(t, perM*1000/219, bars[i].value, 1e-9)
	}
	assert.Equal(t, "25.8 (0.056 cores)", bars[0].text)
	assert.Equal(t, "ours: shipped agent config + json_parser", bars[0].label)
	assert.Equal(t, []bool{true, false, false}, []bool{bars[0].ours, bars[1].ours, bars[2].ours})
	assert.True(t, strings.HasPrefix(bars[2].label, "Fluent Bit"))

	rssBars := rss.chart.groups[0].bars
	require.Len(t, rssBars, 3)
	assert.InDelta(t, 105.9, rssBars[1].value, 1e-9)
	assert.Equal(t, "29.2", rssBars[2].text)
	assert.Equal(t, []string{
		"10 pods at 10000 lines/s in all for 1m0s, kubelet rotating at 10Mi/5 files/10s.",
		"From steady.md of 2026-12-02.",
	}, cpu.chart.caption)
}

func TestSteadyChartsPerMillionLines(t *testing.T) {
	// Without the lines under the table, no bytes a line: CPU per million lines as the report gives it.
	report := "| agent | cores | CPU s per M lines | peak RSS MiB | catch-up s |\n|---|---|---|---|---|\n" +
		"| ours: shipped | 0.056 | 5.65 | 57.8 | 0.3 |\n| file_log: the helm preset | 0.184 | 18.43 | 105.9 | 0.4 |\n"
	figures, err := steadyCharts(report, "r.md")
	require.NoError(t, err)
	assert.Contains(t, figures[0].chart.title, "per million lines")
	assert.InDelta(t, 18.43, figures[0].chart.groups[0].bars[1].value, 1e-9)
	assert.Equal(t, []string{"From r.md."}, figures[0].chart.caption)
}

func TestSteadyChartsRefuses(t *testing.T) {
	ramp := "| agent | highest rate kept up, nothing lost (lines/s) | its cores | its CPU s per M lines | its peak RSS MiB | the next rate | why it stopped |\n|---|---|---|---|---|---|---|\n| mergelog | 160000 | 0.687 | 4.30 | 92 | 320000 | late |\n"
	_, err := steadyCharts(ramp, "r.md")
	assert.ErrorContains(t, err, "NODE_STEADY_RAMP")

	_, err = steadyCharts(readTestdata(t, "agent-report.md"), "r.md")
	assert.ErrorContains(t, err, "no table with the columns agent")

	bad := "| agent | cores | CPU s per M lines | peak RSS MiB |\n|---|---|---|---|\n| ours | 0.05 | – | 57.8 |\n"
	_, err = steadyCharts(bad, "r.md")
	assert.ErrorContains(t, err, "ours: CPU s per M lines")
}
