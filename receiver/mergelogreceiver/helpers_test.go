package mergelogreceiver

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/extension/xextension/storage"
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

// memStorage is an in-memory storage extension and client. With frozen set, Set pretends to
// succeed and stores nothing, as if the process had died before the write.
type memStorage struct {
	component.StartFunc
	component.ShutdownFunc
	mu     sync.Mutex
	data   map[string][]byte
	sets   int
	bytes  int // value bytes handed to Set
	frozen bool
}

var _ storage.Extension = (*memStorage)(nil)

func newMemStorage() *memStorage { return &memStorage{data: map[string][]byte{}} }

func (m *memStorage) GetClient(context.Context, component.Kind, component.ID, string) (storage.Client, error) {
	return m, nil
}

func (m *memStorage) Get(_ context.Context, key string) ([]byte, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.data[key], nil
}

func (m *memStorage) Set(_ context.Context, key string, value []byte) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.frozen {
		m.data[key] = append([]byte(nil), value...)
		m.sets++
		m.bytes += len(value)
	}
	return nil
}

func (m *memStorage) Delete(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.data, key)
	return nil
}

func (m *memStorage) Batch(ctx context.Context, ops ...*storage.Operation) error {
	for _, op := range ops {
		var err error
		switch op.Type {
		case storage.Get:
			op.Value, err = m.Get(ctx, op.Key)
		case storage.Set:
			err = m.Set(ctx, op.Key, op.Value)
		case storage.Delete:
			err = m.Delete(ctx, op.Key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (m *memStorage) Close(context.Context) error { return nil }

func (m *memStorage) setCount() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sets
}

func (m *memStorage) freeze() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.frozen = true
}

var storageID = component.MustNewIDWithName("mem_storage", "test")

// storageHost offers one storage extension.
type storageHost struct {
	component.Host
	ext *memStorage
}

func (h storageHost) GetExtensions() map[component.ID]component.Component {
	return map[component.ID]component.Component{storageID: h.ext}
}

func withStorage(cfg *Config, m *memStorage) (*Config, component.Host) {
	id := storageID
	cfg.StorageID = &id
	return cfg, storageHost{Host: componenttest.NewNopHost(), ext: m}
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
