package mergelogreceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/confmap"
	yaml "go.yaml.in/yaml/v3"

	"github.com/mergelog/otelcol-mergelog/internal/testkit"
)

// withKeys decodes keys, a part of a receiver's configuration as YAML, into cfg as the
// collector would, and validates the whole.
func withKeys(t *testing.T, cfg *Config, keys string) error {
	t.Helper()
	var raw map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(keys), &raw))
	if err := confmap.NewFromStringMap(raw).Unmarshal(cfg); err != nil {
		return err
	}
	return confmap.Validate(cfg)
}

const csvHeader = `
header:
  pattern: '^#'
  metadata_operators:
    - type: regex_parser
      regex: '^#(?P<kv>.*)$'
    - type: key_value_parser
      parse_from: attributes.kv
    - type: remove
      field: attributes.kv
`

// TestHeaderAttributesOnEveryRecord: the header's lines are not records; what the metadata
// operators made of them is an attribute of every record of the file, later lines' over earlier
// ones'; after a restart the header is read again from the file's start, so lines appended
// meanwhile get the same attributes. A file without a header line is read as it is.
func TestHeaderAttributesOnEveryRecord(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, "#site=berlin\n#format=csv\n#format=csv2\nid,name\n1,one\n")
	testkit.WriteFile(t, filepath.Join(dir, "plain.log"), "no header\n")
	cfg := testConfig(dir)
	require.NoError(t, withKeys(t, cfg, csvHeader))
	cfg, host := withStorage(cfg, testkit.NewMemStorage())
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	s.WaitForBodies(t, 3)
	byBody := map[string]map[string]any{}
	for _, lr := range logRecords(s) {
		byBody[lr.Body().Str()] = lr.Attributes().AsRaw()
	}
	want := map[string]any{"site": "berlin", "format": "csv2", attrFileName: "a.log"}
	assert.Equal(t, map[string]map[string]any{
		"id,name":   want,
		"1,one":     want,
		"no header": {attrFileName: "plain.log"},
	}, byBody)
	require.NoError(t, r.Shutdown(t.Context()))

	testkit.AppendFile(t, path, "2,two\n")
	s2 := &testkit.LogsSink{}
	startReceiver(t, cfg, s2, host)
	assert.Equal(t, []string{"2,two"}, s2.WaitForBodies(t, 1))
	assert.Equal(t, want, logRecords(s2)[0].Attributes().AsRaw())
}

// TestHeaderStillOpenAtRestart: a file holding header lines only when the receiver stops has
// them committed; after the restart they are read again, the header goes on, and the first
// record has every header line's attributes.
func TestHeaderStillOpenAtRestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, "#site=berlin\n")
	cfg := testConfig(dir)
	require.NoError(t, withKeys(t, cfg, csvHeader))
	mem := testkit.NewMemStorage()
	cfg, host := withStorage(cfg, mem)
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	require.Eventually(t, func() bool { n, _ := mem.Writes(); return n > 0 }, testkit.Timeout, 5*time.Millisecond)
	require.NoError(t, r.Shutdown(t.Context()))
	assert.Empty(t, s.Bodies())

	testkit.AppendFile(t, path, "#format=csv\n1,one\n")
	s2 := &testkit.LogsSink{}
	startReceiver(t, cfg, s2, host)
	assert.Equal(t, []string{"1,one"}, s2.WaitForBodies(t, 1))
	assert.Equal(t, map[string]any{"site": "berlin", "format": "csv", attrFileName: "a.log"},
		logRecords(s2)[0].Attributes().AsRaw())
}

func TestHeaderBadConfigNamesTheKey(t *testing.T) {
	for _, tc := range []struct{ name, keys, want string }{
		{"start_at end", "start_at: end\n" + csvHeader, "header: requires start_at: beginning"},
		{"bad pattern", "header: {pattern: '(', metadata_operators: [{type: regex_parser, regex: '(?P<a>.)'}]}", "header: pattern:"},
		{"no operators", "header: {pattern: '^#'}", "header: metadata_operators: at least one"},
		{"filter", "header: {pattern: '^#', metadata_operators: [{type: filter, expr: 'true'}]}", "header: metadata_operators: an operator of type filter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := withKeys(t, testConfig(t.TempDir()), tc.keys)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestHeaderOfCompressedFileAfterRestart: the header of a gzip file read on after a restart
// (a member appended meanwhile) is decoded again from the file's start.
func TestHeaderOfCompressedFileAfterRestart(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.log")
	testkit.WriteFile(t, path, string(testkit.Compress(t, testkit.Gzip, []byte("#site=berlin\n1,one\n"))))
	cfg := testConfig(dir)
	require.NoError(t, withKeys(t, cfg, csvHeader))
	cfg, host := withStorage(cfg, testkit.NewMemStorage())
	s := &testkit.LogsSink{}
	r := startReceiver(t, cfg, s, host)
	assert.Equal(t, []string{"1,one"}, s.WaitForBodies(t, 1))
	require.NoError(t, r.Shutdown(t.Context()))

	testkit.AppendFile(t, path, string(testkit.Compress(t, testkit.Gzip, []byte("2,two\n"))))
	s2 := &testkit.LogsSink{}
	startReceiver(t, cfg, s2, host)
	assert.Equal(t, []string{"2,two"}, s2.WaitForBodies(t, 1))
	assert.Equal(t, map[string]any{"site": "berlin", attrFileName: "a.log"}, logRecords(s2)[0].Attributes().AsRaw())
}
