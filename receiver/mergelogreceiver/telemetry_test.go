package mergelogreceiver

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

const (
	checkpointWrites = "otelcol_receiver_mergelog_checkpoint_writes"
	readLag          = "otelcol_receiver_mergelog_read_lag"
)

// byFailed matches the checkpoint writes that failed, or those that did not.
func byFailed(failed bool) func(attribute.Set) bool {
	return func(s attribute.Set) bool {
		v, ok := s.Value(metadata.AttributeFailed)
		return ok && v.AsBool() == failed
	}
}

// Every write to the storage is counted, as the storage saw it: the writes it took, then, while
// it refuses them, the failed ones (each logged), and the write after that carries what they
// held.
func TestCheckpointWritesAreCounted(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, a, numbered(0, 10))
	m := testkit.NewMemStorage()
	tel := componenttestTelemetry(t)
	core, logs := observer.New(zap.ErrorLevel)
	set := tel.settings()
	set.Logger = zap.New(core)
	cfg, host := withStorage(testConfig(dir), m)
	s := &testkit.LogsSink{}
	r := startWith(t, set, cfg, s, host)
	s.WaitForRecords(t, 10)
	testkit.WaitUntil(t, testkit.Timeout, "the checkpoint written", func() bool {
		ok, _ := m.Batches()
		return ok > 0
	})

	m.Fail(errors.New("disk full"))
	testkit.AppendFile(t, a, numbered(10, 20))
	s.WaitForRecords(t, 20)
	testkit.WaitUntil(t, testkit.Timeout, "a write refused", func() bool {
		_, failed := m.Batches()
		return failed > 0
	})
	m.Fail(nil)
	require.NoError(t, r.Shutdown(context.Background())) // writes what the refused writes held

	ok, failed := m.Batches()
	assert.Equal(t, int64(ok), tel.sum(checkpointWrites, byFailed(false)), "the writes the storage took")
	assert.Equal(t, int64(failed), tel.sum(checkpointWrites, byFailed(true)), "the writes it refused")
	assert.Len(t, logs.FilterMessageSnippet("Writing the checkpoint failed").All(), failed, "each failure logged")

	again := &testkit.LogsSink{}
	startReceiver(t, cfg, again, host)
	testkit.AppendFile(t, a, numbered(20, 21))
	assert.Equal(t, wantLines(20, 21), again.WaitForBodies(t, 1), "the last write stored every offset")
}

// gauge is a float gauge's value (of its one data point), and whether it was recorded.
func (tt telemetry) gauge(name string) (float64, bool) {
	m, err := tt.GetMetric(name)
	if err != nil {
		return 0, false
	}
	g, ok := m.Data.(metricdata.Gauge[float64])
	if !ok || len(g.DataPoints) != 1 {
		return 0, false
	}
	return g.DataPoints[0].Value, true
}

// While deliveries are held with a file's data unread, the read lag grows with the wait; once
// the file is read to the end of its data, it is 0; new data is counted from when it was found,
// not from the file's earlier wait.
func TestReadLagGrowsWhileDataWaitsAndIsZeroOnceRead(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.log")
	const lines = 100
	testkit.WriteFile(t, a, numbered(0, lines))
	// gate, while set, holds every delivery until it is closed.
	var gate atomic.Pointer[chan struct{}]
	blocked := make(chan struct{}, 1)
	s := &testkit.LogsSink{Answer: func(ctx context.Context, _ int, _ plog.Logs) error {
		g := gate.Load()
		if g == nil {
			return nil
		}
		select {
		case blocked <- struct{}{}:
		default:
		}
		return blockUntil(ctx, *g)
	}}
	hold := func() (release func()) {
		ch := make(chan struct{})
		gate.Store(&ch)
		return func() { gate.Store(nil); close(ch) }
	}
	tel := componenttestTelemetry(t)
	cfg := testConfig(dir)
	cfg.Batch.MaxRecords = 10 // the first batch waits downstream, the second parks: 80 lines unread
	release := hold()
	startWith(t, tel.settings(), cfg, s, nil)
	<-blocked

	const bound = 0.5 // seconds: reached only by waiting, however fast or slow the machine
	testkit.WaitUntil(t, testkit.Timeout, "the lag past the bound", func() bool {
		lag, _ := tel.gauge(readLag)
		return lag >= bound
	})
	release()
	s.WaitForRecords(t, lines)
	testkit.WaitUntil(t, testkit.Timeout, "the lag back to 0", func() bool {
		lag, ok := tel.gauge(readLag)
		return ok && lag == 0
	})

	// More data, held again: its lag counts from the poll that found it.
	release = hold()
	defer release()
	appended := time.Now()
	testkit.AppendFile(t, a, numbered(lines, 2*lines))
	<-blocked
	var got float64
	testkit.WaitUntil(t, testkit.Timeout, "a lag again", func() bool {
		got, _ = tel.gauge(readLag)
		return got > 0
	})
	assert.LessOrEqual(t, got, time.Since(appended).Seconds(), "counted from the new data, not from the first wait")
}
