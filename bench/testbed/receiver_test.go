package testbed

import (
	"strings"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/testbed/datasenders"
	tb "github.com/open-telemetry/opentelemetry-collector-contrib/testbed/testbed"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// Every case's sender, renamed, gives the same receiver options under our key.
func TestRenameReceiverKeepsOptions(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	for _, c := range fileCases {
		t.Run(c.name, func(t *testing.T) {
			sender, _ := c.sender(t)
			renamed, err := renameReceiver(sender, mergelogKey)
			require.NoError(t, err)
			assert.Equal(t, mergelogKey, renamed.ProtocolName())

			var theirs, ours map[string]any
			require.NoError(t, yaml.Unmarshal([]byte(sender.GenConfigYAMLStr()), &theirs))
			require.NoError(t, yaml.Unmarshal([]byte(renamed.GenConfigYAMLStr()), &ours))
			require.Contains(t, theirs, fileLogKey)
			assert.Equal(t, map[string]any{mergelogKey: theirs[fileLogKey]}, ours)
		})
	}
}

func TestRenameReceiverNeedsOneKey(t *testing.T) {
	sender := datasenders.NewFileLogWriter(t)
	for _, config := range []string{
		"\n  file_log:\n    include: [a]\n",
		"\n  filelog:\n    include: [a]\n  filelog:\n    include: [b]\n",
	} {
		_, err := renameReceiver(configSender{sender, config}, mergelogKey)
		assert.Error(t, err, config)
	}
}

// configSender is a sender generating a given receiver config.
type configSender struct {
	tb.LogDataSender
	config string
}

func (s configSender) GenConfigYAMLStr() string { return s.config }

// The config puts the renamed receiver, the backend's exporter and the case's extensions in the
// logs pipeline.
func TestCollectorConfig(t *testing.T) {
	c := fileCases[1] // filelog checkpoints: a storage extension
	require.Equal(t, "filelog checkpoints", c.name)
	sender, extensions := c.sender(t)
	renamed, err := renameReceiver(sender, mergelogKey)
	require.NoError(t, err)
	backend := tb.NewOTLPDataReceiver(4317)

	var config struct {
		Receivers  map[string]map[string]any
		Exporters  map[string]any
		Processors map[string]any
		Extensions map[string]map[string]any
		Service    struct {
			Extensions []string
			Pipelines  map[string]map[string][]string
		}
	}
	require.NoError(t, yaml.Unmarshal([]byte(collectorConfig(renamed, backend, "/results/x", extensions)), &config))

	assert.Equal(t, "file_storage", config.Receivers[mergelogKey]["storage"])
	assert.Equal(t, "beginning", config.Receivers[mergelogKey]["start_at"])
	assert.Contains(t, config.Exporters, "otlp_grpc")
	assert.Contains(t, config.Processors, "batch")
	assert.Equal(t, "/results/x/cpu.prof", config.Extensions["pprof"]["save_to_file"])
	assert.True(t, strings.HasPrefix(config.Extensions["file_storage"]["directory"].(string), "/"))
	assert.Equal(t, []string{"pprof", "file_storage"}, config.Service.Extensions)
	assert.Equal(t, map[string]map[string][]string{"logs": {
		"receivers": {mergelogKey}, "processors": {"batch"}, "exporters": {"otlp_grpc"},
	}}, config.Service.Pipelines)
}
