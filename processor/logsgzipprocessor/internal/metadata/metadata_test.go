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
	// One value on each instrument, with the attributes the processor records it with.
	ctx := context.Background()
	tb.ProcessorLogsgzipRecordsCompressed.Add(ctx, 1)
	tb.ProcessorLogsgzipRecordsSkipped.Add(ctx, 1, metric.WithAttributes(attribute.String(AttributeReason, "empty")))
	tb.ProcessorLogsgzipBytesIn.Add(ctx, 1)
	tb.ProcessorLogsgzipBytesOut.Add(ctx, 1)
	metadatatest.CheckTelemetry(t, md, tb, reader, ScopeName)

	metadatatest.CheckREADME(t, md, "../../README.md")
}
