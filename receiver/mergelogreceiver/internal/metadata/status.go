// Package metadata holds the receiver's identity and internal telemetry, written by hand in the
// shape mdatagen would generate from ../../metadata.yaml (the project does not run mdatagen).
package metadata

import "go.opentelemetry.io/collector/component"

var (
	// Type is the receiver's configuration key.
	Type = component.MustNewType("mergelog")
	// ScopeName is the instrumentation scope of the records and of the telemetry.
	ScopeName = "github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver"
)

const LogsStability = component.StabilityLevelAlpha
