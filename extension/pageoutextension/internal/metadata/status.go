// Package metadata is the extension's identity.
package metadata // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension/internal/metadata"

import "go.opentelemetry.io/collector/component"

// Type is the extension's configuration key.
var Type = component.MustNewType("pageout")

// ExtensionStability is the extension's stability.
const ExtensionStability = component.StabilityLevelAlpha
