// Package metadata is the processor's identity and its internal metrics, one table that says
// what users see of each (mdatagen is not served at the collector version this module builds
// on; metrictable builds the instruments from the table).
package metadata // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"

import "go.opentelemetry.io/collector/component"

var (
	// Type is the processor's configuration key.
	Type = component.MustNewType("logsgzip")
	// ScopeName is the instrumentation scope of the processor's telemetry.
	ScopeName = "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"
)

// LogsStability is the stability of the processor for logs.
const LogsStability = component.StabilityLevelAlpha
