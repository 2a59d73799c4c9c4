package metadata // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"

import (
	"errors"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric"
)

// AttributeClass is on ProcessorMergelogRecordsDropped: the class of the refusal (size, auth,
// data, other), or shutdown.
const AttributeClass = "class"

// Meter returns the meter of the processor's internal telemetry.
func Meter(settings component.TelemetrySettings) metric.Meter {
	return settings.MeterProvider.Meter(ScopeName)
}

// TelemetryBuilder holds the processor's instruments, as listed in metadata.yaml.
type TelemetryBuilder struct {
	ProcessorMergelogRecordsHeld          metric.Int64UpDownCounter
	ProcessorMergelogRecordsLate          metric.Int64Counter
	ProcessorMergelogRecordsReleasedEarly metric.Int64Counter
	ProcessorMergelogRecordsReplayed      metric.Int64Counter
	ProcessorMergelogRecordsDropped       metric.Int64Counter
	ProcessorMergelogConsumeRetries       metric.Int64Counter
	ProcessorMergelogSourcesIdle          metric.Int64Counter
	ProcessorMergelogHoldDuration         metric.Float64Histogram
}

// NewTelemetryBuilder creates every instrument.
func NewTelemetryBuilder(settings component.TelemetrySettings) (*TelemetryBuilder, error) {
	m := Meter(settings)
	b := TelemetryBuilder{}
	var err, errs error
	b.ProcessorMergelogRecordsHeld, err = m.Int64UpDownCounter(
		"otelcol_processor_mergelog_records_held",
		metric.WithDescription("Records waiting in the merge windows for their turn. [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogRecordsLate, err = m.Int64Counter(
		"otelcol_processor_mergelog_records_late",
		metric.WithDescription("Records released after records of their merge key at later instants had gone out (released at once, never dropped). [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogRecordsReleasedEarly, err = m.Int64Counter(
		"otelcol_processor_mergelog_records_released_early",
		metric.WithDescription("Records released before their turn because their merge key held max_held records. [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogRecordsReplayed, err = m.Int64Counter(
		"otelcol_processor_mergelog_records_replayed",
		metric.WithDescription("Records read back from the storage extension at start (held or unacknowledged when the last run stopped). [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogRecordsDropped, err = m.Int64Counter(
		"otelcol_processor_mergelog_records_dropped",
		metric.WithDescription("Records dropped because the next consumer refused them for good (as on_refusal says), or still held at shutdown without storage and not delivered, by class (a refusal's, or shutdown). [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogConsumeRetries, err = m.Int64Counter(
		"otelcol_processor_mergelog_consume_retries",
		metric.WithDescription("Released batches sent to the next consumer again after a retryable error. [Alpha]"),
		metric.WithUnit("{batch}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogSourcesIdle, err = m.Int64Counter(
		"otelcol_processor_mergelog_sources_idle",
		metric.WithDescription("Sources that sent nothing for idle_timeout and stopped holding back the other sources of their merge key. [Alpha]"),
		metric.WithUnit("{source}"),
	)
	errs = errors.Join(errs, err)
	b.ProcessorMergelogHoldDuration, err = m.Float64Histogram(
		"otelcol_processor_mergelog_hold_duration",
		metric.WithDescription("Longest time a record released in one go waited in its merge window (one value per release). [Alpha]"),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
	)
	errs = errors.Join(errs, err)
	return &b, errs
}
