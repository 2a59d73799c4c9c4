package metadata // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
)

// Telemetry is the processor's internal metrics.
var Telemetry = metrictable.Table[TelemetryBuilder]{Scope: ScopeName, Stability: metrictable.Alpha, Metrics: []metrictable.Metric{
	{Name: "otelcol_processor_mergelog_records_held", Kind: metrictable.UpDownCounter, Unit: "{record}", Description: "Records waiting in the merge windows for their turn."},
	{Name: "otelcol_processor_mergelog_records_late", Kind: metrictable.Counter, Unit: "{record}", Description: "Records released after records of their merge key at later instants had gone out (released at once, never dropped)."},
	{Name: "otelcol_processor_mergelog_records_released_early", Kind: metrictable.Counter, Unit: "{record}", Description: "Records released before their turn because their merge key held max_held records."},
	{Name: "otelcol_processor_mergelog_records_replayed", Kind: metrictable.Counter, Unit: "{record}", Description: "Records read back from the storage extension at start (held or unacknowledged when the last run stopped)."},
	{Name: "otelcol_processor_mergelog_records_dropped", Kind: metrictable.Counter, Unit: "{record}", Attributes: []string{AttributeClass}, Description: "Records dropped because the next consumer refused them for good (as on_refusal says), or still held at shutdown without storage and not delivered, by class (a refusal's, or shutdown)."},
	{Name: "otelcol_processor_mergelog_consume_retries", Kind: metrictable.Counter, Unit: "{batch}", Description: "Released batches sent to the next consumer again after a retryable error."},
	{Name: "otelcol_processor_mergelog_sources_idle", Kind: metrictable.Counter, Unit: "{source}", Description: "Sources that sent nothing for idle_timeout and stopped holding back the other sources of their merge key."},
	{Name: "otelcol_processor_mergelog_hold_duration", Kind: metrictable.Histogram, Unit: "s", Buckets: metrictable.DurationBuckets, Description: "Longest time a record released in one go waited in its merge window (one value per release)."},
}}

// AttributeClass is on records_dropped: the class of the refusal a record was dropped for
// (size, auth, data, other; see on_refusal), or shutdown.
const AttributeClass = "class"

// TelemetryBuilder holds the processor's instruments, one field per metric of Telemetry.
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
var NewTelemetryBuilder = Telemetry.New
