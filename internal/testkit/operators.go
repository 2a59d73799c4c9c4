package testkit

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	yaml "go.yaml.in/yaml/v3"

	// The operators file_log registers, so that every type decodes.
	_ "github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/adapter"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
)

// Operators decodes ops, a YAML list of stanza operators, as the collector decodes file_log's
// `operators`.
func Operators(tb testing.TB, ops string) []operator.Config {
	tb.Helper()
	var raw []any
	require.NoError(tb, yaml.Unmarshal([]byte(ops), &raw))
	var cfg struct {
		Operators []operator.Config `mapstructure:"operators"`
	}
	require.NoError(tb, confmap.NewFromStringMap(map[string]any{"operators": raw}).Unmarshal(&cfg))
	return cfg.Operators
}

// OperatorChains reads path, a YAML mapping of names to lists of stanza operators, and returns
// each list as YAML, for Operators or a component's `operators` key.
func OperatorChains(tb testing.TB, path string) map[string]string {
	tb.Helper()
	text, err := os.ReadFile(path)
	require.NoError(tb, err)
	var raw map[string]any
	require.NoError(tb, yaml.Unmarshal(text, &raw))
	chains := map[string]string{}
	for name, ops := range raw {
		text, err := yaml.Marshal(ops)
		require.NoError(tb, err)
		chains[name] = string(text)
	}
	return chains
}
