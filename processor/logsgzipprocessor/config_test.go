package logsgzipprocessor

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/mergelog/otelcol-mergelog/processor/logsgzipprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)

	tests := []struct {
		name    string
		want    *Config
		wantErr []string // each must appear in the error
	}{
		{name: "", want: createDefaultConfig().(*Config)},
		{name: "custom", want: &Config{
			Level:            6,
			MinSize:          128,
			StructuredBodies: StructuredJSON,
			MarkAttribute:    "log.body.encoding",
			MaxWorkers:       2,
		}},
		{name: "stateless", want: &Config{Level: -3, StructuredBodies: StructuredKeep}},
		{name: "bad_level", wantErr: []string{"level: must be between -3 and 9 (got 12)"}},
		{name: "bad_min_size", wantErr: []string{"min_size: must be 0 or more bytes (got -1)"}},
		{name: "bad_structured", wantErr: []string{`structured_bodies: must be "keep" or "json" (got "xml")`}},
		{name: "bad_workers", wantErr: []string{"max_workers: must be 0 (GOMAXPROCS) or more (got -4)"}},
		{name: "two_bad", wantErr: []string{
			"level: must be between -3 and 9 (got -4)",
			`structured_bodies: must be "keep" or "json" (got "drop")`,
		}},
		{name: "unknown_key", wantErr: []string{"compression"}},
	}
	for _, tt := range tests {
		id := component.NewIDWithName(metadata.Type, tt.name)
		t.Run(id.String(), func(t *testing.T) {
			cfg := createDefaultConfig()
			sub, err := cm.Sub(id.String())
			require.NoError(t, err)
			err = sub.Unmarshal(&cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if tt.wantErr != nil {
				require.Error(t, err)
				for _, want := range tt.wantErr {
					assert.Contains(t, err.Error(), want)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
		})
	}
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
