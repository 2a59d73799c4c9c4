package mergelogreceiver

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
	"github.com/mergelog/otelcol-mergelog/internal/stacktrace"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/metadata"
)

// loadConfig unmarshals the named section of testdata/config.yaml over the defaults.
func loadConfig(t *testing.T, name string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(component.NewIDWithName(metadata.Type, name).String())
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	if err := sub.Unmarshal(cfg); err != nil {
		return nil, err
	}
	return cfg, confmap.Validate(cfg)
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := loadConfig(t, "")
	require.NoError(t, err)
	want := createDefaultConfig().(*Config)
	want.Include = []string{"/var/log/app/*.log"}
	assert.Equal(t, want, cfg)
	// The keys file_log also has keep its defaults.
	assert.Equal(t, StartAtEnd, cfg.StartAt)
	assert.Equal(t, 200*time.Millisecond, cfg.PollInterval)
	assert.Equal(t, ByteSize(1000), cfg.FingerprintSize)
	assert.Equal(t, ByteSize(1<<20), cfg.MaxLogSize)
	assert.Equal(t, 500*time.Millisecond, cfg.ForceFlushPeriod)
	assert.True(t, cfg.IncludeFileName)
	assert.Equal(t, EncodingUTF8, cfg.Encoding)
}

func TestConfigFull(t *testing.T) {
	cfg, err := loadConfig(t, "full")
	require.NoError(t, err)
	storage := component.MustNewIDWithName("file_storage", "checkpoints")
	enabled := true
	want := &Config{
		Include:                     []string{"/var/log/app/*.log", "/var/log/app/*.log.gz"},
		Exclude:                     []string{"/var/log/app/debug*.log"},
		ExcludeOlderThan:            24 * time.Hour,
		StartAt:                     "beginning",
		PollInterval:                100 * time.Millisecond,
		FingerprintSize:             2048,
		MaxLogSize:                  64 << 10,
		MaxLogSizeBehavior:          "truncate",
		MaxConcurrentFiles:          64,
		MaxDeletedBytes:             256 << 20,
		Encoding:                    "utf-8-raw",
		ForceFlushPeriod:            time.Second,
		PreserveLeadingWhitespaces:  true,
		PreserveTrailingWhitespaces: true,
		IncludeFilePath:             true,
		IncludeFileNameResolved:     true,
		IncludeFilePathResolved:     true,
		IncludeFileRecordNumber:     true,
		Compression:                 "gzip",
		DeleteAfterRead:             true,
		StorageID:                   &storage,
		OnCorruptCheckpoint:         CorruptCheckpointFail,
		MaxPartialBytes:             16 << 20,
		Attributes:                  map[string]string{"team": "payments"},
		Resource:                    map[string]string{"service.name": "checkout"},
		Format:                      "container",
		SplitLineWait:               10 * time.Second,
		OnTruncate:                  OnTruncateIgnore,
		Multiline: MultilineConfig{
			LineStartPattern:    `\d{4}-\d{2}-\d{2}`,
			LineContinuePattern: `\s`,
			MaxLines:            500,
		},
		Timestamp:      &TimestampConfig{Format: "layout", Layout: "%Y-%m-%d %H:%M:%S.%L", Location: "Europe/Berlin"},
		Merge:          MergeConfig{Enabled: true, Window: 5 * time.Second, MaxHeldPerFile: 2000},
		Batch:          BatchConfig{MaxRecords: 500, MaxBytes: 1 << 20, Timeout: time.Second, MaxInFlight: 4},
		RetryOnFailure: RetryConfig{Enabled: &enabled, InitialInterval: 50 * time.Millisecond, MaxInterval: 10 * time.Second, MaxElapsedTime: 5 * time.Minute},
		Watch:          WatchConfig{Enabled: false, FullScanInterval: 30 * time.Second},
		OnRefusal: refusal.Policy{Size: refusal.Split, Auth: refusal.Hold, Data: refusal.Drop, Other: refusal.Hold,
			HoldCodes: []string{"FailedPrecondition"}},
	}
	assert.Equal(t, want, cfg)
}

