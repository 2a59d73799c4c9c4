// Package componentkit holds the checks every component's factory and testdata/config.yaml owe
// the collector, shared by the components' tests. It is apart from testkit so that the modules
// that use testkit alone (bench) do not depend on the processor packages.
package componentkit

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pipeline"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
)

// CheckLogsProcessorFactory checks a logs processor's factory: its type and stability, and
// what every one owes the collector: a default config whose struct the collector can read,
// traces and metrics refused as unsupported, and a processor from the defaults that shuts down
// without having started.
func CheckLogsProcessorFactory(t testing.TB, f processor.Factory, typ string, stability component.StabilityLevel) {
	t.Helper()
	assert.Equal(t, component.MustNewType(typ), f.Type())
	assert.Equal(t, stability, f.LogsStability())
	ctx := context.Background()
	set := processortest.NewNopSettings(f.Type())
	require.NoError(t, componenttest.CheckConfigStruct(f.CreateDefaultConfig()))
	_, err := f.CreateTraces(ctx, set, f.CreateDefaultConfig(), consumertest.NewNop())
	assert.ErrorIs(t, err, pipeline.ErrSignalNotSupported)
	_, err = f.CreateMetrics(ctx, set, f.CreateDefaultConfig(), consumertest.NewNop())
	assert.ErrorIs(t, err, pipeline.ErrSignalNotSupported)
	p, err := f.CreateLogs(ctx, set, f.CreateDefaultConfig(), consumertest.NewNop())
	require.NoError(t, err)
	require.NoError(t, p.Shutdown(ctx))
}

// ConfigCase is one section of a component's testdata/config.yaml, named typ/Name ("": typ
// alone), and what it must load as: Want, or an error that contains each of WantErr.
type ConfigCase struct {
	Name    string
	Want    component.Config
	WantErr []string
}

// CheckConfigs loads each case's section of testdata/config.yaml over the defaults
// newDefault makes, validates it as the collector does, and checks the result.
func CheckConfigs(t *testing.T, typ component.Type, newDefault func() component.Config, cases []ConfigCase) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	for _, tc := range cases {
		id := component.NewIDWithName(typ, tc.Name)
		t.Run(id.String(), func(t *testing.T) {
			cfg := newDefault()
			sub, err := cm.Sub(id.String())
			require.NoError(t, err)
			err = sub.Unmarshal(&cfg)
			if err == nil {
				err = confmap.Validate(cfg)
			}
			if tc.WantErr != nil {
				require.Error(t, err)
				for _, want := range tc.WantErr {
					assert.Contains(t, err.Error(), want)
				}
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.Want, cfg)
		})
	}
}
