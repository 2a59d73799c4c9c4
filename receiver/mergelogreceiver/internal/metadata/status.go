// Package metadata is the receiver's identity and its internal metrics, one table that says what
// users see of each (mdatagen is not served at the collector version this module builds on;
// metrictable builds the instruments from the table).
package metadata // import "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"

import "go.opentelemetry.io/collector/component"

var (
	// Type is the receiver's configuration key.
	Type = component.MustNewType("mergelog")
	// ScopeName is the instrumentation scope of the records and of the telemetry.
	ScopeName = "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver"
)

// LogsStability is the stability of the receiver for logs.
const LogsStability = component.StabilityLevelAlpha
