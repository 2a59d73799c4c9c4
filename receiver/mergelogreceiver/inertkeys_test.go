package mergelogreceiver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// everyFileLogKey is a file_log v0.165.1 configuration that sets every key of its file input
// (fileconsumer.Config, attrs.Resolver, matcher.Criteria, helper.InputConfig's attributes and
// resource) to a value other than its default; retry_on_failure and operators have tests of
// their own.
const everyFileLogKey = `
include: [ INCLUDE ]
exclude: [ /nonexistent/*.log ]
exclude_older_than: 24h
start_at: beginning
poll_interval: 50ms
max_concurrent_files: 10
max_batches: 2
fingerprint_size: 2KiB
initial_buffer_size: 32KiB
max_log_size: 512KiB
max_log_size_behavior: truncate
encoding: utf8
multiline: { line_start_pattern: '\d' }
preserve_leading_whitespaces: true
preserve_trailing_whitespaces: true
force_flush_period: 1s
include_file_name: false
include_file_path: true
include_file_name_resolved: true
include_file_path_resolved: true
include_file_owner_name: false
include_file_owner_group_name: false
include_file_permissions: false
include_file_record_number: true
include_file_record_offset: true
compression: ""
delete_after_read: false
polls_to_archive: 5
acquire_fs_lock: true
file_cache_advise: true
on_truncate: read_new
skip_unmodified_files: true
id: file_input
type: file_input
header:
  pattern: '^#'
  metadata_operators: [ { type: regex_parser, regex: '^#(?P<h>.*)' } ]
ordering_criteria:
  regex: '(?P<n>\d+)\.log$'
  top_n: 2
  group_by: '/([a-z]+)\d+\.log$'
  sort_by: [ { sort_type: numeric, regex_key: n, ascending: true } ]
attributes: { env: prod }
resource: { host: web1 }
`

func TestEveryFileLogKeyValidates(t *testing.T) {
	cfg := createDefaultConfig().(*Config)
	require.NoError(t, withKeys(t, cfg, strings.ReplaceAll(everyFileLogKey, "INCLUDE", filepath.Join(t.TempDir(), "*.log"))))
	assert.Equal(t, OnTruncateReadNew, cfg.OnTruncate)
	assert.Equal(t, 2, cfg.MaxBatches)
	assert.Equal(t, ByteSize(32<<10), cfg.InitialBufferSize)
	_, err := cfg.compile()
	require.NoError(t, err)
}

func TestFileLogTuningBadValuesNameTheKey(t *testing.T) {
	for keys, want := range map[string]string{
		"max_batches: -1":         "max_batches: must not be negative",
		"polls_to_archive: -1":    "polls_to_archive: must not be negative",
		"initial_buffer_size: -1": "initial_buffer_size: must not be negative",
		"on_truncate: reread":     `unsupported value "reread"`,
	} {
		err := withKeys(t, testConfig(t.TempDir()), keys)
		require.Error(t, err, keys)
		assert.Contains(t, err.Error(), want, keys)
	}
}

// TestTunedConfigReadsAsDefault: with file_log's tuning keys set, the records are the same as
// without them (they tune file_log's own reader); with each on_truncate value, a file
// truncated and written anew is read from its start, as file_log reads a truncated file whose
// first bytes changed.
func TestTunedConfigReadsAsDefault(t *testing.T) {
	for _, onTruncate := range []OnTruncate{OnTruncateIgnore, OnTruncateReadWholeFile, OnTruncateReadNew} {
		t.Run(string(onTruncate), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "a.log")
			testkit.WriteFile(t, path, "first one\nfirst two\n")
			cfg := testConfig(dir)
			require.NoError(t, withKeys(t, cfg, `
max_batches: 1
initial_buffer_size: 1KiB
acquire_fs_lock: true
polls_to_archive: 3
file_cache_advise: true
skip_unmodified_files: true
on_truncate: `+string(onTruncate)))
			s := &testkit.LogsSink{}
			startReceiver(t, cfg, s, nil)
			assert.Equal(t, []string{"first one", "first two"}, s.WaitForBodies(t, 2))
			require.NoError(t, os.Truncate(path, 0))
			testkit.AppendFile(t, path, "second\n")
			assert.Equal(t, []string{"first one", "first two", "second"}, s.WaitForBodies(t, 3))
		})
	}
}
