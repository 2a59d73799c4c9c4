package mergelogreceiver

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// The helm chart's logsCollection preset, with file_log renamed to mergelog, starts: its
// container operator runs as format: container, its max_log_size caps the joined line.
func TestHelmPresetReceiverConfigLoads(t *testing.T) {
	cfg, err := loadConfig(t, "helm_preset")
	require.NoError(t, err)
	assert.True(t, cfg.container())
	assert.Equal(t, 102400, cfg.logSize())
	require.NotNil(t, cfg.RetryOnFailure.Enabled)
	assert.True(t, *cfg.RetryOnFailure.Enabled)
}

// With operators: [{type: container}] the records are those of format: container: prefix
// stripped, split lines joined, log.iostream, the pod's identity on the resource.
func TestContainerOperatorIsFormatContainer(t *testing.T) {
	records := func(t *testing.T, set func(*Config)) map[string]podRecord {
		root := t.TempDir()
		dir := podDir(t, root, "app")
		testkit.WriteFile(t, filepath.Join(dir, "0.log"),
			criLine(1, "stdout", "F", "hello")+criLine(2, "stderr", "P", "split ")+criLine(2, "stderr", "F", "line")+criLine(3, "stdout", "F", "bye"))
		cfg := containerConfig(root)
		cfg.Format = FormatText
		set(cfg)
		s := &testkit.LogsSink{}
		startReceiver(t, cfg, s, nil)
		s.WaitForRecords(t, 3)
		return podRecords(s)
	}
	viaFormat := records(t, func(c *Config) { c.Format = FormatContainer })
	viaOperator := records(t, func(c *Config) {
		c.Operators = []map[string]any{{"type": "container", "id": "container-parser", "max_log_size": 102400}}
	})
	require.Len(t, viaOperator, 3)
	for body, want := range viaFormat {
		got, ok := viaOperator[body]
		require.True(t, ok, "record %q", body)
		assert.Equal(t, want.resource, got.resource, body)
		assert.Equal(t, want.lr.Attributes().AsRaw(), got.lr.Attributes().AsRaw(), body)
		assert.Equal(t, want.lr.Timestamp(), got.lr.Timestamp(), body)
	}
	assert.Contains(t, viaOperator, "split line")
}

func TestOperatorsOtherThanContainerNameTheOperator(t *testing.T) {
	for name, tc := range map[string]struct {
		ops  []map[string]any
		want string
	}{
		"json_parser":      {[]map[string]any{{"type": "json_parser", "id": "parse"}}, `operators[0] (type "json_parser", id "parse"): not supported`},
		"container second": {[]map[string]any{{"type": "container"}, {"type": "container"}}, `operators[1] (type "container"): not supported`},
		"unknown key":      {[]map[string]any{{"type": "container", "add_metadata": true}}, "unsupported keys add_metadata"},
		"metadata off":     {[]map[string]any{{"type": "container", "add_metadata_from_filepath": false}}, "add_metadata_from_filepath"},
		"bad format":       {[]map[string]any{{"type": "container", "format": "podman"}}, "format: must be docker, crio or containerd"},
		"bad max_log_size": {[]map[string]any{{"type": "container", "max_log_size": "12 furlongs"}}, "max_log_size"},
	} {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(t.TempDir())
			cfg.Operators = tc.ops
			err := cfg.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
