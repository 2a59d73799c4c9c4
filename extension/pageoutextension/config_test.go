package pageoutextension

import (
	"testing"
	"time"

	"github.com/mergelog/otelcol-mergelog/extension/pageoutextension/internal/metadata"
	"github.com/mergelog/otelcol-mergelog/internal/testkit/componentkit"
)

func TestLoadConfig(t *testing.T) {
	componentkit.CheckConfigs(t, metadata.Type, createDefaultConfig, []componentkit.ConfigCase{
		{Name: "", Want: &Config{}},
		{Name: "custom", Want: &Config{Delay: time.Minute}},
		{Name: "negative_delay", WantErr: []string{"delay: must not be negative (got -1s)"}},
		{Name: "unknown_key", WantErr: []string{"interval"}},
	})
}
