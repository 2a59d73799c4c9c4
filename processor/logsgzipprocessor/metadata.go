package logsgzipprocessor // import "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"

import "go.opentelemetry.io/collector/component"

// These mirror what mdatagen would generate into internal/metadata from
// metadata.yaml; they are written by hand because mdatagen is not served at
// the collector version this module pins. Keep them in step with metadata.yaml.
var (
	componentType = component.MustNewType("logsgzip")
	scopeName     = "github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor"
)

const logsStability = component.StabilityLevelAlpha
