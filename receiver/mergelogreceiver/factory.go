// Package mergelogreceiver tails log files (plain or compressed, across rotation) into the
// collector, joining multiline entries, optionally merging all files by timestamp, and
// advancing its checkpoints only for data the next consumer accepted. See README.md.
package mergelogreceiver // import "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// NewFactory returns the factory of the mergelog receiver.
func NewFactory() receiver.Factory {
	return receiver.NewFactory(metadata.Type, createDefaultConfig,
		receiver.WithLogs(createLogs, metadata.LogsStability))
}

func createDefaultConfig() component.Config {
	return &Config{
		StartAt:            StartAtEnd,
		PollInterval:       200 * time.Millisecond,
		FingerprintSize:    1000,
		MaxLogSize:         1 << 20,
		MaxLogSizeBehavior: BehaviorSplit,
		MaxConcurrentFiles: 1024,
		MaxDeletedBytes:    1 << 30,
		Encoding:           EncodingUTF8,
		OnTruncate:         OnTruncateIgnore,
		ForceFlushPeriod:   500 * time.Millisecond,
		IncludeFileName:    true,
		Compression:        CompressionAuto,
		Format:             FormatText,
		SplitLineWait:      5 * time.Second,
		Merge:              MergeConfig{Window: 2 * time.Second, MaxHeldPerFile: 10000},
		Batch:              BatchConfig{MaxRecords: 1000, MaxBytes: defaultMaxBytes, Timeout: 200 * time.Millisecond, MaxInFlight: 4},
		Watch:              WatchConfig{Enabled: true, FullScanInterval: 10 * time.Second},
		RetryOnFailure:     RetryConfig{InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second},
		OnRefusal:          refusal.DefaultPolicy(),

		// A checkpoint that cannot be decoded must not keep a DaemonSet's pod restarting.
		OnCorruptCheckpoint: CorruptCheckpointStartOver,
		MaxPartialBytes:     32 << 20,
	}
}

func createLogs(_ context.Context, set receiver.Settings, cfg component.Config, next consumer.Logs) (receiver.Logs, error) {
	return newReceiver(set, cfg.(*Config), next)
}
