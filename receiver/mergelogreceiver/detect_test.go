package mergelogreceiver

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// capturedLines returns lines from..to (from 1) of what a runtime printed, from the detector's
// test data.
func capturedLines(t *testing.T, lang string, from, to int) []string {
	out, err := os.ReadFile(filepath.Join("..", "..", "internal", "stacktrace", "testdata", lang, "output.txt"))
	require.NoError(t, err)
	return strings.Split(string(out), "\n")[from-1 : to]
}

// TestDetectContainerStreams: with multiline.detect, a traceback on stderr is one record although
// stdout's lines are written between its lines and one of its lines comes in two CRI pieces;
// stdout's lines are a record each.
func TestDetectContainerStreams(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	cfg := containerConfig(root)
	cfg.Multiline.Detect = []string{"all"}
	trace := capturedLines(t, "python", 5, 21) // a chained traceback, as python3 printed it
	var file strings.Builder
	var ticks []string
	for i, line := range trace {
		if i == 3 { // the runtime split this line
			file.WriteString(criLine(i, "stderr", "P", line[:5]) + criLine(i, "stderr", "F", line[5:]))
		} else {
			file.WriteString(criLine(i, "stderr", "F", line))
		}
		tick := fmt.Sprintf("tick %d", i)
		ticks = append(ticks, tick)
		file.WriteString(criLine(i, "stdout", "F", tick))
	}
	testkit.WriteFile(t, filepath.Join(dir, "0.log"), file.String())
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	want := append([]string{strings.Join(trace, "\n")}, ticks...)
	assert.ElementsMatch(t, want, s.WaitForBodies(t, len(want)))
	got := podRecords(s)
	assert.Equal(t, "stderr", got[want[0]].lr.Attributes().AsRaw()[attrIOStream])
}

// TestDetectFlushesAnOpenTrace: a trace whose next line never comes goes out at
// force_flush_period, as its own record after the line before it.
func TestDetectFlushesAnOpenTrace(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Multiline.Detect = []string{"java", "python"}
	trace := capturedLines(t, "java", 71, 91) // an uncaught exception with causes
	testkit.WriteFile(t, filepath.Join(dir, "app.log"), testkit.Text(append([]string{"INFO starting"}, trace...)))
	s := &testkit.LogsSink{}
	startReceiver(t, cfg, s, nil)
	assert.Equal(t, []string{"INFO starting", strings.Join(trace, "\n")}, s.WaitForBodies(t, 2))
}
