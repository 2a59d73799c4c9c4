package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"

	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// telemetry records the processor's counts; each call adds one value per instrument it moves,
// per release or batch, not per record.
type telemetry struct {
	b *metadata.TelemetryBuilder
	// records_dropped's class attribute: a refusal's class, or shutdown.
	dropped  [refusal.Other + 1]metric.MeasurementOption
	shutdown metric.MeasurementOption
}

func newTelemetry(set component.TelemetrySettings) (*telemetry, error) {
	b, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	t := &telemetry{b: b, shutdown: classAttr("shutdown")}
	for c := range t.dropped {
		t.dropped[c] = classAttr(refusal.Class(c).String())
	}
	return t, nil
}

func classAttr(class string) metric.MeasurementOption {
	return metric.WithAttributeSet(attribute.NewSet(attribute.String(metadata.AttributeClass, class)))
}

func (t *telemetry) held(n int) {
	if n != 0 {
		t.b.ProcessorMergelogRecordsHeld.Add(context.Background(), int64(n))
	}
}

// released records one release: released records (early of them for max_held), late ones,
// and the longest hold (-1 if nothing went).
func (t *telemetry) released(released, early int, late, longest int64) {
	ctx := context.Background()
	t.held(-released)
	if early > 0 {
		t.b.ProcessorMergelogRecordsReleasedEarly.Add(ctx, int64(early))
	}
	if late > 0 {
		t.b.ProcessorMergelogRecordsLate.Add(ctx, late)
	}
	if longest >= 0 {
		t.b.ProcessorMergelogHoldDuration.Record(ctx, time.Duration(longest).Seconds())
	}
}

func (t *telemetry) replayed(n int) {
	t.b.ProcessorMergelogRecordsReplayed.Add(context.Background(), int64(n))
}

// droppedAtShutdown counts records still held at shutdown without storage.
func (t *telemetry) droppedAtShutdown(n int) {
	t.b.ProcessorMergelogRecordsDropped.Add(context.Background(), int64(n), t.shutdown)
}

// Refused is a refusal.Observer's: the processor counts no refused calls (the exporter after
// it counts its failures), only what they lead to.
func (t *telemetry) Refused(context.Context, refusal.Class) {}

// Retrying counts one wait before a batch is sent again (refusal.Observer).
func (t *telemetry) Retrying(ctx context.Context) {
	t.b.ProcessorMergelogConsumeRetries.Add(ctx, 1)
}

// Dropped counts records dropped for a refusal of class c (refusal.Observer).
func (t *telemetry) Dropped(ctx context.Context, n int, c refusal.Class) {
	t.b.ProcessorMergelogRecordsDropped.Add(ctx, int64(n), t.dropped[c])
}

func (t *telemetry) sourcesIdle(n int) {
	if n > 0 {
		t.b.ProcessorMergelogSourcesIdle.Add(context.Background(), int64(n))
	}
}
