package mergelogreceiver

import (
	"errors"
	"fmt"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/stanza/operator"
	"go.opentelemetry.io/collector/component"

	"github.com/mergelog/otelcol-mergelog/internal/refusal"
	"github.com/mergelog/otelcol-mergelog/receiver/mergelogreceiver/internal/stanzachain"
)

// Config is the receiver's configuration. Keys that file_log also has keep its names, defaults
// and meanings (see README.md for where ours differs). The collector validates each section
// with its own Validate (errors name the key as "section: key: …"); Config.Validate checks the top
// level and what spans sections.
type Config struct {
	Include            []string        `mapstructure:"include"`
	Exclude            []string        `mapstructure:"exclude"`
	ExcludeOlderThan   time.Duration   `mapstructure:"exclude_older_than"`
	StartAt            StartAt         `mapstructure:"start_at"`
	PollInterval       time.Duration   `mapstructure:"poll_interval"`
	FingerprintSize    ByteSize        `mapstructure:"fingerprint_size"`
	MaxLogSize         ByteSize        `mapstructure:"max_log_size"`
	MaxLogSizeBehavior LogSizeBehavior `mapstructure:"max_log_size_behavior"`
	MaxConcurrentFiles int             `mapstructure:"max_concurrent_files"`
	// MaxDeletedBytes bounds the disk space that files deleted while open, and not yet read to
	// their end, may hold (the space is freed only when the receiver closes them).
	MaxDeletedBytes  ByteSize        `mapstructure:"max_deleted_bytes"`
	Encoding         Encoding        `mapstructure:"encoding"`
	Multiline        MultilineConfig `mapstructure:"multiline"`
	ForceFlushPeriod time.Duration   `mapstructure:"force_flush_period"`

	PreserveLeadingWhitespaces  bool `mapstructure:"preserve_leading_whitespaces"`
	PreserveTrailingWhitespaces bool `mapstructure:"preserve_trailing_whitespaces"`
	IncludeFileName             bool `mapstructure:"include_file_name"`
	IncludeFilePath             bool `mapstructure:"include_file_path"`
	IncludeFileNameResolved     bool `mapstructure:"include_file_name_resolved"`
	IncludeFilePathResolved     bool `mapstructure:"include_file_path_resolved"`
	IncludeFileRecordNumber     bool `mapstructure:"include_file_record_number"`
	IncludeFileRecordOffset     bool `mapstructure:"include_file_record_offset"`
	IncludeFileOwnerName        bool `mapstructure:"include_file_owner_name"`
	IncludeFileOwnerGroupName   bool `mapstructure:"include_file_owner_group_name"`
	IncludeFilePermissions      bool `mapstructure:"include_file_permissions"`

	Compression     Compression       `mapstructure:"compression"`
	DeleteAfterRead bool              `mapstructure:"delete_after_read"`
	StorageID       *component.ID     `mapstructure:"storage"`
	Attributes      map[string]string `mapstructure:"attributes"`
	Resource        map[string]string `mapstructure:"resource"`
	Format          Format            `mapstructure:"format"`
	// SplitLineWait is how long, with format container, the pieces of a line the runtime split
	// that are left at the end of a file wait for their rest, in the same file or in the next
	// file of the container stream, before they are emitted as they are (splitwait.go).
	SplitLineWait time.Duration `mapstructure:"split_line_wait"`
	// Operators are file_log's, decoded and run by stanza (see operators.go, chain.go).
	Operators []operator.Config `mapstructure:"operators"`
	// Header parses the lines at a file's start into attributes of all its records (header.go).
	Header *HeaderConfig `mapstructure:"header"`
	// OrderingCriteria selects which of the matched files are read (ordering.go).
	OrderingCriteria OrderingConfig `mapstructure:"ordering_criteria"`
	OnTruncate       OnTruncate     `mapstructure:"on_truncate"`
	// FileLogTuning holds file_log's keys that have no effect in this design (inertkeys.go).
	FileLogTuning `mapstructure:",squash"`

	// OnCorruptCheckpoint is what Start does with checkpoint keys in storage it cannot decode.
	OnCorruptCheckpoint OnCorruptCheckpoint `mapstructure:"on_corrupt_checkpoint"`
	// MaxPartialBytes bounds the bytes of entries not finished yet across all files.
	MaxPartialBytes ByteSize `mapstructure:"max_partial_bytes"`

	Timestamp      *TimestampConfig `mapstructure:"timestamp"`
	Merge          MergeConfig      `mapstructure:"merge"`
	Batch          BatchConfig      `mapstructure:"batch"`
	Watch          WatchConfig      `mapstructure:"watch"`
	RetryOnFailure RetryConfig      `mapstructure:"retry_on_failure"`
	// OnRefusal says what a refusal for good does, by what it is about (internal/refusal).
	OnRefusal refusal.Policy `mapstructure:"on_refusal"`

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
	// Detect joins the stack traces of these languages (java, python, go, nodejs, ruby, dotnet,
	// php, or all) without patterns.
	Detect []string `mapstructure:"detect"`
}

