package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTables(t *testing.T) {
	text := "agentbench: 1 MB\n\npods\n\n| variant | **MB/cpu-s** | new |\n|---|---|---|\n| `shipped` | **83.1** | x |\n| preset | 6.8 |\n\nplain: about\n| variant | MB/cpu-s |\n|:--|--:|\n| shipped | 120.5 |\n"
	got := tables(text)
	require.Len(t, got, 2)
	assert.Equal(t, "pods", got[0].title)
	assert.Equal(t, []string{"variant", "MB/cpu-s", "new"}, got[0].header)
	assert.Equal(t, [][]string{{"shipped", "83.1", "x"}, {"preset", "6.8"}}, got[0].rows)
	assert.True(t, got[0].has("variant", "MB/cpu-s"))
	assert.False(t, got[0].has("variant", "wall s"))
	assert.Equal(t, "x", got[0].cell(got[0].rows[0], "new"))
	assert.Empty(t, got[0].cell(got[0].rows[1], "new"), "a short row")
	assert.Empty(t, got[0].cell(got[0].rows[0], "wall s"), "no such column")
	assert.Equal(t, "plain: about", got[1].title)
	assert.Equal(t, [][]string{{"shipped", "120.5"}}, got[1].rows)
}

func TestNumber(t *testing.T) {
	for cell, want := range map[string]float64{"93": 93, "0.056": 0.056, "0 of 600000": 0, "12.22×": 12.22, "3 (gave up waiting)": 3} {
		got, err := number(cell)
		require.NoError(t, err, cell)
		assert.InDelta(t, want, got, 1e-12, cell)
	}
	for _, cell := range []string{"", "–", "n/a"} {
		_, err := number(cell)
		assert.Error(t, err, cell)
	}
}

func TestSourceLine(t *testing.T) {
	assert.Equal(t, "From r.md.", sourceLine("r.md", "| a |\n"))
	assert.Equal(t, "From r.md of 2026-12-03.", sourceLine("r.md", "agentbench: 300 MB (2026-12-03T04:05:06Z)\n"))
}
