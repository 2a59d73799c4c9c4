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
	// One value on each instrument; the processor records them without attributes, but for
	// records_dropped's class.
	ctx := context.Background()
	tb.ProcessorMergelogRecordsHeld.Add(ctx, 1)
	tb.ProcessorMergelogRecordsLate.Add(ctx, 1)
	tb.ProcessorMergelogRecordsReleasedEarly.Add(ctx, 1)
	tb.ProcessorMergelogRecordsReplayed.Add(ctx, 1)
	tb.ProcessorMergelogRecordsDropped.Add(ctx, 1, metric.WithAttributes(attribute.String(AttributeClass, "data")))
	tb.ProcessorMergelogConsumeRetries.Add(ctx, 1)
	tb.ProcessorMergelogSourcesIdle.Add(ctx, 1)
	tb.ProcessorMergelogHoldDuration.Record(ctx, 0.5)
	metadatatest.CheckTelemetry(t, md, tb, reader, ScopeName)

	metadatatest.CheckREADME(t, md, "../../README.md")
}
