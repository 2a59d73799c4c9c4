package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/processor"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// NewFactory returns a factory for the mergelog processor.
func NewFactory() processor.Factory {
	return processor.NewFactory(metadata.Type, createDefaultConfig,
		processor.WithLogs(createLogsProcessor, metadata.LogsStability))
}

func createDefaultConfig() component.Config {
	return &Config{
		MergeKey:         []string{"service.name"},
		SourceAttributes: []string{"k8s.node.name", "host.name"},
		// A few seconds: what agents that batch for 200 ms and retry briefly need to catch up.
		MaxDelay: 5 * time.Second,
		// Agents with merge on send at least every batch timeout while they read anything; a
		// source quiet ten times that long is more likely gone than slow.
		IdleTimeout:     2 * time.Second,
		ReleaseInterval: 100 * time.Millisecond,
		MaxHeld:         100_000,
		OnRefusal:       refusal.DefaultPolicy(),
	}
}

func createLogsProcessor(
	_ context.Context,
	set processor.Settings,
	cfg component.Config,
	next consumer.Logs,
) (processor.Logs, error) {
	p, err := newMergelogProcessor(set, cfg.(*Config), next)
	if err != nil {
		return nil, err
	}
	return p.asProcessor(set)
}
