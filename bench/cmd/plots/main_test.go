package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunMissingReport(t *testing.T) {
	out := t.TempDir()
	missing := filepath.Join(out, "steady-report.md")
	err := run(options{steady: missing, agent: "testdata/agent-report.md", out: out, variants: drawn})
	require.Error(t, err)
	assert.Equal(t, "no report at "+missing+": make bench-steady writes it", err.Error())

	err = run(options{agent: filepath.Join(out, "agent-report.md"), out: out, variants: drawn})
	assert.ErrorContains(t, err, "make bench-agent writes it")

	entries, err := os.ReadDir(out)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written")
}

func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "figures")
	require.NoError(t, run(options{steady: "testdata/steady-report.md", agent: "testdata/agent-report.md", out: out, variants: drawn}))
	for _, name := range []string{"steady-cpu.svg", "steady-rss.svg", "catchup-cpu.svg", "catchup-rss.svg"} {
		data, err := os.ReadFile(filepath.Join(out, name))
		require.NoError(t, err, name)
		var d drawing
		require.NoError(t, xml.Unmarshal(data, &d), name)
		assert.NotEmpty(t, d.Title, name)
	}
	data, err := os.ReadFile(filepath.Join(out, "steady-rss.svg"))
	require.NoError(t, err)
	assert.Contains(t, string(data), ">57.8</text>")
	assert.Contains(t, string(data), "From testdata/steady-report.md of 2026-12-02.")
}
