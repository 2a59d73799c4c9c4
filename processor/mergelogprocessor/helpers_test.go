package mergelogprocessor

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// base is the instant the tests' record times count from, in milliseconds.
var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testConfig has round numbers the tests step the clock by.
func testConfig() *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxDelay = time.Second
	cfg.IdleTimeout = 10 * time.Second
	cfg.ReleaseInterval = 100 * time.Millisecond
	return cfg
}

// fakeClock is the processor's clock in the tests, moved only by them.
type fakeClock struct{ ns atomic.Int64 }

func (c *fakeClock) now() time.Time          { return time.Unix(0, c.ns.Load()) }
func (c *fakeClock) advance(d time.Duration) { c.ns.Add(int64(d)) }

// harness is one processor started with a fake clock and a release timer that only ticks
// when the test calls tick, delivering to sink.
type harness struct {
	t     *testing.T
	p     *mergelogProcessor
	proc  processor.Logs
	clock *fakeClock
	sink  *testkit.LogsSink
	tel   *componenttest.Telemetry
	down  bool
	seen  int // bodies delivered before the test's own, which delivered leaves out
}

func startHarness(t *testing.T, cfg *Config, sink *testkit.LogsSink, host component.Host) *harness {
	t.Helper()
	require.NoError(t, cfg.Validate())
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { assert.NoError(t, tel.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
	p, err := newMergelogProcessor(set, cfg, sink)
	require.NoError(t, err)
	h := &harness{t: t, p: p, clock: &fakeClock{}, sink: sink, tel: tel}
	h.clock.ns.Store(base.UnixNano())
	p.now = h.clock.now
	p.ticks = make(chan time.Time) // never ticks: the test calls tick
	h.proc, err = p.asProcessor(set)
	require.NoError(t, err)
	if host == nil {
		host = componenttest.NewNopHost()
	}
	require.NoError(t, h.proc.Start(context.Background(), host))
	t.Cleanup(func() {
		if !h.down {
			h.shutdown(context.Background())
		}
	})
	return h
}

func (h *harness) shutdown(ctx context.Context) {
	h.t.Helper()
	h.down = true
	assert.NoError(h.t, h.proc.Shutdown(ctx))
}

// shutdownRefused shuts down while every delivery is refused: the flush cannot finish, so the
// deadline passes however slow the machine, and its length only bounds the test.
func (h *harness) shutdownRefused() {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	h.shutdown(ctx)
}

// send hands the processor one batch from source of service, one record per instant
// (milliseconds after base), with the body "source@instant".
func (h *harness) send(service, source string, instants ...int) {
	h.t.Helper()
	require.NoError(h.t, h.proc.ConsumeLogs(context.Background(), batch(service, source, instants...)))
}

func batch(service, source string, instants ...int) plog.Logs {
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", service)
	rl.Resource().Attributes().PutStr("k8s.node.name", source)
	recs := rl.ScopeLogs().AppendEmpty().LogRecords()
	for _, ms := range instants {
		lr := recs.AppendEmpty()
		lr.SetTimestamp(pcommon.NewTimestampFromTime(base.Add(time.Duration(ms) * time.Millisecond)))
		lr.Body().SetStr(fmt.Sprintf("%s@%d", source, ms))
	}
	return ld
}

// open starts the group of service with the sources: each sends a record at instant 0 every
// half idle_timeout until the group's first max_delay (when only max_delay releases) is
// over. The test's records come after those.
func (h *harness) open(service string, sources ...string) {
	h.t.Helper()
	step := min(h.p.cfg.IdleTimeout/2, h.p.cfg.MaxDelay)
	for elapsed := time.Duration(0); ; elapsed += step {
		for _, src := range sources {
			h.send(service, src, 0)
			h.seen++
		}
		if elapsed >= h.p.cfg.MaxDelay {
			h.tick() // the first max_delay is over: every watermark is at 0
			break
		}
		h.clock.advance(step)
		h.tick()
	}
	require.Len(h.t, h.delivered(), 0)
}

// tick runs the release timer's work once at the clock's time.
func (h *harness) tick() { h.p.tick() }

// delivered waits until nothing released waits for the sink, and returns the bodies the sink
// accepted, in order, after those of open.
func (h *harness) delivered() []string {
	h.t.Helper()
	testkit.WaitUntil(h.t, testkit.Timeout, "the released records to be delivered", func() bool {
		return h.p.queue.records() == 0
	})
	return h.sink.Bodies()[h.seen:]
}

// held is the number of records waiting in the merge windows.
func (h *harness) held() int {
	h.p.mu.Lock()
	defer h.p.mu.Unlock()
	n := 0
	for _, g := range h.p.groups {
		n += g.window.Len()
	}
	return n
}

// sum adds up a counter's data points (0 if it was never recorded).
func (h *harness) sum(name string) int64 {
	m, err := h.tel.GetMetric("otelcol_processor_mergelog_" + name)
	if err != nil {
		return 0
	}
	var total int64
	if s, ok := m.Data.(metricdata.Sum[int64]); ok {
		for _, dp := range s.DataPoints {
			total += dp.Value
		}
	}
	return total
}

// bodies builds the bodies send gives: "source@instant" for each "source@instant" word.
func bodies(words string) []string { return strings.Fields(words) }
