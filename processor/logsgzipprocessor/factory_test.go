package logsgzipprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit/componentkit"
	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

func TestLifecycle(t *testing.T) {
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), createDefaultConfig(), sink)
	require.NoError(t, err)
	assert.True(t, p.Capabilities().MutatesData)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))

	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("resource", "R1")
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.Body().SetStr("test log message")
	require.NoError(t, p.ConsumeLogs(context.Background(), ld))

	require.Len(t, sink.AllLogs(), 1)
	got := sink.AllLogs()[0].ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(0).Body()
	require.Equal(t, pcommon.ValueTypeBytes, got.Type())
	assert.Equal(t, "test log message", gunzip(t, got.Bytes().AsRaw()))

	require.NoError(t, p.Shutdown(context.Background()))
}

func TestFactory(t *testing.T) {
	componentkit.CheckLogsProcessorFactory(t, NewFactory(), "logsgzip", component.StabilityLevelAlpha)
}
