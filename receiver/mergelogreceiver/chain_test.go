package mergelogreceiver

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// fastChain is a chain of internal/fastops/testdata/chains.yaml (issue 13's and the options
// the fast path covers), as YAML.
func fastChain(t *testing.T, name string) string {
	t.Helper()
	chains := testkit.OperatorChains(t, filepath.Join("internal", "fastops", "testdata", "chains.yaml"))
	require.Contains(t, chains, name)
	return chains[name]
}

// The receiver runs issue 13's chains on the fast path, the last one after the native
// container operator; the operators of TestOperatorsParse, TestOperatorsDroppedAndMergedEntriesCommit
// ("on_error drop") and TestOperatorsTimeParserFeedsTheMerge too, which so check its records,
// failures, drops (they commit) and timestamps (they feed the merge) end to end.
func TestFastOperatorsRunTheReceiversChain(t *testing.T) {
	set := componenttestTelemetry(t).settings().TelemetrySettings
	for _, ops := range []string{fastChain(t, "json time+severity"), fastChain(t, "regex+severity"),
		"- {type: container}\n" + fastChain(t, "json if, moves, remove"), `[{type: json_parser, on_error: drop_quiet}]`} {
		cfg := mustOperators(t, testConfig(t.TempDir()), ops)
		c, err := newChain(cfg, set)
		require.NoError(t, err)
		assert.NotNil(t, c.fast, ops)
	}
	cfg := mustOperators(t, testConfig(t.TempDir()), `[{type: json_parser}, {type: key_value_parser}]`)
	c, err := newChain(cfg, set)
	require.NoError(t, err)
	assert.Nil(t, c.fast, "stanza runs a chain with an operator not covered")
}

// Bodies as bytes (encoding nop) stay with stanza.
func TestFastOperatorsNotForRawBodies(t *testing.T) {
	set := componenttestTelemetry(t).settings().TelemetrySettings
	cfg := mustOperators(t, testConfig(t.TempDir()), fastChain(t, "json time+severity"))
	c, err := newChain(cfg, set)
	require.NoError(t, err)
	assert.NotNil(t, c.fast)
	cfg.Encoding = EncodingNop
	c, err = newChain(cfg, set)
	require.NoError(t, err)
	assert.Nil(t, c.fast)
	assert.NotNil(t, c.stanza)
}
