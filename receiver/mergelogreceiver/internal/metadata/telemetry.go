package metadata // import "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
)

// Telemetry is the receiver's internal metrics.
var Telemetry = metrictable.Table[TelemetryBuilder]{Scope: ScopeName, Stability: metrictable.Alpha, Metrics: []metrictable.Metric{
	{Name: "otelcol_receiver_mergelog_files_open", Kind: metrictable.Gauge, Unit: "{file}", Attributes: byReceiver, Description: "Number of files the receiver holds open"},
	{Name: "otelcol_receiver_mergelog_bytes_read", Kind: metrictable.Counter, Unit: "By", Attributes: byReceiver, Description: "Bytes of (decompressed) file content read"},
	{Name: "otelcol_receiver_mergelog_bytes_lost", Kind: metrictable.Counter, Unit: "By", Attributes: byReceiver, Description: "Bytes of files that went away, or were closed to bound the disk space of deleted files (max_deleted_bytes), before they were read to their end (compressed bytes for a compressed file); each loss is logged, naming the file"},
	{Name: "otelcol_receiver_mergelog_checkpoint_writes", Kind: metrictable.Counter, Unit: "{write}", Attributes: []string{AttributeReceiver, AttributeFailed}, Description: "Writes of the checkpoint to the storage extension (one Batch each: the keys of the files whose offsets moved, and the index when files came or went), by whether the write failed; a failed write is logged, and what it held is written with the next"},
	{Name: "otelcol_receiver_mergelog_read_lag", Kind: metrictable.Gauge, Unit: "s", Attributes: byReceiver, Description: "How long the file that has waited longest has had data not yet read, since the poll that found the data; 0 when every file handed out is read to the end of its data"},
	{Name: "otelcol_receiver_mergelog_checkpoint_corrupt", Kind: metrictable.Counter, Unit: "{key}", Attributes: byReceiver, Description: "Checkpoint keys that could not be decoded at start, left out with on_corrupt_checkpoint start_over (the files they described are read as files never seen); each is logged, naming the key"},
	{Name: "otelcol_receiver_mergelog_records_emitted", Kind: metrictable.Counter, Unit: "{record}", Attributes: byReceiver, Description: "Log records built from entries and handed to the next consumer"},
	{Name: "otelcol_receiver_mergelog_entries_untimed", Kind: metrictable.Counter, Unit: "{entry}", Attributes: byReceiver, Description: "Entries in which the configured timestamp was not found"},
	{Name: "otelcol_receiver_mergelog_partials_cut", Kind: metrictable.Counter, Unit: "{entry}", Attributes: byReceiver, Description: "Unfinished entries (a multiline entry being joined, the pieces of a split line) emitted as they were because the entries not finished across all files held more than max_partial_bytes; each is logged, naming the file"},
	{Name: "otelcol_receiver_mergelog_split_lines_unjoined", Kind: metrictable.Counter, Unit: "{line}", Attributes: byReceiver, Description: "Lines a container runtime split whose rest did not come within split_line_wait (nor in the next file of the container stream), emitted as they are"},
	{Name: "otelcol_receiver_mergelog_entries_late", Kind: metrictable.Counter, Unit: "{entry}", Attributes: byReceiver, Description: "Entries the merge released after entries at later instants (out of order)"},
	{Name: "otelcol_receiver_mergelog_consume_errors", Kind: metrictable.Counter, Unit: "{batch}", Attributes: []string{AttributeReceiver, AttributePermanent}, Description: "Batches the next consumer refused, by whether the error was permanent"},
	{Name: "otelcol_receiver_mergelog_consume_retries", Kind: metrictable.Counter, Unit: "{retry}", Attributes: byReceiver, Description: "Retries of batches refused with a retryable error"},
	{Name: "otelcol_receiver_mergelog_merge_hold_duration", Kind: metrictable.Histogram, Unit: "s", Attributes: byReceiver, Buckets: metrictable.DurationBuckets, Description: "Longest time an entry released in one go waited in the merge window (one value per release)"},
	{Name: "otelcol_receiver_mergelog_operator_errors", Kind: metrictable.Counter, Unit: "{entry}", Attributes: byReceiver, Description: "Entries an operator failed to process, handled by its on_error (sent on or dropped)"},
	{Name: "otelcol_receiver_mergelog_records_dropped", Kind: metrictable.Counter, Unit: "{record}", Attributes: []string{AttributeReceiver, AttributeClass}, Description: "Records dropped because the next consumer refused them for good (as on_refusal says), by the class of the refusal; each is logged with its file and offset"},
}}

// Attribute keys of the receiver's metrics.
const (
	// AttributeReceiver is on every metric: the receiver's component ID (e.g. mergelog/java), as
	// on the collector's own receiver metrics, so that two mergelog receivers are told apart.
	AttributeReceiver = "receiver"
	// AttributePermanent (bool) is on consume_errors: whether the next consumer's error was
	// permanent (handled as on_refusal says) or retryable.
	AttributePermanent = "permanent"
	// AttributeClass is on records_dropped: the class of a refusal for good (size, auth, data,
	// other; see on_refusal).
	AttributeClass = "class"
	// AttributeFailed (bool) is on checkpoint_writes: whether the storage extension refused the
	// write.
	AttributeFailed = "failed"
)

// byReceiver is the attributes of most metrics: the receiver's ID alone.
var byReceiver = []string{AttributeReceiver}

// TelemetryBuilder holds the receiver's instruments, one field per metric of Telemetry.
type TelemetryBuilder struct {
	ReceiverMergelogFilesOpen          metric.Int64Gauge
	ReceiverMergelogBytesRead          metric.Int64Counter
	ReceiverMergelogBytesLost          metric.Int64Counter
	ReceiverMergelogCheckpointWrites   metric.Int64Counter
	ReceiverMergelogReadLag            metric.Float64Gauge
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
var NewTelemetryBuilder = Telemetry.New
