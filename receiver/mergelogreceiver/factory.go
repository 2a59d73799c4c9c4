// Package mergelogreceiver reads log files into the collector as file_log does, joining
// multiline entries fast, optionally merging all files by timestamp, and advancing its
// checkpoints only for data the next consumer accepted. See README.md.
package mergelogreceiver // import "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// NewFactory returns the factory of the mergelog receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type, createDefaultConfig,
		receiver.WithLogs(createLogs, metadata.LogsStability))
}

func createLogs(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
	return newReceiver(set, cfg.(*Config), next)
}