// TestConfigDetect: multiline.detect names languages, or all, and reaches the joiner's config.
func TestConfigDetect(t *testing.T) {
	for name, want := range map[string]stacktrace.Set{
		"detect":     stacktrace.All,
		"detect_all": stacktrace.All,
		"":           0,
	} {
		cfg, err := loadConfig(t, name)
		require.NoError(t, err, name)
		p, err := cfg.compile()
		require.NoError(t, err, name)
		assert.Equal(t, want, p.join.Detect, name)
	}
	cfg, err := loadConfig(t, "detect")
	require.NoError(t, err)
	assert.Equal(t, []string{"java", "python", "go", "nodejs", "ruby", "dotnet", "php"}, cfg.Multiline.Detect)
	assert.Equal(t, 1000, cfg.Multiline.MaxLines)
}

func TestConfigInvalidNamesTheKey(t *testing.T) {
	for name, key := range map[string]string{
		"bad_regex":                     "multiline: line_start_pattern",
		"unknown_key":                   "read_from",
		"negative_size":                 "max_log_size",
		"negative_batch_bytes":          "batch: max_bytes",
		"merge_without_timestamp":       "merge.enabled",
		"bad_refusal_action":            "on_refusal: data",
		"bad_hold_code":                 "on_refusal: hold_codes",
		"bad_timestamp_layout":          "timestamp: layout",
		"bad_location":                  "timestamp: location",
		"no_include":                    "include",
		"bad_compression":               "compression",
		"bad_start_at":                  "start_at",
		"bad_byte_unit":                 "fingerprint_size",
		"bad_continue_regex":            "multiline: line_continue_pattern",
		"bad_end_regex":                 "multiline: line_end_pattern",
		"bad_timestamp_regex":           "timestamp: regex",
		"bad_timestamp_format":          "timestamp.format",
		"unknown_nested_key":            "'multiline' has invalid keys: line_start_patern",
		"negative_fingerprint_size":     "fingerprint_size",
		"negative_max_concurrent_files": "max_concurrent_files",
		"zero_max_deleted_bytes":        "max_deleted_bytes",
		"negative_batch_records":        "batch: max_records",
		"negative_max_lines":            "multiline: max_lines",
		"negative_max_held":             "merge: max_held_per_file",
		"negative_poll_interval":        "poll_interval",
		"negative_split_line_wait":      "split_line_wait",
		"bad_encoding":                  "encoding",
		"bad_max_log_size_behavior":     "max_log_size_behavior",
		"bad_glob":                      "include",
		"bad_max_in_flight":             "batch: max_in_flight",
		"zero_full_scan_interval":       "watch: full_scan_interval",
		"bad_on_corrupt_checkpoint":     "on_corrupt_checkpoint",
		"zero_max_partial_bytes":        "max_partial_bytes",
		"bad_detect_language":           `multiline: detect: unknown language "cobol"`,
		"detect_with_pattern":           "multiline: detect: cannot be combined with line_start_pattern",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := loadConfig(t, name)
			require.Error(t, err)
			assert.Contains(t, err.Error(), key)
		})
	}
}

func TestByteSizeUnits(t *testing.T) {
	for text, want := range map[string]ByteSize{
		"1000": 1000, "16KiB": 16 << 10, "1MiB": 1 << 20, "1.5MB": 1500000, "2kb": 2000, "3 GiB": 3 << 30,
	} {
		var b ByteSize
		require.NoError(t, b.UnmarshalText([]byte(text)), text)
		assert.Equal(t, want, b, text)
	}
	var b ByteSize
	assert.Error(t, b.UnmarshalText([]byte("12 furlongs")))
	assert.Error(t, b.UnmarshalText([]byte("KiB")))
}
