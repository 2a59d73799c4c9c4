package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

// skipReason says why a record's body was left unchanged; it is the value of
// the "reason" attribute on otelcol_processor_logsgzip_records_skipped.
type skipReason int

const (
	reasonEmpty       skipReason = iota // no body, or a zero-length one
	reasonAlreadyGzip                   // body starts with the gzip magic 1f 8b
	reasonTooSmall                      // shorter than min_size
	reasonStructured                    // Map or Slice body with structured_bodies: keep
	reasonScalar                        // Int, Double or Bool body: gzip would only grow it
	reasonError                         // compression failed; the record goes on unchanged
	numReasons
)

var reasonNames = [numReasons]string{
	reasonEmpty:       "empty",
	reasonAlreadyGzip: "already_gzip",
	reasonTooSmall:    "too_small",
	reasonStructured:  "structured",
	reasonScalar:      "scalar",
	reasonError:       "error",
}

// batchStats are counted locally by each worker and added to the instruments
// once per batch, so workers never contend on shared counters.
type batchStats struct {
	compressed int64
	skipped    [numReasons]int64
	bytesIn    int64
	bytesOut   int64
}

func (s *batchStats) add(o *batchStats) {
	s.compressed += o.compressed
	for i := range s.skipped {
		s.skipped[i] += o.skipped[i]
	}
	s.bytesIn += o.bytesIn
	s.bytesOut += o.bytesOut
}

// telemetry hands the batches' counts to the processor's instruments.
type telemetry struct {
	builder *metadata.TelemetryBuilder
	// Built once so that recording does not allocate attribute sets per batch.
	reasonOpts [numReasons][]metric.AddOption
}

func newTelemetry(set component.TelemetrySettings) (*telemetry, error) {
	builder, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	t := &telemetry{builder: builder}
	for r := range numReasons {
		t.reasonOpts[r] = []metric.AddOption{
			metric.WithAttributeSet(attribute.NewSet(attribute.String(metadata.AttributeReason, reasonNames[r]))),
		}
	}
	return t, nil
}

func (t *telemetry) record(ctx context.Context, s *batchStats) {
	if s.compressed > 0 {
		t.builder.ProcessorLogsgzipRecordsCompressed.Add(ctx, s.compressed)
		t.builder.ProcessorLogsgzipBytesIn.Add(ctx, s.bytesIn)
		t.builder.ProcessorLogsgzipBytesOut.Add(ctx, s.bytesOut)
	}
	for r, n := range s.skipped {
		if n > 0 {
			t.builder.ProcessorLogsgzipRecordsSkipped.Add(ctx, n, t.reasonOpts[r]...)
		}
	}
}
