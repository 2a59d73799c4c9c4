package mergelogreceiver

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// settle is how long a test watches for what must not happen (a record twice, a report
// again): 25 polls of testConfig, long enough for it to show, on any machine, if it would.
const settle = 250 * time.Millisecond

// testConfig reads dir/*.log from the beginning, with short intervals so tests run fast.
func testConfig(dir string) *Config {
	cfg := createDefaultConfig().(*Config)
	cfg.Include = []string{filepath.Join(dir, "*.log")}
	cfg.StartAt = StartAtBeginning
	cfg.PollInterval = 10 * time.Millisecond
	cfg.ForceFlushPeriod = 50 * time.Millisecond
	cfg.Batch.Timeout = 10 * time.Millisecond
	cfg.RetryOnFailure = RetryConfig{InitialInterval: time.Millisecond, MaxInterval: 5 * time.Millisecond}
	// One batch at a time, so that tests see batches in reading order; TestInFlight* and the
	// e2e suite run several in flight.
	cfg.Batch.MaxInFlight = 1
	return cfg
}

// startReceiver starts a receiver and shuts it down at the end of the test, if the test did not.
func startReceiver(t *testing.T, cfg *Config, next consumer.Logs, host component.Host) receiver.Logs {
	t.Helper()
	return startWith(t, receivertest.NewNopSettings(metadata.Type), cfg, next, host)
}

func startWith(t *testing.T, set receiver.Settings, cfg *Config, next consumer.Logs, host component.Host) receiver.Logs {
	t.Helper()
	require.NoError(t, confmap.Validate(cfg)) // every section, as the collector validates
	if host == nil {
		host = componenttest.NewNopHost()
	}
	r, err := NewFactory().CreateLogs(context.Background(), set, cfg, next)
	require.NoError(t, err)
	require.NoError(t, r.Start(context.Background(), host))
	t.Cleanup(func() { assert.NoError(t, r.Shutdown(context.Background())) })
	return r
}

// shutdownSoon stops r as a crash would, with a deadline its drain cannot meet: a batch held
// or refused never lands, however slow the machine, so the length only bounds the test.
func shutdownSoon(t *testing.T, r interface{ Shutdown(context.Context) error }) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, r.Shutdown(ctx))
}

var storageID = component.MustNewIDWithName("mem_storage", "test")

func withStorage(cfg *Config, m *testkit.MemStorage) (*Config, component.Host) {
	id := storageID
	cfg.StorageID = &id
	return cfg, testkit.HostWith(storageID, m)
}

// telemetry collects the receiver's internal metrics.
type telemetry struct{ *componenttest.Telemetry }

func componenttestTelemetry(t *testing.T) telemetry {
	tt := componenttest.NewTelemetry()
	t.Cleanup(func() { assert.NoError(t, tt.Shutdown(context.Background())) })
	return telemetry{tt}
}

func (tt telemetry) settings() receiver.Settings {
	set := receivertest.NewNopSettings(metadata.Type)
	set.TelemetrySettings = tt.NewTelemetrySettings()
	return set
}

// sum adds up an integer counter's data points (0 if it was never recorded).
func (tt telemetry) sum(name string, match func(attribute.Set) bool) int64 {
	m, err := tt.GetMetric(name)
	if err != nil {
		return 0
	}
	var total int64
	if s, ok := m.Data.(metricdata.Sum[int64]); ok {
		for _, dp := range s.DataPoints {
			if match == nil || match(dp.Attributes) {
				total += dp.Value
			}
		}
	}
	return total
}

func (tt telemetry) waitSum(t *testing.T, name string, atLeast int64) {
	t.Helper()
	require.Eventually(t, func() bool { return tt.sum(name, nil) >= atLeast }, testkit.Timeout, 5*time.Millisecond,
		"%s reaches %d", name, atLeast)
}

// assertSameLines checks that got holds exactly the lines of want, in any order (sorting
// first: ElementsMatch is quadratic).
func assertSameLines(t *testing.T, want, got []string, msgAndArgs ...any) {
	t.Helper()
	w, g := slices.Clone(want), slices.Clone(got)
	slices.Sort(w)
	slices.Sort(g)
	assert.Equal(t, w, g, msgAndArgs...)
}
