//go:build unix

package mergelogreceiver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// kubeletOutage rotates dir/a.log as kubelet does (rename out of the glob, a new file in its
// place) rotations times while every delivery is blocked, deleting each rotated file once the
// receiver has found its successor; then it lets the deliveries through. It returns every
// line written, by file, and the sink.
func kubeletOutage(t *testing.T, cfg *Config, set receiver.Settings, rotations int) ([][]string, *testkit.LogsSink) {
	t.Helper()
	dir := filepath.Dir(cfg.Include[0])
	path := filepath.Join(dir, "a.log")
	files := [][]string{testkit.Lines("f0 line", 0, 30)}
	testkit.WriteFile(t, path, testkit.Text(files[0]))
	release, blocked := make(chan struct{}), make(chan struct{}, 1)
	sink := &testkit.LogsSink{Answer: func(ctx context.Context, _ int, _ plog.Logs) error {
		select {
		case blocked <- struct{}{}:
		default:
		}
		return blockUntil(ctx, release)
	}}
	cfg.Batch.MaxRecords = 10
	r := startWith(t, set, cfg, sink, nil).(*mergelogReceiver)
	<-blocked // the first batch waits downstream; the second fills and parks
	for i := 1; i <= rotations; i++ {
		rotated := fmt.Sprintf("%s.%d", path, i)
		require.NoError(t, os.Rename(path, rotated))
		files = append(files, testkit.Lines(fmt.Sprintf("f%d line", i), 0, 30))
		testkit.WriteFile(t, path, testkit.Text(files[i]))
		testkit.WaitUntil(t, testkit.Timeout, "the receiver finds the new a.log while its deliveries are blocked", func() bool {
			return r.read.tracker.Stats().FilesDiscovered == int64(i+1)
		})
		require.NoError(t, os.Remove(rotated))
	}
	close(release)
	return files, sink
}

// An outage downstream longer than the node keeps rotated files: the receiver, its batch
// parked, goes on polling, opens each new file and holds the rotated ones open once deleted,
// and reads every line of them when deliveries resume.
func TestOutageHoldsFilesDeletedMeanwhile(t *testing.T) {
	cfg := testConfig(t.TempDir())
	files, sink := kubeletOutage(t, cfg, receivertest.NewNopSettings(metadata.Type), 4)
	var all []string
	for _, f := range files {
		all = append(all, f...)
	}
	assertSameLines(t, all, sink.WaitForBodies(t, len(all)))
}

// Beyond max_deleted_bytes the deleted files seen last the longest ago are closed: what they
// had unread is lost, and exactly that is counted and logged, naming the file.
func TestOutageBeyondMaxDeletedBytesCountsTheLoss(t *testing.T) {
	cfg := testConfig(t.TempDir())
	fileSize := len(testkit.Text(testkit.Lines("f1 line", 0, 30)))
	cfg.MaxDeletedBytes = ByteSize(fileSize + fileSize/2) // one deleted file kept, not two
	tel := componenttestTelemetry(t)
	set := tel.settings()
	core, logs := observer.New(zap.WarnLevel)
	set.Logger = zap.New(core)
	files, sink := kubeletOutage(t, cfg, set, 4)
	// The last two files are within the bound: a.log itself, and the one deleted last.
	kept := slices.Concat(files[len(files)-2:]...)
	got := map[string]int{}
	testkit.WaitUntil(t, testkit.Timeout, "the files within the bound delivered", func() bool {
		clear(got)
		for _, b := range sink.Bodies() {
			got[b]++
		}
		for _, l := range kept {
			if got[l] == 0 {
				return false
			}
		}
		return true
	})
	var lostBytes int64
	for _, l := range slices.Concat(files...) {
		switch got[l] {
		case 0:
			lostBytes += int64(len(l) + 1)
		case 1:
		default:
			t.Errorf("%q delivered %d times", l, got[l])
		}
	}
	assert.Positive(t, lostBytes, "a deleted file was closed before it was read")
	testkit.WaitUntil(t, testkit.Timeout, "the loss counted", func() bool {
		return tel.sum("otelcol_receiver_mergelog_bytes_lost", nil) == lostBytes
	})
	var named int64
	for _, e := range logs.FilterMessageSnippet("closing a deleted file").All() {
		path, _ := e.ContextMap()["path"].(string)
		// A file renamed out of the globs is known by the name it was read under.
		assert.Equal(t, "a.log", filepath.Base(path), "the warning names the file")
		named += e.ContextMap()["unread_bytes"].(int64)
	}
	assert.Equal(t, lostBytes, named, "the warnings name every byte lost")
}

// gzipAway compresses p to p.gz and removes p, as logrotate's compress does.
func gzipAway(t *testing.T, p string) {
	t.Helper()
	data, err := os.ReadFile(p)
	require.NoError(t, err)
	testkit.WriteFile(t, p+".gz", string(testkit.Compress(t, testkit.Gzip, data)))
	require.NoError(t, os.Remove(p))
}

// While the batch is parked polls go on, and a file rotated meanwhile is seen mid-read, with
// no check point where reading stopped unless the round that left it took one: here a
// copytruncate, then move/create with delaycompress, then move with gzip, all while every
// delivery waits. The copy must continue the file where it was left, not become a new file
// read again from its start once its match stays undecided (800 lines came twice before).
func TestOutageRotationsWhileParkedReadEachLineOnce(t *testing.T) {
	dir := t.TempDir()
	cfg := testConfig(dir)
	cfg.Include = []string{filepath.Join(dir, "o1.log*")}
	cfg.Batch.MaxRecords = 100
	cfg.Batch.MaxInFlight = 4
	path := filepath.Join(dir, "o1.log")
	written := testkit.Lines("a line", 0, 900)
	testkit.WriteFile(t, path, testkit.Text(written))
	release, blocked := make(chan struct{}), make(chan struct{}, 1)
	sink := &testkit.LogsSink{Answer: func(ctx context.Context, call int, _ plog.Logs) error {
		if call <= 3 {
			return nil
		}
		select {
		case blocked <- struct{}{}:
		default:
		}
		return blockUntil(ctx, release)
	}}
	startReceiver(t, cfg, sink, nil)
	<-blocked
	// The rotations are paced by polls of the parked receiver (about 30 each): the assertions
	// hold however many polls a slow machine makes, the defect shows once a few ran.
	polls := func(n int) { time.Sleep(time.Duration(n) * cfg.PollInterval) }
	polls(30)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	testkit.WriteFile(t, path+".1", string(data)) // copytruncate
	require.NoError(t, os.Truncate(path, 0))
	more := testkit.Lines("b line", 0, 800)
	written = append(written, more...)
	testkit.AppendFile(t, path, testkit.Text(more))
	polls(30)
	require.NoError(t, os.Rename(path, path+".2")) // move/create, delaycompress
	created := testkit.Lines("c line", 0, 100)
	written = append(written, created...)
	testkit.WriteFile(t, path, testkit.Text(created))
	gzipAway(t, path+".1")
	polls(30)
	require.NoError(t, os.Rename(path, path+".3")) // move and compress at once
	gzipAway(t, path+".3")
	gzipAway(t, path+".2")
	polls(30)
	close(release)
	got := map[string]int{}
	for _, b := range sink.WaitForBodies(t, len(written)) {
		got[b]++
	}
	assert.Never(t, func() bool { return sink.RecordCount() > len(written) }, settle, 5*time.Millisecond, "records beyond those written")
	for _, l := range written {
		if got[l] != 1 {
			t.Errorf("%q delivered %d times", l, got[l])
		}
	}
}
