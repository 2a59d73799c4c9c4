package mergelogreceiver

import (
	"errors"
	"fmt"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.opentelemetry.io/collector/component"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linestart"
	"github.com/mergelog/otelcol-mergelog/internal/timestamp"
)

// Config is the receiver's configuration. Keys that file_log also has keep its names, defaults
// and meanings (see README.md for where ours differs).
type Config struct {
	Include          []string      `mapstructure:"include"`
	Exclude          []string      `mapstructure:"exclude"`
	ExcludeOlderThan time.Duration `mapstructure:"exclude_older_than"`
	StartAt          string        `mapstructure:"start_at"`
	PollInterval     time.Duration `mapstructure:"poll_interval"`
	FingerprintSize  ByteSize      `mapstructure:"fingerprint_size"`
	MaxLogSize       ByteSize      `mapstructure:"max_log_size"`
	// MaxLogSizeBehavior is split (the rest of an over-long entry becomes the next entry) or
	// truncate (the rest, up to the end of the entry, is dropped).
	MaxLogSizeBehavior string `mapstructure:"max_log_size_behavior"`
	MaxConcurrentFiles int    `mapstructure:"max_concurrent_files"`
	// Encoding: utf-8 (invalid bytes become U+FFFD), utf-8-raw (bytes kept as they are) or nop
	// (the body is a Bytes value).
	Encoding                    string          `mapstructure:"encoding"`
	Multiline                   MultilineConfig `mapstructure:"multiline"`
	ForceFlushPeriod            time.Duration   `mapstructure:"force_flush_period"`
	PreserveLeadingWhitespaces  bool            `mapstructure:"preserve_leading_whitespaces"`
	PreserveTrailingWhitespaces bool            `mapstructure:"preserve_trailing_whitespaces"`
	IncludeFileName             bool            `mapstructure:"include_file_name"`
	IncludeFilePath             bool            `mapstructure:"include_file_path"`
	IncludeFileNameResolved     bool            `mapstructure:"include_file_name_resolved"`
	IncludeFilePathResolved     bool            `mapstructure:"include_file_path_resolved"`
	IncludeFileRecordNumber     bool            `mapstructure:"include_file_record_number"`
	// Compression: auto (detected from the content: gzip, bzip2, xz, zstd or plain), or one of
	// none, gzip, bzip2, xz, zstd to force it. file_log's "" means none.
	Compression     string            `mapstructure:"compression"`
	DeleteAfterRead bool              `mapstructure:"delete_after_read"`
	StorageID       *component.ID     `mapstructure:"storage"`
	Attributes      map[string]string `mapstructure:"attributes"`
	Resource        map[string]string `mapstructure:"resource"`

	// Format is text (lines as they are) or container: lines written by a container runtime
	// (CRI or Docker json-file), whose prefix is stripped and whose split lines are joined.
	Format string `mapstructure:"format"`

	Timestamp      *TimestampConfig `mapstructure:"timestamp"`
	Merge          MergeConfig      `mapstructure:"merge"`
	Batch          BatchConfig      `mapstructure:"batch"`
	RetryOnFailure RetryConfig      `mapstructure:"retry_on_failure"`

	_ struct{}
}

// MultilineConfig joins lines into entries. Every pattern is matched as an anchored prefix of
// each line: it must match starting at the line's first byte (a leading ^ changes nothing).
type MultilineConfig struct {
	LineStartPattern    string `mapstructure:"line_start_pattern"`
	LineContinuePattern string `mapstructure:"line_continue_pattern"`
	LineEndPattern      string `mapstructure:"line_end_pattern"`
	// OmitPattern removes the matched start (or end) pattern text from each entry, as file_log does.
	OmitPattern bool `mapstructure:"omit_pattern"`
	// MaxLines caps the lines of one entry (0 = no cap); bytes are capped by max_log_size.
	MaxLines int `mapstructure:"max_lines"`
}

// TimestampConfig parses each entry's timestamp into LogRecord.Timestamp.
type TimestampConfig struct {
	// Format: clf (after the first '['), rfc3339/iso8601 (at the entry start) or layout.
	Format string `mapstructure:"format"`
	// Layout is a strptime-style layout (e.g. "%Y-%m-%d %H:%M:%S.%L"); it implies format layout.
	Layout string `mapstructure:"layout"`
	// Location is the IANA zone for timestamps without an offset (default UTC).
	Location string `mapstructure:"location"`
	// Regex, when set, finds the timestamp as its first capture group.
	Regex string `mapstructure:"regex"`
}

