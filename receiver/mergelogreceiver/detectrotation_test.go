package mergelogreceiver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// criLines writes lines as F lines of stream, one second apart from sec.
func criLines(sec int, stream string, lines []string) string {
	var b strings.Builder
	for i, l := range lines {
		b.WriteString(criLine(sec+i, stream, "F", l))
	}
	return b.String()
}

// detectRotatedConfig reads root's live and rotated pod files with every language detected.
func detectRotatedConfig(root string) *Config {
	cfg := rotatedContainerConfig(root)
	cfg.Multiline.Detect = []string{"all"}
	return cfg
}

// kubelet rotated 0.log in the middle of a Java trace: its first lines end the rotated file,
// the rest begins the new 0.log. The trace is one record, whether the new file comes at once
// or only after force_flush_period (the entry at the end of the rotated file waits for it).
func TestDetectAcrossRotation(t *testing.T) {
	trace := capturedLines(t, "java", 71, 91)
	for _, late := range []bool{false, true} {
		t.Run(map[bool]string{false: "at once", true: "after force_flush_period"}[late], func(t *testing.T) {
			root := t.TempDir()
			dir := podDir(t, root, "server")
			cfg := detectRotatedConfig(root)
			tt := componenttestTelemetry(t)
			s := &testkit.LogsSink{}
			startWith(t, tt.settings(), cfg, s, nil)
			live := filepath.Join(dir, "0.log")
			testkit.WriteFile(t, live, criLines(0, "stderr", append([]string{"INFO before"}, trace[:8]...)))
			s.WaitForBodies(t, 1)
			require.NoError(t, os.Rename(live, live+".20261129-100000"))
			if late {
				time.Sleep(4 * cfg.ForceFlushPeriod) // its entry would have been flushed by now
			}
			testkit.WriteFile(t, live, criLines(10, "stderr", append(trace[8:], "INFO after")))
			assert.Equal(t, []string{"INFO before", strings.Join(trace, "\n"), "INFO after"}, s.WaitForBodies(t, 3))
			s.AssertNoMoreThan(t, 3, settle)
			assert.Zero(t, tt.sum(unjoinedMetric, nil))
			// The trace has the runtime's time of its first line, written before the rotation.
			assert.Equal(t, time.Date(2026, 11, 29, 10, 0, 1, 1, time.UTC),
				podRecords(s)[strings.Join(trace, "\n")].lr.Timestamp().AsTime())
		})
	}
}

// A crash after the rotated file's trace lines were handed to the new file's stream, before
// the joined trace was accepted: the rotated file's checkpoint stays before the trace, and after
// the restart the trace comes whole, once.
func TestDetectAcrossRotationCrash(t *testing.T) {
	trace := capturedLines(t, "python", 5, 21)
	root := t.TempDir()
	dir := podDir(t, root, "server")
	m := testkit.NewMemStorage()
	cfg, host := withStorage(detectRotatedConfig(root), m)
	joined := strings.Join(trace, "\n")
	crashed := &testkit.LogsSink{Answer: func(_ context.Context, _ int, ld plog.Logs) error {
		return diesOn(m, ld, joined)
	}}
	tt := componenttestTelemetry(t)
	r := startWith(t, tt.settings(), cfg, crashed, host)
	live := filepath.Join(dir, "0.log")
	testkit.WriteFile(t, live, criLines(0, "stderr", append([]string{"INFO before"}, trace[:6]...)))
	crashed.WaitForBodies(t, 1)
	require.NoError(t, os.Rename(live, live+".20261129-100000"))
	testkit.WriteFile(t, live, criLines(10, "stderr", trace[6:]))
	require.Eventually(t, func() bool { return crashed.Calls() > 1 }, testkit.Timeout, 5*time.Millisecond)
	shutdownSoon(t, r)

	restartAfterCrash(t, cfg, host, m, joined)
	assert.Equal(t, []string{"INFO before"}, crashed.Bodies())
}

// The rotated file and the new 0.log found in the same poll (the receiver started after the
// rotation, or both appeared between two polls): the new file, listed first, waits until the
// rotated one is read to its end, and then takes its trace over. A file written after both
// (a later rotation) does not take it.
func TestDetectAcrossRotationFoundTogether(t *testing.T) {
	trace := capturedLines(t, "java", 71, 91)
	root := t.TempDir()
	dir := podDir(t, root, "server")
	live := filepath.Join(dir, "0.log")
	testkit.WriteFile(t, live+".20261129-100000", criLines(0, "stderr", append([]string{"INFO before"}, trace[:8]...)))
	testkit.WriteFile(t, live, criLines(10, "stderr", append(trace[8:], "INFO after")))
	s := &testkit.LogsSink{}
	startReceiver(t, detectRotatedConfig(root), s, nil)
	assert.Equal(t, []string{"INFO before", strings.Join(trace, "\n"), "INFO after"}, s.WaitForBodies(t, 3))
	s.AssertNoMoreThan(t, 3, settle)
}
