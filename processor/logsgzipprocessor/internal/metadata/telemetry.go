package metadata // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"

import (
	"errors"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric"
)

// AttributeReason is the key of the attribute of ProcessorLogsgzipRecordsSkipped that says why a
// record was left unchanged (see metadata.yaml for its values).
const AttributeReason = "reason"

// Meter returns the meter of the processor's internal telemetry.
func Meter(settings component.TelemetrySettings) metric.Meter {
	return settings.MeterProvider.Meter(ScopeName)
}

// TelemetryBuilder holds the processor's instruments, as listed in metadata.yaml.
type TelemetryBuilder struct {
	ProcessorLogsgzipRecordsCompressed metric.Int64Counter
	ProcessorLogsgzipRecordsSkipped    metric.Int64Counter
	ProcessorLogsgzipBytesIn           metric.Int64Counter
	ProcessorLogsgzipBytesOut          metric.Int64Counter
}

// NewTelemetryBuilder creates every instrument.
func NewTelemetryBuilder(settings component.TelemetrySettings) (*TelemetryBuilder, error) {
	m := Meter(settings)
	b := TelemetryBuilder{}
	var err, errs error
	b.ProcessorLogsgzipRecordsCompressed, err = m.Int64Counter(
		"otelcol_processor_logsgzip_records_compressed",
		metric.WithDescription("Number of log records whose body was gzip-compressed. [Development]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorLogsgzipRecordsSkipped, err = m.Int64Counter(
		"otelcol_processor_logsgzip_records_skipped",
		metric.WithDescription("Number of log records left unchanged, by reason. [Development]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorLogsgzipBytesIn, err = m.Int64Counter(
		"otelcol_processor_logsgzip_bytes_in",
		metric.WithDescription("Uncompressed size of the bodies that were compressed. [Development]"),
		metric.WithUnit("By"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorLogsgzipBytesOut, err = m.Int64Counter(
		"otelcol_processor_logsgzip_bytes_out",
		metric.WithDescription("Compressed size of the bodies that were compressed. [Development]"),
		metric.WithUnit("By"),
	)
	errs = errors.Join(errs, err)
	return &b, errs
}