// MergeConfig orders entries from all files by timestamp before they go out.
type MergeConfig struct {
	Enabled bool `mapstructure:"enabled"`
	// Window bounds how long an entry of a live file is held while waiting for the other
	// active files to reach its instant; a quiet file delays the others by at most this.
	Window time.Duration `mapstructure:"window"`
	// MaxHeldPerFile bounds the entries one file may have waiting in the window: a file that
	// runs ahead of the others is not read further until they catch up (or the window passes).
	MaxHeldPerFile int `mapstructure:"max_held_per_file"`
}

// BatchConfig bounds the batches sent downstream.
type BatchConfig struct {
	MaxRecords int           `mapstructure:"max_records"`
	MaxBytes   ByteSize      `mapstructure:"max_bytes"`
	Timeout    time.Duration `mapstructure:"timeout"`
}

// RetryConfig is the backoff for batches the next consumer refused with a retryable error.
// Unlike file_log, retrying is always on: offsets only advance once a batch is accepted.
type RetryConfig struct {
	InitialInterval time.Duration `mapstructure:"initial_interval"`
	MaxInterval     time.Duration `mapstructure:"max_interval"`
}

const (
	startBeginning  = "beginning"
	startEnd        = "end"
	behaviorSplit   = "split"
	behaviorTrunc   = "truncate"
	encodingUTF8    = "utf-8"
	encodingRaw     = "utf-8-raw"
	encodingNop     = "nop"
	formatText      = "text"
	formatContainer = "container"
)

func createDefaultConfig() component.Config {
	return &Config{
		StartAt:            startEnd,
		PollInterval:       200 * time.Millisecond,
		FingerprintSize:    1000,
		MaxLogSize:         1 << 20,
		MaxLogSizeBehavior: behaviorSplit,
		MaxConcurrentFiles: 1024,
		Encoding:           encodingUTF8,
		ForceFlushPeriod:   500 * time.Millisecond,
		IncludeFileName:    true,
		Compression:        "auto",
		Format:             formatText,
		Merge:              MergeConfig{Window: 2 * time.Second, MaxHeldPerFile: 10000},
		Batch:              BatchConfig{MaxRecords: 1000, MaxBytes: 4 << 20, Timeout: 200 * time.Millisecond},
		RetryOnFailure:     RetryConfig{InitialInterval: 100 * time.Millisecond, MaxInterval: 5 * time.Second},
	}
}

// Validate checks every key and names it in the error.
func (c *Config) Validate() error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
	}
	if len(c.Include) == 0 {
		add("include", "at least one glob pattern is required")
	}
	for _, p := range c.Include {
		if !doublestar.ValidatePattern(p) {
			add("include", "invalid glob pattern %q", p)
		}
	}
	for _, p := range c.Exclude {
		if !doublestar.ValidatePattern(p) {
			add("exclude", "invalid glob pattern %q", p)
		}
	}
	if c.ExcludeOlderThan < 0 {
		add("exclude_older_than", "must not be negative (got %s)", c.ExcludeOlderThan)
	}
	if c.StartAt != startBeginning && c.StartAt != startEnd {
		add("start_at", "must be %q or %q (got %q)", startBeginning, startEnd, c.StartAt)
	}
	if c.PollInterval <= 0 {
		add("poll_interval", "must be positive (got %s)", c.PollInterval)
	}
	if c.FingerprintSize < 16 {
		add("fingerprint_size", "must be at least 16 bytes (got %d)", c.FingerprintSize)
	}
	if c.MaxLogSize <= 0 {
		add("max_log_size", "must be positive (got %d)", c.MaxLogSize)
	}
	if c.MaxLogSizeBehavior != behaviorSplit && c.MaxLogSizeBehavior != behaviorTrunc {
		add("max_log_size_behavior", "must be %q or %q (got %q)", behaviorSplit, behaviorTrunc, c.MaxLogSizeBehavior)
	}
	if c.MaxConcurrentFiles < 1 {
		add("max_concurrent_files", "must be at least 1 (got %d)", c.MaxConcurrentFiles)
	}
	switch c.Encoding {
	case encodingUTF8, "utf8", encodingRaw, encodingNop:
	default:
		add("encoding", "unsupported encoding %q (supported: utf-8, utf-8-raw, nop)", c.Encoding)
	}
	if c.ForceFlushPeriod < 0 {
		add("force_flush_period", "must not be negative (got %s)", c.ForceFlushPeriod)
	}
	if _, err := c.compression(); err != nil {
		add("compression", "%v", err)
	}
	if c.DeleteAfterRead && c.StartAt != startBeginning {
		add("delete_after_read", "requires start_at: beginning")
	}
	if c.Format != formatText && c.Format != formatContainer {
		add("format", "must be %q or %q (got %q)", formatText, formatContainer, c.Format)
	}
	errs = append(errs, c.Multiline.validate()...)
	if c.Timestamp != nil {
		if _, err := c.Timestamp.parserConfig(); err != nil {
			errs = append(errs, err) // named: "timestamp.location: …", "timestamp.regex: …"
		}
	}
	if c.Merge.Enabled && c.Timestamp == nil && c.Format != formatContainer {
		add("merge.enabled", "merging orders entries by time and needs a timestamp section (or format: container)")
	}
	if c.Merge.Window < 0 {
		add("merge.window", "must not be negative (got %s)", c.Merge.Window)
	}
	if c.Merge.MaxHeldPerFile < 1 {
		add("merge.max_held_per_file", "must be at least 1 (got %d)", c.Merge.MaxHeldPerFile)
	}
	if c.Batch.MaxRecords < 1 {
		add("batch.max_records", "must be at least 1 (got %d)", c.Batch.MaxRecords)
	}
	if c.Batch.MaxBytes < 1 {
		add("batch.max_bytes", "must be positive (got %d)", c.Batch.MaxBytes)
	}
	if c.Batch.Timeout <= 0 {
		add("batch.timeout", "must be positive (got %s)", c.Batch.Timeout)
	}
	if c.RetryOnFailure.InitialInterval <= 0 {
		add("retry_on_failure.initial_interval", "must be positive (got %s)", c.RetryOnFailure.InitialInterval)
	}
	if c.RetryOnFailure.MaxInterval < c.RetryOnFailure.InitialInterval {
		add("retry_on_failure.max_interval", "must be at least initial_interval (got %s)", c.RetryOnFailure.MaxInterval)
	}
	return errors.Join(errs...)
}

