// Package otelarrowexporter is a stand-in for contrib's exporter of that name, whose v0.148.0 the
// Go proxy does not serve. The testbed's datasenders package names its factory and config for an
// OTel Arrow sender the file cases never start; this is just enough for that code to compile. The
// factory creates no exporter (every signal is unsupported).
package otelarrowexporter // import "github.com/open-telemetry/opentelemetry-collector-contrib/exporter/otelarrowexporter"

import (
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configtls"
	"go.opentelemetry.io/collector/exporter"
)

// Config holds the fields the testbed's sender sets.
type Config struct {
	Endpoint    string
	TLS         configtls.ClientConfig
	Compression string
}

// NewFactory returns a factory of type "otelarrow" that creates no exporter.
func NewFactory() exporter.Factory {
	return exporter.NewFactory(component.MustNewType("otelarrow"), func() component.Config { return &Config{} })
}
