package mergelogprocessor // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/component"

	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

// telemetry records the processor's counts; each call adds one value per instrument it moves,
// per release or batch, not per record.
type telemetry struct {
	b *metadata.TelemetryBuilder
}

func newTelemetry(set component.TelemetrySettings) (*telemetry, error) {
	b, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	return &telemetry{b: b}, nil
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

func (t *telemetry) dropped(n int) {
	t.b.ProcessorMergelogRecordsDropped.Add(context.Background(), int64(n))
}

func (t *telemetry) retry() {
	t.b.ProcessorMergelogConsumeRetries.Add(context.Background(), 1)
}

func (t *telemetry) sourcesIdle(n int) {
	if n > 0 {
		t.b.ProcessorMergelogSourcesIdle.Add(context.Background(), int64(n))
	}
}