func (m MultilineConfig) validate() []error {
	var errs []error
	for _, p := range []struct{ key, pattern string }{
		{"multiline.line_start_pattern", m.LineStartPattern},
		{"multiline.line_continue_pattern", m.LineContinuePattern},
		{"multiline.line_end_pattern", m.LineEndPattern},
	} {
		if p.pattern == "" {
			continue
		}
		if _, err := linestart.Compile(p.pattern); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.key, err))
		}
	}
	if m.LineContinuePattern != "" && m.LineStartPattern == "" && m.LineEndPattern == "" {
		errs = append(errs, errors.New("multiline.line_continue_pattern: needs line_start_pattern or line_end_pattern beside it"))
	}
	if m.LineStartPattern != "" && m.LineContinuePattern != "" && m.LineEndPattern != "" {
		errs = append(errs, errors.New("multiline.line_continue_pattern: cannot be combined with both line_start_pattern and line_end_pattern"))
	}
	if m.OmitPattern && m.LineStartPattern == "" && m.LineEndPattern == "" {
		errs = append(errs, errors.New("multiline.omit_pattern: needs line_start_pattern or line_end_pattern"))
	}
	if m.MaxLines < 0 {
		errs = append(errs, fmt.Errorf("multiline.max_lines: must not be negative (got %d)", m.MaxLines))
	}
	return errs
}

// runtimePrefixRoom is what a container runtime's line may add to the log it carries (the
// prefix, JSON escapes), beyond max_log_size: the reader cuts lines only past it, so that a
// runtime's line is parsed whole and its log is what max_log_size caps.
const runtimePrefixRoom = 64 << 10

// maxLineSize is where the reader cuts a line.
func (c *Config) maxLineSize() int {
	if c.Format == formatContainer {
		return int(c.MaxLogSize) + runtimePrefixRoom
	}
	return int(c.MaxLogSize)
}

func (c *Config) compression() (decompress.Kind, error) {
	k, err := decompress.ParseKind(c.Compression)
	if err != nil {
		return 0, fmt.Errorf("unsupported compression %q (supported: auto, none, gzip, bzip2, xz, zstd)", c.Compression)
	}
	return k, nil
}

func (t *TimestampConfig) parserConfig() (timestamp.Config, error) {
	pc := timestamp.Config{Format: t.Format, Layout: t.Layout, Regex: t.Regex}
	if t.Layout != "" && pc.Format == "" {
		pc.Format = "layout"
	}
	if t.Location != "" {
		loc, err := time.LoadLocation(t.Location)
		if err != nil {
			return pc, fmt.Errorf("timestamp.location: %w", err)
		}
		pc.Location = loc
	}
	if _, err := timestamp.New(pc); err != nil {
		var ce *timestamp.ConfigError
		if errors.As(err, &ce) {
			return pc, fmt.Errorf("timestamp.%s: %w", ce.Field, ce.Err)
		}
		return pc, err
	}
	return pc, nil
}
