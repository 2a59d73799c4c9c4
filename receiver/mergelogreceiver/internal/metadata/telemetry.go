package metadata

import (
	"errors"

	"go.opentelemetry.io/otel/metric"

	"go.opentelemetry.io/collector/component"
)

// Attribute keys of the receiver's metrics, as metadata.yaml lists them.
const (
	// AttributeReceiver is on every metric: the receiver's component ID, as on the collector's
	// own receiver metrics, so that two mergelog receivers are told apart.
	AttributeReceiver = "receiver"
	// AttributePermanent is on ReceiverMergelogConsumeErrors: whether the next consumer's error
	// was permanent.
	AttributePermanent = "permanent"
	// AttributeClass is on ReceiverMergelogRecordsDropped: the class of the refusal (size,
	// auth, data, other).
	AttributeClass = "class"
)

// Meter returns the meter of the receiver's internal telemetry.
func Meter(settings component.TelemetrySettings) metric.Meter {
	return settings.MeterProvider.Meter(ScopeName)
}

// TelemetryBuilder holds the receiver's instruments, as listed in metadata.yaml.
type TelemetryBuilder struct {
	ReceiverMergelogFilesOpen          metric.Int64Gauge
	ReceiverMergelogBytesRead          metric.Int64Counter
	ReceiverMergelogBytesLost          metric.Int64Counter
	ReceiverMergelogCheckpointCorrupt  metric.Int64Counter
	ReceiverMergelogRecordsEmitted     metric.Int64Counter
	ReceiverMergelogEntriesUntimed     metric.Int64Counter
	ReceiverMergelogPartialsCut        metric.Int64Counter
	ReceiverMergelogSplitLinesUnjoined metric.Int64Counter
	ReceiverMergelogEntriesLate        metric.Int64Counter
	ReceiverMergelogConsumeErrors      metric.Int64Counter
	ReceiverMergelogConsumeRetries     metric.Int64Counter
	ReceiverMergelogMergeHoldDuration  metric.Float64Histogram
	ReceiverMergelogOperatorErrors     metric.Int64Counter
	ReceiverMergelogRecordsDropped     metric.Int64Counter
}

// NewTelemetryBuilder creates every instrument.
func NewTelemetryBuilder(settings component.TelemetrySettings) (*TelemetryBuilder, error) {
	m := Meter(settings)
	b := TelemetryBuilder{}
	var err, errs error
	b.ReceiverMergelogFilesOpen, err = m.Int64Gauge(
		"otelcol_receiver_mergelog_files_open",
		metric.WithDescription("Number of files the receiver holds open [Alpha]"),
		metric.WithUnit("{file}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogBytesRead, err = m.Int64Counter(
		"otelcol_receiver_mergelog_bytes_read",
		metric.WithDescription("Bytes of (decompressed) file content read [Alpha]"),
		metric.WithUnit("By"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogBytesLost, err = m.Int64Counter(
		"otelcol_receiver_mergelog_bytes_lost",
		metric.WithDescription("Bytes of files that went away, or were closed to bound the disk space of deleted files (max_deleted_bytes), before they were read to their end (compressed bytes for a compressed file); each loss is logged, naming the file [Alpha]"),
		metric.WithUnit("By"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogCheckpointCorrupt, err = m.Int64Counter(
		"otelcol_receiver_mergelog_checkpoint_corrupt",
		metric.WithDescription("Checkpoint keys that could not be decoded at start, left out with on_corrupt_checkpoint start_over (the files they described are read as files never seen); each is logged, naming the key [Alpha]"),
		metric.WithUnit("{key}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogRecordsEmitted, err = m.Int64Counter(
		"otelcol_receiver_mergelog_records_emitted",
		metric.WithDescription("Log records built from entries and handed to the next consumer [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogEntriesUntimed, err = m.Int64Counter(
		"otelcol_receiver_mergelog_entries_untimed",
		metric.WithDescription("Entries in which the configured timestamp was not found [Alpha]"),
		metric.WithUnit("{entry}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogPartialsCut, err = m.Int64Counter(
		"otelcol_receiver_mergelog_partials_cut",
		metric.WithDescription("Unfinished entries (a multiline entry being joined, the pieces of a split line) emitted as they were because the entries not finished across all files held more than max_partial_bytes; each is logged, naming the file [Alpha]"),
		metric.WithUnit("{entry}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogSplitLinesUnjoined, err = m.Int64Counter(
		"otelcol_receiver_mergelog_split_lines_unjoined",
		metric.WithDescription("Lines a container runtime split whose rest did not come within split_line_wait (nor in the next file of the container stream), emitted as they are [Alpha]"),
		metric.WithUnit("{line}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogEntriesLate, err = m.Int64Counter(
		"otelcol_receiver_mergelog_entries_late",
		metric.WithDescription("Entries the merge released after entries at later instants (out of order) [Alpha]"),
		metric.WithUnit("{entry}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogConsumeErrors, err = m.Int64Counter(
		"otelcol_receiver_mergelog_consume_errors",
		metric.WithDescription("Batches the next consumer refused, by whether the error was permanent [Alpha]"),
		metric.WithUnit("{batch}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogConsumeRetries, err = m.Int64Counter(
		"otelcol_receiver_mergelog_consume_retries",
		metric.WithDescription("Retries of batches refused with a retryable error [Alpha]"),
		metric.WithUnit("{retry}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogMergeHoldDuration, err = m.Float64Histogram(
		"otelcol_receiver_mergelog_merge_hold_duration",
		metric.WithDescription("Longest time an entry released in one go waited in the merge window (one value per release) [Alpha]"),
		metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogOperatorErrors, err = m.Int64Counter(
		"otelcol_receiver_mergelog_operator_errors",
		metric.WithDescription("Entries an operator failed to process, handled by its on_error (sent on or dropped) [Alpha]"),
		metric.WithUnit("{entry}"),
	)
	errs = errors.Join(errs, err)
	b.ReceiverMergelogRecordsDropped, err = m.Int64Counter(
		"otelcol_receiver_mergelog_records_dropped",
		metric.WithDescription("Records dropped because the next consumer refused them for good (as on_refusal says), by the class of the refusal; each is logged with its file and offset [Alpha]"),
		metric.WithUnit("{record}"),
	)
	errs = errors.Join(errs, err)
	return &b, errs
}
