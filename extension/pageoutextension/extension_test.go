package pageoutextension

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/extension/extensioncapabilities"
	"go.opentelemetry.io/collector/extension/extensiontest"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/mergelog/otelcol-mergelog/extension/pageoutextension/internal/metadata"
)

// start creates the extension from the factory with delay, its logs observed, and starts it.
func start(t *testing.T, delay time.Duration) (*pageout, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zap.InfoLevel)
	set := extensiontest.NewNopSettings(metadata.Type)
	set.Logger = zap.New(core)
	ext, err := NewFactory().Create(context.Background(), set, &Config{Delay: delay})
	require.NoError(t, err)
	require.NoError(t, ext.Start(context.Background(), componenttest.NewNopHost()))
	require.Implements(t, (*extensioncapabilities.PipelineWatcher)(nil), ext)
	return ext.(*pageout), logs
}

// A page-out still waiting when the collector shuts down does not happen.
func TestShutdownCancelsAWaitingPageOut(t *testing.T) {
	p, logs := start(t, time.Hour)
	require.NoError(t, p.Ready())
	require.NoError(t, p.NotReady())
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Zero(t, logs.Len(), "the page-out ran: it logs whatever it does")
}

// A second Shutdown returns as the first did, and a Ready after Shutdown starts nothing.
func TestShutdownTwiceThenReady(t *testing.T) {
	p, logs := start(t, time.Hour)
	require.NoError(t, p.Ready())
	require.NoError(t, p.Shutdown(context.Background()))
	require.NoError(t, p.Shutdown(context.Background()))
	q, _ := start(t, 0)
	require.NoError(t, q.Shutdown(context.Background()))
	require.NoError(t, q.Ready())
	require.NoError(t, q.Shutdown(context.Background()))
	assert.Nil(t, q.timer, "Ready after Shutdown started a page-out")
	assert.Zero(t, logs.Len())
}

// Shut down before the pipelines were ever ready: nothing to cancel.
func TestShutdownBeforeReady(t *testing.T) {
	p, logs := start(t, 0)
	require.NoError(t, p.Shutdown(context.Background()))
	assert.Zero(t, logs.Len())
}
