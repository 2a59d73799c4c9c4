package metadata // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"

import (
	"go.opentelemetry.io/otel/metric"

	"github.com/mergelog/otelcol-mergelog/internal/metrictable"
)

// Telemetry is the processor's internal metrics.
var Telemetry = metrictable.Table[TelemetryBuilder]{Scope: ScopeName, Stability: metrictable.Development, Metrics: []metrictable.Metric{
	{Name: "otelcol_processor_logsgzip_records_compressed", Kind: metrictable.Counter, Unit: "{record}", Description: "Number of log records whose body was gzip-compressed."},
	{Name: "otelcol_processor_logsgzip_records_skipped", Kind: metrictable.Counter, Unit: "{record}", Attributes: []string{AttributeReason}, Description: "Number of log records left unchanged, by reason."},
	{Name: "otelcol_processor_logsgzip_bytes_in", Kind: metrictable.Counter, Unit: "By", Description: "Uncompressed size of the bodies that were compressed."},
	{Name: "otelcol_processor_logsgzip_bytes_out", Kind: metrictable.Counter, Unit: "By", Description: "Compressed size of the bodies that were compressed."},
}}

// AttributeReason is on records_skipped: why a record's body was left unchanged (the values are
// the processor's reasonNames, listed in its README).
const AttributeReason = "reason"

// TelemetryBuilder holds the processor's instruments, one field per metric of Telemetry.
type TelemetryBuilder struct {
	ProcessorLogsgzipRecordsCompressed metric.Int64Counter
	ProcessorLogsgzipRecordsSkipped    metric.Int64Counter
	ProcessorLogsgzipBytesIn           metric.Int64Counter
	ProcessorLogsgzipBytesOut          metric.Int64Counter
}

// NewTelemetryBuilder creates every instrument.
var NewTelemetryBuilder = Telemetry.New
