package mergelogreceiver

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// numbered returns lines "line from..to-1", newline-terminated.
func numbered(from, to int) string { return testkit.Text(wantLines(from, to)) }

func wantLines(from, to int) []string { return testkit.Lines("line", from, to) }

func firstBody(ld plog.Logs) string {
	return ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body().Str()
}

func isPermanent(permanent bool) func(attribute.Set) bool {
	return func(s attribute.Set) bool {
		v, ok := s.Value("permanent")
		return ok && v.AsBool() == permanent
	}
}

// A retryable error holds everything back: the same batch is offered again, nothing else is
// read or checkpointed meanwhile, and once it passes all records arrive once, in order.
func TestBackpressureRetriesWithoutLossOrDuplicates(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), numbered(0, 100))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.Batch.MaxRecords = 10
	const failures = 5
	var mu sync.Mutex // batches may be in flight at once
	var offered []string
	s := &testkit.LogsSink{Answer: func(_ context.Context, call int, ld plog.Logs) error {
		if call <= failures {
			mu.Lock()
			offered = append(offered, firstBody(ld))
			mu.Unlock()
			assert.Equal(t, 10, ld.LogRecordCount())
			stored, _ := m.Writes()
			assert.Zero(t, stored, "no checkpoint while the batch is refused")
			return errors.New("downstream is busy")
		}
		return nil
	}}
	tel := componenttestTelemetry(t)
	settings := tel.settings()
	startWith(t, settings, cfg, s, host)

	assert.Equal(t, wantLines(0, 100), s.WaitForBodies(t, 100))
	mu.Lock()
	assert.Equal(t, []string{"line 0", "line 0", "line 0", "line 0", "line 0"}, offered)
	mu.Unlock()
	assert.Equal(t, int64(failures), tel.sum("otelcol_receiver_mergelog_consume_errors", isPermanent(false)))
	assert.Equal(t, int64(failures), tel.sum("otelcol_receiver_mergelog_consume_retries", nil))
	tel.waitSum(t, "otelcol_receiver_mergelog_records_emitted", 100)
	// Every measurement names the receiver, as the collector's own receiver metrics do.
	self := func(set attribute.Set) bool {
		v, ok := set.Value("receiver")
		return ok && v.AsString() == settings.ID.String()
	}
	assert.Equal(t, int64(100), tel.sum("otelcol_receiver_mergelog_records_emitted", self))
	assert.Equal(t, int64(failures), tel.sum("otelcol_receiver_mergelog_consume_retries", self))
	tel.waitSum(t, "otelcol_receiver_mergelog_bytes_read", int64(len(numbered(0, 100))))
	tel.waitSum(t, "otelcol_receiver_accepted_log_records", 100)
}

// A restart resumes at the checkpoint: nothing lost, nothing twice. An entry that was still
// incomplete at shutdown (a partial last line) is not emitted then, but completed after the
// restart.
func TestRestartFromCheckpoint(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.log"), filepath.Join(dir, "b.log")
	testkit.WriteFile(t, a, numbered(0, 10)+"partial")
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.ForceFlushPeriod = time.Hour
	first := &testkit.LogsSink{}
	r := startReceiver(t, cfg, first, host)
	assert.Equal(t, wantLines(0, 10), first.WaitForBodies(t, 10))
	require.NoError(t, r.Shutdown(context.Background()))
	assert.Equal(t, wantLines(0, 10), first.Bodies(), "the partial line is not emitted at shutdown")

	testkit.AppendFile(t, a, " completed\n"+numbered(10, 15))
	testkit.WriteFile(t, b, "new file\n")
	second := &testkit.LogsSink{}
	startReceiver(t, cfg, second, host)
	got := second.WaitForBodies(t, 7)
	assertSameLines(t, append([]string{"partial completed", "new file"}, wantLines(10, 15)...), got)
	second.AssertNoMoreThan(t, 7, settle, "nothing read twice")
	assert.Len(t, second.Bodies(), 7, "nothing read twice")
}

// Without storage, a receiver started again (start_at: end) reads only what comes next.
func TestWithoutStorageOffsetsLiveInMemory(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, numbered(0, 5))
	cfg := testConfig(dir)
	cfg.StartAt = StartAtEnd
	s := &testkit.LogsSink{}
	tel := componenttestTelemetry(t)
	startWith(t, tel.settings(), cfg, s, nil)
	// The first poll starts at the end; the run goroutine records files_open right after it.
	testkit.WaitUntil(t, testkit.Timeout, "the first poll", func() bool {
		_, err := tel.GetMetric("otelcol_receiver_mergelog_files_open")
		return err == nil
	})
	testkit.AppendFile(t, a, numbered(5, 8))
	assert.Equal(t, wantLines(5, 8), s.WaitForBodies(t, 3))
}

// A crash after the next consumer accepted a batch but before its checkpoint was written:
// after the restart that batch comes again (duplicates bounded by what was in flight), and
// nothing is lost.
func TestCrashBetweenDeliveryAndCheckpoint(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), numbered(0, 30))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	cfg.Batch.MaxRecords = 10
	cfg.Batch.MaxInFlight = 1 // calls in batch order (TestInFlight* cover several in flight)
	crashed := &testkit.LogsSink{Answer: func(_ context.Context, call int, _ plog.Logs) error {
		switch {
		case call == 2:
			m.Freeze() // the process dies right after this batch is accepted
		case call > 2:
			return errors.New("the process is gone")
		}
		return nil
	}}
	r := startReceiver(t, cfg, crashed, host)
	require.Eventually(t, func() bool { return len(crashed.Bodies()) == 20 }, testkit.Timeout, 5*time.Millisecond)
	shutdownSoon(t, r) // the third batch is refused: the drain cannot finish

	m.Thaw() // the process starts again
	restarted := &testkit.LogsSink{}
	startReceiver(t, cfg, restarted, host)
	got := restarted.WaitForBodies(t, 20)
	assert.Equal(t, wantLines(10, 30), got, "the in-flight batch again, then the rest")
	assert.Equal(t, wantLines(0, 20), crashed.Bodies())
}

// Shutdown while the next consumer keeps refusing returns within the caller's deadline and
// checkpoints nothing that was not accepted.
func TestShutdownDuringRetriesIsBounded(t *testing.T) {
	dir := t.TempDir()
	testkit.WriteFile(t, filepath.Join(dir, "a.log"), numbered(0, 5))
	m := testkit.NewMemStorage()
	cfg, host := withStorage(testConfig(dir), m)
	s := &testkit.LogsSink{Answer: func(context.Context, int, plog.Logs) error { return errors.New("down") }}
	r := startReceiver(t, cfg, s, host)
	require.Eventually(t, func() bool {
		return s.Calls() > 2
	}, testkit.Timeout, 5*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.NoError(t, r.Shutdown(ctx))
	assert.Less(t, time.Since(start), time.Second)
	stored, _ := m.Writes()
	assert.Zero(t, stored)
}
