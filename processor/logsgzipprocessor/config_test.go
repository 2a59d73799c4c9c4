package logsgzipprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/testkit/componentkit"
	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	componentkit.CheckConfigs(t, metadata.Type, createDefaultConfig, []componentkit.ConfigCase{
		{Name: "", Want: createDefaultConfig().(*Config)},
		{Name: "custom", Want: &Config{
			Level:            6,
			MinSize:          128,
			StructuredBodies: StructuredJSON,
			MarkAttribute:    "log.body.encoding",
			MaxWorkers:       2,
		}},
		{Name: "stateless", Want: &Config{Level: -3, StructuredBodies: StructuredKeep}},
		{Name: "bad_level", WantErr: []string{"level: must be between -3 and 9 (got 12)"}},
		{Name: "bad_min_size", WantErr: []string{"min_size: must be 0 or more bytes (got -1)"}},
		{Name: "bad_structured", WantErr: []string{`structured_bodies: must be "keep" or "json" (got "xml")`}},
		{Name: "bad_workers", WantErr: []string{"max_workers: must be 0 (GOMAXPROCS) or more (got -4)"}},
		{Name: "two_bad", WantErr: []string{
			"level: must be between -3 and 9 (got -4)",
			`structured_bodies: must be "keep" or "json" (got "drop")`,
		}},
		{Name: "unknown_key", WantErr: []string{"compression"}},
	})
}

func TestDefaultConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	assert.Equal(t, &Config{Level: 1, MinSize: 0, StructuredBodies: StructuredKeep}, cfg)
	assert.NoError(t, cfg.Validate())

	// Unmarshalling nothing keeps the defaults.
	var c component.Config = cfg
	require.NoError(t, confmap.New().Unmarshal(&c))
	assert.Equal(t, createDefaultConfig(), c)
}

func TestValidateEveryLevel(t *testing.T) {
	for level := -3; level <= 9; level++ {
		cfg := createDefaultConfig().(*Config)
		cfg.Level = level
		assert.NoError(t, cfg.Validate(), "level %d", level)
	}
}

// An invalid config is refused when the processor is created.
func TestCreateRejectsInvalidConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.Level = 12
	_, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	assert.ErrorContains(t, err, "level: must be between -3 and 9 (got 12)")
}
