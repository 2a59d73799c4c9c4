package mergelogreceiver

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

const unjoinedMetric = "otelcol_receiver_mergelog_split_lines_unjoined"

// rotatedContainerConfig reads a pod's live and rotated files, as the shipped agent does.
func rotatedContainerConfig(root string) *Config {
	cfg := containerConfig(root)
	cfg.Include = append(cfg.Include, filepath.Join(root, "*", "*", "*.log.*"))
	return cfg
}

// startShortWait starts a receiver on root's pods with a split_line_wait of 200ms, and returns
// its config, telemetry and sink.
func startShortWait(t *testing.T, root string) (*Config, telemetry, *testkit.LogsSink) {
	t.Helper()
	cfg := rotatedContainerConfig(root)
	cfg.SplitLineWait = 200 * time.Millisecond
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), cfg, s, nil)
	return cfg, tt, s
}

// splitAcrossRotation writes first to dir/0.log, waits until the receiver emitted its first
// record (the file, small, is read to its end in one round: the pieces at its end wait), then
// rotates it as kubelet does (renamed, a new 0.log) with next in the new file.
func splitAcrossRotation(t *testing.T, dir, first, next string, s *testkit.LogsSink) {
	t.Helper()
	live := filepath.Join(dir, "0.log")
	testkit.WriteFile(t, live, first)
	s.WaitForBodies(t, 1)
	require.NoError(t, os.Rename(live, live+".20261129-100000"))
	testkit.WriteFile(t, live, next)
}

// containerd split a long line and kubelet rotated 0.log between its pieces: the P pieces end
// the rotated file, the rest begins the new 0.log. The line comes out once, whole, with the
// time of its first piece; nothing is counted unjoined.
func TestSplitLineAcrossRotationCRI(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), rotatedContainerConfig(root), s, nil)
	splitAcrossRotation(t, dir,
		criLine(1, "stdout", "F", "before")+criLine(2, "stdout", "P", "a long line, ")+criLine(2, "stdout", "P", "cut by the runtime, "),
		criLine(3, "stdout", "F", "ends after the rotation")+criLine(4, "stdout", "F", "after"), s)
	assert.Equal(t, []string{"before", "a long line, cut by the runtime, ends after the rotation", "after"}, s.WaitForBodies(t, 3))
	got := podRecords(s)
	assert.Equal(t, time.Date(2026, 11, 29, 10, 0, 2, 1, time.UTC),
		got["a long line, cut by the runtime, ends after the rotation"].lr.Timestamp().AsTime())
	s.AssertNoMoreThan(t, 3, settle)
	assert.Zero(t, tt.sum(unjoinedMetric, nil))
}

// Docker's json-file lines with the pieces of a line (logs without their newline) in two files.
func TestSplitLineAcrossRotationDocker(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "web")
	line := func(log, stream string) string {
		return fmt.Sprintf(`{"log":%q,"stream":%q,"time":"2026-11-29T10:00:00.5Z"}`+"\n", log, stream)
	}
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), rotatedContainerConfig(root), s, nil)
	splitAcrossRotation(t, dir,
		line("before\n", "stderr")+line("piece one, ", "stderr")+line("GET /cart\n", "stdout"),
		line("piece two\n", "stderr")+line("after\n", "stderr"), s)
	assertSameLines(t, []string{"before", "GET /cart", "piece one, piece two", "after"}, s.WaitForBodies(t, 4))
	s.AssertNoMoreThan(t, 4, settle)
	assert.Zero(t, tt.sum(unjoinedMetric, nil))
}

// The rest of a split line never comes (the container died mid-line, or its rest went to a
// file never read): after split_line_wait the pieces are emitted as they are, and counted.
func TestSplitLineRestNeverComes(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	cfg, tt, s := startShortWait(t, root)
	written := time.Now()
	testkit.WriteFile(t, filepath.Join(dir, "0.log"),
		criLine(1, "stdout", "F", "before")+criLine(2, "stdout", "P", "the first piece, "))
	assert.Equal(t, []string{"before", "the first piece,"}, s.WaitForBodies(t, 2))
	assert.GreaterOrEqual(t, time.Since(written), cfg.SplitLineWait, "emitted before split_line_wait")
	tt.waitSum(t, unjoinedMetric, 1)
	s.AssertNoMoreThan(t, 2, settle)
	assert.Equal(t, int64(1), tt.sum(unjoinedMetric, nil))
}

// A container restarted (kubelet's 1.log after 0.log) never continues a line the one before
// left split: its pieces wait, then go out as they are.
func TestSplitLineNotContinuedByRestart(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	_, tt, s := startShortWait(t, root)
	testkit.WriteFile(t, filepath.Join(dir, "0.log"),
		criLine(1, "stdout", "F", "before")+criLine(2, "stdout", "P", "the last words,"))
	s.WaitForBodies(t, 1)
	testkit.WriteFile(t, filepath.Join(dir, "1.log"), criLine(3, "stdout", "F", "starting again"))
	assertSameLines(t, []string{"before", "the last words,", "starting again"}, s.WaitForBodies(t, 3))
	tt.waitSum(t, unjoinedMetric, 1)
	s.AssertNoMoreThan(t, 3, settle)
}