// TimestampConfig parses each entry's timestamp into LogRecord.Timestamp.
type TimestampConfig struct {
	Format TimestampFormat `mapstructure:"format"`
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
	// MaxInFlight is how many batches may wait for the next consumer at once while the
	// receiver reads on; checkpoints still move strictly in order. With merge it is 1.
	MaxInFlight int `mapstructure:"max_in_flight"`
}

// WatchConfig is how file changes are found between full listings (file_log has no such keys:
// it globs and stats every file at every poll).
type WatchConfig struct {
	// Enabled learns from directory watches (inotify, Linux only) which files changed, and polls
	// state only those between full listings. Where watches are not available (other systems,
	// the system's limits) every poll lists every file, as with it off.
	Enabled bool `mapstructure:"enabled"`
	// FullScanInterval is how often, with watches, every file is globbed and stated anyway: a
	// change that raised no event (a network file system, a lost event) is seen within it.
	FullScanInterval time.Duration `mapstructure:"full_scan_interval"`
}

// RetryConfig is the backoff for batches the next consumer refused with a retryable error.
// Unlike file_log, retrying is always on: offsets only advance once a batch is accepted.
// Enabled and MaxElapsedTime are accepted so that file_log configs work as they are; neither
// turns retrying off or makes it give up (which would drop data), and Start says so.
type RetryConfig struct {
	Enabled         *bool         `mapstructure:"enabled"`
	InitialInterval time.Duration `mapstructure:"initial_interval"`
	MaxInterval     time.Duration `mapstructure:"max_interval"`
	MaxElapsedTime  time.Duration `mapstructure:"max_elapsed_time"`
}

// defaultMaxBytes is batch.max_bytes's default: 3 MiB of encoded OTLP, under the 4 MiB a gRPC
// server (the otlp receiver's max_recv_msg_size_mib) accepts by default, with a quarter of it
// left for what processors between here and the exporter add (k8sattributes, resource).
const defaultMaxBytes = 3 << 20

// grpcDefaultMaxRecv is gRPC's default limit of a received message: Start warns when
// batch.max_bytes exceeds it.
const grpcDefaultMaxRecv = 4 << 20

// maxInFlightLimit bounds batch.max_in_flight: each batch in flight holds up to max_bytes.
const maxInFlightLimit = 64

// keyErrors collects errors that each name their key.
type keyErrors []error

func (e *keyErrors) add(key, format string, args ...any) {
	*e = append(*e, fmt.Errorf("%s: "+format, append([]any{key}, args...)...))
}

func (e *keyErrors) check(key string, err error) {
	if err != nil {
		e.add(key, "%v", err)
	}
}

func (e keyErrors) join() error { return errors.Join(e...) }

// Validate checks the top-level keys and what spans sections.
func (c *Config) Validate() error {
	var errs keyErrors
	if len(c.Include) == 0 {
		errs.add("include", "at least one glob pattern is required")
	}
	for _, p := range c.Include {
		if !doublestar.ValidatePattern(p) {
			errs.add("include", "invalid glob pattern %q", p)
		}
	}
	for _, p := range c.Exclude {
		if !doublestar.ValidatePattern(p) {
			errs.add("exclude", "invalid glob pattern %q", p)
		}
	}
	if c.ExcludeOlderThan < 0 {
		errs.add("exclude_older_than", "must not be negative (got %s)", c.ExcludeOlderThan)
	}
	errs.check("start_at", c.StartAt.validate())
	if c.PollInterval <= 0 {
		errs.add("poll_interval", "must be positive (got %s)", c.PollInterval)
	}
	if c.FingerprintSize < 16 {
		errs.add("fingerprint_size", "must be at least 16 bytes (got %d)", c.FingerprintSize)
	}
	if c.MaxLogSize <= 0 {
		errs.add("max_log_size", "must be positive (got %d)", c.MaxLogSize)
	}
	errs.check("max_log_size_behavior", c.MaxLogSizeBehavior.validate())
	if c.MaxConcurrentFiles < 1 {
		errs.add("max_concurrent_files", "must be at least 1 (got %d)", c.MaxConcurrentFiles)
	}
	if c.MaxDeletedBytes < 1 {
		errs.add("max_deleted_bytes", "must be positive (got %d)", c.MaxDeletedBytes)
	}
	errs.check("encoding", c.Encoding.validate())
	if c.ForceFlushPeriod < 0 {
		errs.add("force_flush_period", "must not be negative (got %s)", c.ForceFlushPeriod)
	}
	if c.SplitLineWait < 0 {
		errs.add("split_line_wait", "must not be negative (got %s)", c.SplitLineWait)
	}
	_, err := c.Compression.kind()
	errs.check("compression", err)
	if c.DeleteAfterRead && c.StartAt != StartAtBeginning {
		errs.add("delete_after_read", "requires start_at: beginning")
	}
	if c.Header != nil && c.StartAt != StartAtBeginning {
		errs.add("header", "requires start_at: beginning (as in file_log: a header is read from a file's start)")
	}
	errs.check("format", c.Format.validate())
	errs.check("on_truncate", c.OnTruncate.validate())
	errs.check("on_corrupt_checkpoint", c.OnCorruptCheckpoint.validate())
	if c.MaxPartialBytes < 1 {
		errs.add("max_partial_bytes", "must be positive (got %d)", c.MaxPartialBytes)
	}
	c.validateTuning(&errs)
	c.validateOwnership(&errs)
	c.validateValues(&errs)
	if err := stanzachain.Validate(c.Operators); err != nil {
		errs = append(errs, err)
	}
	if c.Merge.Enabled && c.Timestamp == nil && !c.container() && len(c.Operators) == 0 {
		errs.add("merge.enabled", "merging orders entries by time and needs a timestamp section (or format: container, or operators that set it)")
	}
	return errs.join()
}

