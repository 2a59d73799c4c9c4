// Package metadata holds the processor's identity and internal telemetry, written by hand in the
// shape mdatagen would generate from ../../metadata.yaml (the project does not run mdatagen;
// metadata_test.go checks the two agree).
package metadata // import "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"

import "go.opentelemetry.io/collector/component"

var (
	// Type is the processor's configuration key.
	Type = component.MustNewType("mergelog")
	// ScopeName is the instrumentation scope of the processor's telemetry.
	ScopeName = "github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor"
)

// LogsStability is the stability of the processor for logs.
const LogsStability = component.StabilityLevelAlpha
