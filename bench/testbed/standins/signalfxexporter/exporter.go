// Package signalfxexporter is a stand-in for contrib's exporter of that name, whose v0.148.0 the
// Go proxy does not serve. The testbed's datasenders package names its factory and config for a
// SignalFx sender the file cases never start; this is just enough for that code to compile. The
// factory creates no exporter (every signal is unsupported).
package signalfxexporter // import "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/signalfxexporter"

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/exporter"
)

// Config holds the fields the testbed's sender sets.
type Config struct {
	IngestURL   string
	APIURL      string
	AccessToken string
}

// NewFactory returns a factory of type "signalfx" that creates no exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("signalfx"), func() component.Config { return &Config{} })
}