// Validate checks the multiline section.
func (m *MultilineConfig) Validate() error {
	var errs keyErrors
	_, err := m.compile()
	errs = append(errs, err)
	if m.LineContinuePattern != "" && m.LineStartPattern == "" && m.LineEndPattern == "" {
		errs.add("line_continue_pattern", "needs line_start_pattern or line_end_pattern beside it")
	}
	if m.LineStartPattern != "" && m.LineContinuePattern != "" && m.LineEndPattern != "" {
		errs.add("line_continue_pattern", "cannot be combined with both line_start_pattern and line_end_pattern")
	}
	if m.OmitPattern && m.LineStartPattern == "" && m.LineEndPattern == "" {
		errs.add("omit_pattern", "needs line_start_pattern or line_end_pattern")
	}
	if m.MaxLines < 0 {
		errs.add("max_lines", "must not be negative (got %d)", m.MaxLines)
	}
	if len(m.Detect) > 0 && (m.LineStartPattern != "" || m.LineContinuePattern != "" || m.LineEndPattern != "") {
		errs.add("detect", "cannot be combined with line_start_pattern, line_continue_pattern or line_end_pattern")
	}
	return errs.join()
}

// Validate checks the timestamp section.
func (t *TimestampConfig) Validate() error {
	_, err := t.compile()
	return err
}

// Validate checks the merge section.
func (m *MergeConfig) Validate() error {
	var errs keyErrors
	if m.Window < 0 {
		errs.add("window", "must not be negative (got %s)", m.Window)
	}
	if m.MaxHeldPerFile < 1 {
		errs.add("max_held_per_file", "must be at least 1 (got %d)", m.MaxHeldPerFile)
	}
	return errs.join()
}

// Validate checks the batch section.
func (b *BatchConfig) Validate() error {
	var errs keyErrors
	if b.MaxRecords < 1 {
		errs.add("max_records", "must be at least 1 (got %d)", b.MaxRecords)
	}
	if b.MaxBytes < 1 {
		errs.add("max_bytes", "must be positive (got %d)", b.MaxBytes)
	}
	if b.Timeout <= 0 {
		errs.add("timeout", "must be positive (got %s)", b.Timeout)
	}
	if b.MaxInFlight < 1 || b.MaxInFlight > maxInFlightLimit {
		errs.add("max_in_flight", "must be from 1 to %d (got %d)", maxInFlightLimit, b.MaxInFlight)
	}
	return errs.join()
}

// Validate checks the watch section.
func (w *WatchConfig) Validate() error {
	var errs keyErrors
	if w.FullScanInterval <= 0 {
		errs.add("full_scan_interval", "must be positive (got %s)", w.FullScanInterval)
	}
	return errs.join()
}

// Validate checks the retry_on_failure section.
func (r *RetryConfig) Validate() error {
	var errs keyErrors
	if r.InitialInterval <= 0 {
		errs.add("initial_interval", "must be positive (got %s)", r.InitialInterval)
	}
	if r.MaxInterval < r.InitialInterval {
		errs.add("max_interval", "must be at least initial_interval (got %s)", r.MaxInterval)
	}
	if r.MaxElapsedTime < 0 {
		errs.add("max_elapsed_time", "must not be negative (got %s)", r.MaxElapsedTime)
	}
	return errs.join()
}
