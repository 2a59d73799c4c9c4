package mergelogreceiver

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// The config's enumerations are typed strings: the config decoder rejects a value outside the
// set (naming the key), and Validate checks the same for configs built in code.

// StartAt is where a file seen for the first time is read from.
type StartAt string

const (
	StartAtBeginning StartAt = "beginning"
	StartAtEnd       StartAt = "end"
)

func (s *StartAt) UnmarshalText(text []byte) error { return unmarshalEnum(text, s) }
func (s StartAt) validate() error                  { return oneOf(s, StartAtBeginning, StartAtEnd) }

// LogSizeBehavior is what happens to an entry longer than max_log_size: split (the rest becomes
// the next entry) or truncate (the rest, up to the end of the entry, is dropped).
type LogSizeBehavior string

const (
	BehaviorSplit    LogSizeBehavior = "split"
	BehaviorTruncate LogSizeBehavior = "truncate"
)

func (b *LogSizeBehavior) UnmarshalText(text []byte) error { return unmarshalEnum(text, b) }
func (b LogSizeBehavior) validate() error                  { return oneOf(b, BehaviorSplit, BehaviorTruncate) }

// Format is how a line is read: text (as it is) or container (a container runtime's line, CRI
// or Docker json-file, whose prefix is stripped and whose split lines are joined).
type Format string

const (
	FormatText      Format = "text"
	FormatContainer Format = "container"
)

func (f *Format) UnmarshalText(text []byte) error { return unmarshalEnum(text, f) }
func (f Format) validate() error                  { return oneOf(f, FormatText, FormatContainer) }

// OnCorruptCheckpoint is what Start does with stored checkpoint keys it cannot decode: start_over
// treats the files they described as files never seen (read as start_at says, or from their start
// when other identities were restored), counting and logging each key; fail refuses to start.
type OnCorruptCheckpoint string

const (
	CorruptCheckpointStartOver OnCorruptCheckpoint = "start_over"
	CorruptCheckpointFail      OnCorruptCheckpoint = "fail"
)

func (o *OnCorruptCheckpoint) UnmarshalText(text []byte) error { return unmarshalEnum(text, o) }
func (o OnCorruptCheckpoint) validate() error {
	return oneOf(o, CorruptCheckpointStartOver, CorruptCheckpointFail)
}

// TimestampFormat is where and how an entry's timestamp is read: clf (after the first '['),
// rfc3339 or iso8601 (at the entry start), or layout (strptime-style, with layout).
type TimestampFormat string

var timestampFormats = []TimestampFormat{"", "clf", "rfc3339", "iso8601", "layout"}

func (f *TimestampFormat) UnmarshalText(text []byte) error { return unmarshalEnum(text, f) }

// validate accepts any case, as the timestamp parser does.
func (f TimestampFormat) validate() error {
	return oneOf(TimestampFormat(strings.ToLower(string(f))), timestampFormats...)
}

// Compression is auto (detected from the content: gzip, bzip2, xz, zstd or plain), or one of
// none, gzip, bzip2, xz, zstd to force it; file_log's "" means none.
type Compression string

const CompressionAuto Compression = "auto"

func (c *Compression) UnmarshalText(text []byte) error {
	v := Compression(text)
	if _, err := v.kind(); err != nil {
		return err
	}
	*c = v
	return nil
}

func (c Compression) kind() (decompress.Kind, error) {
	k, err := decompress.ParseKind(string(c))
	if err != nil {
		return 0, fmt.Errorf("unsupported compression %q (supported: auto, none, gzip, bzip2, xz, zstd)", string(c))
	}
	return k, nil
}

// enum is a typed string with a set of accepted values.
type enum interface {
	~string
	validate() error
}

func unmarshalEnum[T enum](text []byte, dst *T) error {
	v := T(text)
	if err := v.validate(); err != nil {
		return err
	}
	*dst = v
	return nil
}

// oneOf checks that v is one of the accepted values, naming them otherwise.
func oneOf[T ~string](v T, accepted ...T) error {
	if slices.Contains(accepted, v) {
		return nil
	}
	names := make([]string, 0, len(accepted))
	for _, a := range accepted {
		if a != "" {
			names = append(names, fmt.Sprintf("%q", string(a)))
		}
	}
	return fmt.Errorf("unsupported value %q (supported: %s)", string(v), strings.Join(names, ", "))
}