// A crash after the rotated file's last records were accepted but before the line it began was:
// the pieces at the rotated file's end were handed to the next file's stream, and the rotated
// file's checkpoint must not move past them until that line is committed in the next file. After
// the restart the line comes whole, once.
func TestSplitLineAcrossRotationCrash(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	m := testkit.NewMemStorage()
	cfg, host := withStorage(rotatedContainerConfig(root), m)
	release := make(chan struct{})
	first := make(chan struct{})
	const joined = "a long line, ends after the rotation"
	crashed := &testkit.LogsSink{Answer: func(_ context.Context, call int, ld plog.Logs) error {
		if call == 1 {
			close(first)
			<-release // "before" stays in flight while the rotation's pieces are taken over
			return nil
		}
		return diesOn(m, ld, joined)
	}}
	tt := componenttestTelemetry(t)
	r := startWith(t, tt.settings(), cfg, crashed, host)
	live := filepath.Join(dir, "0.log")
	old := criLine(1, "stdout", "F", "before") + criLine(2, "stdout", "P", "a long line, ")
	testkit.WriteFile(t, live, old)
	<-first
	require.NoError(t, os.Rename(live, live+".20261129-100000"))
	next := criLine(3, "stdout", "F", "ends after the rotation")
	testkit.WriteFile(t, live, next)
	tt.waitSum(t, "otelcol_receiver_mergelog_bytes_read", int64(len(old)+len(next))) // the pieces taken over
	close(release)
	require.Eventually(t, func() bool { return crashed.Calls() > 2 }, testkit.Timeout, 5*time.Millisecond)
	shutdownSoon(t, r)

	restartAfterCrash(t, cfg, host, m, joined)
	assert.Equal(t, []string{"before"}, crashed.Bodies())
}

// diesOn is a crash in a sink's answer: when ld holds joined, m freezes (nothing more is
// stored) and the batch is refused, as when the process dies before joined is accepted.
func diesOn(m *testkit.MemStorage, ld plog.Logs, joined string) error {
	if slices.Contains(testkit.BodiesOf(ld), joined) {
		m.Freeze()
		return errors.New("the process is gone")
	}
	return nil
}

// restartAfterCrash starts the receiver again on m's checkpoints and asserts joined comes,
// whole, once.
func restartAfterCrash(t *testing.T, cfg *Config, host component.Host, m *testkit.MemStorage, joined string) {
	t.Helper()
	m.Thaw()
	restarted := &testkit.LogsSink{}
	startReceiver(t, cfg, restarted, host)
	assert.Equal(t, []string{joined}, restarted.WaitForBodies(t, 1))
	restarted.AssertNoMoreThan(t, 1, settle)
}

// The pieces at the end of what was read of a file are not its end when the file holds more:
// the rest of their line may still be in it (the runtime wrote it there before the rotation,
// and the receiver reads the new 0.log first: here, one descriptor for both files). The next
// file must not take them over: each line comes whole, once.
func TestSplitLineNotTakenFromUnreadFile(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	cfg := rotatedContainerConfig(root)
	cfg.MaxConcurrentFiles = 1
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), cfg, s, nil)
	live := filepath.Join(dir, "0.log")
	testkit.WriteFile(t, live, criLine(1, "stdout", "F", "before")+criLine(2, "stdout", "P", "a long line, "))
	s.WaitForBodies(t, 1)
	testkit.AppendFile(t, live, criLine(2, "stdout", "F", "ends in its own file")+criLine(3, "stdout", "F", "last of the old file"))
	require.NoError(t, os.Rename(live, live+".20261129-100000"))
	testkit.WriteFile(t, live, criLine(4, "stdout", "F", "first of the new file"))
	assertSameLines(t, []string{"before", "a long line, ends in its own file", "last of the old file", "first of the new file"}, s.WaitForBodies(t, 4))
	s.AssertNoMoreThan(t, 4, settle)
	assert.Zero(t, tt.sum(unjoinedMetric, nil))
}

// A container's rotated file and its new 0.log both on disk at the first poll, the rotated one
// longer than a read round's chunk and ending with the pieces of a line whose rest begins 0.log:
// the live file is read once the rotated one is read to its end, whatever the order the tracker
// found them in, so the line comes whole, once, and the lines in the order they were written.
func TestSplitLineRotatedFileReadFirst(t *testing.T) {
	root := t.TempDir()
	dir := podDir(t, root, "server")
	live := filepath.Join(dir, "0.log")
	var old strings.Builder
	var want []string
	for i := range 3 * chunkBytes / 100 {
		line := fmt.Sprintf("line %05d %s", i, strings.Repeat("x", 80))
		old.WriteString(criLine(1, "stdout", "F", line))
		want = append(want, line)
	}
	old.WriteString(criLine(2, "stdout", "P", "a long line, "))
	testkit.WriteFile(t, live+".20261129-100000", old.String())
	testkit.WriteFile(t, live, criLine(3, "stdout", "F", "ends in the new file")+criLine(4, "stdout", "F", "after"))
	want = append(want, "a long line, ends in the new file", "after")

	cfg := rotatedContainerConfig(root)
	tt := componenttestTelemetry(t)
	s := &testkit.LogsSink{}
	startWith(t, tt.settings(), cfg, s, nil)
	got := s.WaitForBodies(t, len(want))
	assert.True(t, slices.Equal(want, got), "the records' first and last: %q … %q", got[:2], got[len(got)-3:])
	s.AssertNoMoreThan(t, len(want), settle)
	assert.Zero(t, tt.sum(unjoinedMetric, nil))
}
