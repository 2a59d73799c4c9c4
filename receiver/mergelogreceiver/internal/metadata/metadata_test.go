package metadata

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/metadatatest"
)

// TestMetadata checks this package and the README's telemetry table against metadata.yaml.
func TestMetadata(t *testing.T) {
	md := metadatatest.Read(t, "../../metadata.yaml")
	metadatatest.CheckStatus(t, md, Type, "logs", LogsStability)

	set, reader := metadatatest.Telemetry()
	tb, err := NewTelemetryBuilder(set)
	if err != nil {
		t.Fatal(err)
	}
	// One value on each instrument, with the attributes the receiver records it with (its
	// telemetry.go): the receiver's ID on every one, and permanent on consume errors.
	ctx := context.Background()
	self := attribute.String(AttributeReceiver, "mergelog/test")
	opt := metric.WithAttributes(self)
	tb.ReceiverMergelogFilesOpen.Record(ctx, 1, opt)
	tb.ReceiverMergelogBytesRead.Add(ctx, 1, opt)
	tb.ReceiverMergelogBytesLost.Add(ctx, 1, opt)
	tb.ReceiverMergelogCheckpointCorrupt.Add(ctx, 1, opt)
	tb.ReceiverMergelogRecordsEmitted.Add(ctx, 1, opt)
	tb.ReceiverMergelogEntriesUntimed.Add(ctx, 1, opt)
	tb.ReceiverMergelogPartialsCut.Add(ctx, 1, opt)
	tb.ReceiverMergelogSplitLinesUnjoined.Add(ctx, 1, opt)
	tb.ReceiverMergelogEntriesLate.Add(ctx, 1, opt)
	tb.ReceiverMergelogConsumeErrors.Add(ctx, 1, metric.WithAttributes(self, attribute.Bool(AttributePermanent, true)))
	tb.ReceiverMergelogConsumeRetries.Add(ctx, 1, opt)
	tb.ReceiverMergelogMergeHoldDuration.Record(ctx, 0.5, opt)
	tb.ReceiverMergelogOperatorErrors.Add(ctx, 1, opt)
	tb.ReceiverMergelogRecordsDropped.Add(ctx, 1, metric.WithAttributes(self, attribute.String(AttributeClass, "data")))
	metadatatest.CheckTelemetry(t, md, tb, reader, ScopeName)

	metadatatest.CheckREADME(t, md, "../../README.md")
}
