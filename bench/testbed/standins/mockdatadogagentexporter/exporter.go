// Package mockdatadogagentexporter is a stand-in for the testbed's mock Datadog agent exporter,
// a module of its own whose v0.148.0 the Go proxy does not serve. The testbed's datasenders
// package names its factory and config for a Datadog sender the file cases never start; this is
// just enough for that code to compile. The factory creates no exporter (every signal is
// unsupported).
package mockdatadogagentexporter // import "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/mockdatasenders/mockdatadogagentexporter"

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
)

// Config holds the field the testbed's sender sets.
type Config struct {
	Endpoint string
}

// NewFactory returns a factory of type "datadog" that creates no exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("datadog"), func() component.Config { return &Config{} })
}
