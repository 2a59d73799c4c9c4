package mergelogreceiver

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// inFlightRun reads 30 lines of one file in batches of 10, up to three in flight, with its
// checkpoint in memory, and answers each ConsumeLogs call with answer.
func inFlightRun(t *testing.T, answer func(ctx context.Context, call int, ld plog.Logs) error) (*Config, *testkit.MemStorage, *testkit.LogsSink) {
	t.Helper()
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), numbered(0, 30))
	m := testkit.NewMemStorage()
	cfg, _ := withStorage(testConfig(dir), m)
	cfg.Batch.MaxRecords = 10
	cfg.Batch.MaxInFlight = 3
	return cfg, m, &testkit.LogsSink{Answer: answer}
}

// blockUntil waits for release or for the call's context to end (the receiver's Shutdown).
func blockUntil(ctx context.Context, release <-chan struct{}) error {
	select {
	case <-release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Batches accepted out of order: the first one is still on its way when the two after it are
// accepted. Nothing may be committed past the first batch's entries, so after a stop that the
// first batch does not survive, a restart reads every line again from the first.
func TestInFlightBatchesAcceptedOutOfOrderCommitInOrder(t *testing.T) {
	release := make(chan struct{})
	cfg, m, first := inFlightRun(t, func(ctx context.Context, _ int, ld plog.Logs) error {
		if firstBody(ld) == "line 0" {
			return blockUntil(ctx, release) // also the drain's try: never released
		}
		return nil
	})
	_, host := withStorage(cfg, m)
	r := startReceiver(t, cfg, first, host)
	// Batches 2 and 3 were accepted while batch 1 waits: three in flight at once.
	assertSameLines(t, wantLines(10, 30), first.WaitForBodies(t, 20))
	shutdownSoon(t, r)

	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	assertSameLines(t, wantLines(0, 30), again.WaitForBodies(t, 30),
		"the checkpoint did not pass the batch still in flight")
}

// A batch refused with a retryable error in the middle holds back the commits of the batches
// after it, though they were accepted; once it is accepted everything is committed.
func TestInFlightRefusalInTheMiddleHoldsBackLaterCommits(t *testing.T) {
	var refusing atomic.Bool
	refusing.Store(true)
	cfg, m, first := inFlightRun(t, func(_ context.Context, _ int, ld plog.Logs) error {
		if firstBody(ld) == "line 10" && refusing.Load() {
			return errors.New("gateway busy") // retryable
		}
		return nil
	})
	_, host := withStorage(cfg, m)
	r := startReceiver(t, cfg, first, host)
	got := first.WaitForBodies(t, 20)
	assertSameLines(t, append(wantLines(0, 10), wantLines(20, 30)...), got)
	testkit.WaitUntil(t, time.Minute, "the refused batch is retried", func() bool { return first.Calls() >= 5 })
	shutdownSoon(t, r) // the drain's one more try is refused too

	// Committed: batch 1 only. Batches 2 (refused) and 3 (accepted after it) come again.
	again := &testkit.LogsSink{}
	refusing.Store(false)
	r = startReceiver(t, cfg, again, host)
	assertSameLines(t, wantLines(10, 30), again.WaitForBodies(t, 20))
	require.NoError(t, r.Shutdown(context.Background()))

	// Now everything is committed: a restart reads only what comes next.
	last := &testkit.LogsSink{}
	startReceiver(t, cfg, last, host)
	testkit.AppendFile(t, filepath.Join(filepath.Dir(cfg.Include[0]), "a.log"), "after\n")
	assert.Equal(t, []string{"after"}, last.WaitForBodies(t, 1))
}

// Shutdown while batches are in flight and the next consumer is slow: the drain waits for
// them within its bound, and what was accepted is committed.
func TestShutdownDrainsBatchesInFlight(t *testing.T) {
	release := make(chan struct{})
	var started sync.WaitGroup
	started.Add(3)
	cfg, m, first := inFlightRun(t, func(ctx context.Context, call int, _ plog.Logs) error {
		if call <= 3 {
			started.Done()
		}
		return blockUntil(ctx, release)
	})
	_, host := withStorage(cfg, m)
	r := startReceiver(t, cfg, first, host)
	started.Wait() // three batches in flight, none accepted
	go func() { time.Sleep(100 * time.Millisecond); close(release) }()
	require.NoError(t, r.Shutdown(context.Background()))
	assertSameLines(t, wantLines(0, 30), first.Bodies(), "the drain delivered what was in flight")

	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, filepath.Join(filepath.Dir(cfg.Include[0]), "a.log"), "after\n")
	assert.Equal(t, []string{"after"}, again.WaitForBodies(t, 1), "all of it was committed")
}

// With merge, one batch is in flight at a time whatever batch.max_in_flight says: calls never
// overlap, so the next consumer sees the merged order.
func TestMergeDeliversOneBatchAtATime(t *testing.T) {
	dir := t.TempDir()
	for i, name := range []string{"a.log", "b.log"} {
		testkit.WriteFile(t, filepath.Join(dir, name), testkit.Text(testkit.LinesOf(0, 200, func(j int) string {
			return time.Unix(int64(2*j+i), 0).UTC().Format(time.RFC3339) + " " + name
		})))
	}
	cfg := testConfig(dir)
	cfg.Timestamp = &TimestampConfig{Format: "rfc3339"}
	cfg.Merge.Enabled = true
	cfg.Merge.Window = 50 * time.Millisecond
	cfg.Batch.MaxRecords = 10
	cfg.Batch.MaxInFlight = 8
	var inside, most atomic.Int32
	s := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error {
		n := inside.Add(1)
		defer inside.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(time.Millisecond) // room for another call to overlap, if one could
		return nil
	}}
	startReceiver(t, cfg, s, nil)
	records := s.WaitForRecords(t, 400)
	assert.Equal(t, int32(1), most.Load())
	for i := 1; i < len(records); i++ {
		require.LessOrEqual(t, records[i-1].Timestamp(), records[i].Timestamp(), "record %d out of order", i)
	}
}
