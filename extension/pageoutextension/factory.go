package pageoutextension // import "github.com/mergelog/otelcol-mergelog/extension/pageoutextension"

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/extension"

	"github.com/mergelog/otelcol-mergelog/extension/pageoutextension/internal/metadata"
)

// NewFactory returns a factory for the pageout extension.
func NewFactory() extension.Factory {
	return extension.NewFactory(metadata.Type, createDefaultConfig, create, metadata.ExtensionStability)
}

// createDefaultConfig gives the pages back as soon as the pipelines are ready: what reading
// uses comes back at its first use, and what start-up alone used is gone before reading adds
// its buffers and batches to the process's peak.
func createDefaultConfig() component.Config {
	return &Config{}
}

func create(_ context.Context, set extension.Settings, cfg component.Config) (extension.Extension, error) {
	return newPageout(cfg.(*Config), set.Logger), nil
}
