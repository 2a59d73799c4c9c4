package mergelogprocessor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/internal/testkit/componentkit"
	"github.com/mergelog/otelcol-mergelog/processor/mergelogprocessor/internal/metadata"
)

func TestLoadConfig(t *testing.T) {
	storageID := component.MustNewIDWithName("file_storage", "merge")

	componentkit.CheckConfigs(t, metadata.Type, createDefaultConfig, []componentkit.ConfigCase{
		{Name: "", Want: createDefaultConfig().(*Config)},
		{Name: "custom", Want: &Config{
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
		{Name: "empty_merge_key", WantErr: []string{"merge_key: must name at least one resource attribute"}},
		{Name: "blank_names", WantErr: []string{
			"merge_key[1]: must not be empty",
			`source_attributes[1]: "host.name" is named twice`,
		}},
		{Name: "bad_durations", WantErr: []string{
			"max_delay: must be more than 0 (got 0s)",
			"idle_timeout: must be more than 0 (got -1s)",
			"release_interval: must be more than 0 and at most max_delay (0s) (got 0s)",
		}},
		{Name: "tick_longer_than_delay", WantErr: []string{"release_interval: must be more than 0 and at most max_delay (1s) (got 2s)"}},
		{Name: "bad_max_held", WantErr: []string{"max_held: must be at least 1 (got 0)"}},
		{Name: "unknown_key", WantErr: []string{"window"}},
		{Name: "bad_on_refusal", WantErr: []string{"on_refusal", `size: "wait" is not one of`}},
	})
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

// An invalid config is refused when the processor is created.
func TestCreateRejectsInvalidConfig(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	cfg.MergeKey = nil
	_, err := NewFactory().CreateLogs(context.Background(), processortest.NewNopSettings(metadata.Type), cfg, consumertest.NewNop())
	assert.ErrorContains(t, err, "merge_key: must name at least one resource attribute")
}
