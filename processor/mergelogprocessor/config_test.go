package mergelogprocessor

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	storageID := component.MustNewIDWithName("file_storage", "merge")

	tests := []struct {
		name    string
		want    *Config
		wantErr []string // each must appear in the error
	}{
		{name: "", want: createDefaultConfig().(*Config)},
		{name: "custom", want: &Config{
			MergeKey:         []string{"k8s.namespace.name", "app.kubernetes.io/name"},
			SourceAttributes: []string{"host.name"},
			MaxDelay:         10 * time.Second,
			IdleTimeout:      30 * time.Second,
			ReleaseInterval:  250 * time.Millisecond,
			MaxHeld:          5000,
			StorageID:        &storageID,
			OnRefusal: refusal.Policy{Size: refusal.Split, Auth: refusal.Hold, Data: refusal.Drop, Other: refusal.Hold,
				HoldCodes: []string{"FAILED_PRECONDITION"}},
		}},
		{name: "empty_merge_key", wantErr: []string{"merge_key: must name at least one resource attribute"}},
		{name: "blank_names", wantErr: []string{
			"merge_key[1]: must not be empty",
			`source_attributes[1]: "host.name" is named twice`,
		}},
		{name: "bad_durations", wantErr: []string{
			"max_delay: must be more than 0 (got 0s)",
			"idle_timeout: must be more than 0 (got -1s)",
			"release_interval: must be more than 0 and at most max_delay (0s) (got 0s)",
		}},
		{name: "tick_longer_than_delay", wantErr: []string{"release_interval: must be more than 0 and at most max_delay (1s) (got 2s)"}},
		{name: "bad_max_held", wantErr: []string{"max_held: must be at least 1 (got 0)"}},
		{name: "unknown_key", wantErr: []string{"window"}},
		{name: "bad_on_refusal", wantErr: []string{"on_refusal", `size: "wait" is not one of`}},
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
	assert.Equal(t, &Config{
		MergeKey:         []string{"service.name"},
		SourceAttributes: []string{"k8s.node.name", "host.name"},
		MaxDelay:         5 * time.Second,
		IdleTimeout:      2 * time.Second,
		ReleaseInterval:  100 * time.Millisecond,
		MaxHeld:          100_000,
		OnRefusal:        refusal.Policy{Size: refusal.Split, Auth: refusal.Hold, Data: refusal.Split, Other: refusal.SplitThenHold},
	}, cfg)
	assert.NoError(t, cfg.Validate())
}
