package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import (
	"context"
	"errors"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
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

// telemetry holds the processor's internal metrics, as mdatagen's
// TelemetryBuilder would (see metadata.yaml).
type telemetry struct {
	recordsCompressed metric.Int64Counter
	recordsSkipped    metric.Int64Counter
	bytesIn           metric.Int64Counter
	bytesOut          metric.Int64Counter
	// Built once so that recording does not allocate attribute sets per batch.
	reasonOpts [numReasons][]metric.AddOption
}

func newTelemetry(set component.TelemetrySettings) (*telemetry, error) {
	meter := set.MeterProvider.Meter(scopeName)
	t := &telemetry{}
	var err, errs error
	t.recordsCompressed, err = meter.Int64Counter("otelcol_processor_logsgzip_records_compressed",
		metric.WithDescription("Number of log records whose body was gzip-compressed. [Development]"),
		metric.WithUnit("{record}"))
	errs = errors.Join(errs, err)
	t.recordsSkipped, err = meter.Int64Counter("otelcol_processor_logsgzip_records_skipped",
		metric.WithDescription("Number of log records left unchanged, by reason. [Development]"),
		metric.WithUnit("{record}"))
	errs = errors.Join(errs, err)
	t.bytesIn, err = meter.Int64Counter("otelcol_processor_logsgzip_bytes_in",
		metric.WithDescription("Uncompressed size of the bodies that were compressed. [Development]"),
		metric.WithUnit("By"))
	errs = errors.Join(errs, err)
	t.bytesOut, err = meter.Int64Counter("otelcol_processor_logsgzip_bytes_out",
		metric.WithDescription("Compressed size of the bodies that were compressed. [Development]"),
		metric.WithUnit("By"))
	errs = errors.Join(errs, err)
	for r := range numReasons {
		t.reasonOpts[r] = []metric.AddOption{
			metric.WithAttributeSet(attribute.NewSet(attribute.String("reason", reasonNames[r]))),
		}
	}
	return t, errs
}

func (t *telemetry) record(ctx context.Context, s *batchStats) {
	if s.compressed > 0 {
		t.recordsCompressed.Add(ctx, s.compressed)
		t.bytesIn.Add(ctx, s.bytesIn)
		t.bytesOut.Add(ctx, s.bytesOut)
	}
	for r, n := range s.skipped {
		if n > 0 {
			t.recordsSkipped.Add(ctx, n, t.reasonOpts[r]...)
		}
	}
}
