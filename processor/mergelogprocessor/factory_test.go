package mergelogprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
	"github.com/mergelog/otelcol-mergelog/internal/testkit/componentkit"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// Through the factory with the real clock and release timer: a record goes out within
// max_delay and a tick, and shutdown delivers what is held.
func TestLifecycle(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.MaxDelay = 50 * time.Millisecond
	cfg.ReleaseInterval = 10 * time.Millisecond
	sink := &testkit.LogsSink{}
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, sink)
	require.NoError(t, err)
	assert.True(t, p.Capabilities().MutatesData)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))

	require.NoError(t, p.ConsumeLogs(context.Background(), batch("web", "node-a", 10)))
	assert.Equal(t, []string{"node-a@10"}, sink.WaitForBodies(t, 1))

	// node-a's are held while node-b is behind, for max_delay or until shutdown.
	require.NoError(t, p.ConsumeLogs(context.Background(), batch("web", "node-b", 20)))
	require.NoError(t, p.ConsumeLogs(context.Background(), batch("web", "node-a", 30, 40)))
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Equal(t, bodies("node-a@10 node-b@20 node-a@30 node-a@40"), sink.Bodies())
}

func TestStartUnknownStorage(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	id := component.MustNewIDWithName("file_storage", "missing")
	cfg.StorageID = &id
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	err = p.Start(context.Background(), componenttest.NewNopHost())
	assert.ErrorContains(t, err, `storage: extension "file_storage/missing" not found`)
	require.NoError(t, p.Shutdown(context.Background()))

	// An extension that is not a storage extension is named too.
	p, err = NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	require.NoError(t, err)
	notStorage := struct {
		component.StartFunc
		component.ShutdownFunc
	}{}
	err = p.Start(context.Background(), testkit.HostWith(id, notStorage))
	assert.ErrorContains(t, err, `storage: extension "file_storage/missing" is not a storage extension`)
}

// Records that come after shutdown began are refused, not held where nothing would send them.
func TestConsumeAfterShutdownRefused(t *testing.T) {
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, p.Shutdown(context.Background()))
	assert.ErrorIs(t, p.ConsumeLogs(context.Background(), batch("web", "node-a", 10)), errStopping)
}

func TestFactory(t *testing.T) {
	componentkit.CheckLogsProcessorFactory(t, NewFactory(), "mergelog", component.StabilityLevelAlpha)
}
