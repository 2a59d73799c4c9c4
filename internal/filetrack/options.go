package filetrack

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// Options configures a Tracker.
type Options struct {
	// Include and Exclude are doublestar globs; Exclude applies to the paths
	// Include matched.
	Include, Exclude []string
	// ExcludeOlderThan skips, at every poll, files whose modification time is
	// older than this, tracked ones too (a tracked file is then let go as one
	// that went away: read to its end if open, finished, and forgotten later);
	// 0 disables it.
	ExcludeOlderThan time.Duration
	// StartAtBeginning reads the files present at the first poll from their
	// start; otherwise plain ones from their last newline and compressed ones
	// not at all. Files found later are always read from the start, and so
	// are all new files after Restore loaded a checkpoint: they appeared
	// since the last run (a rotation while it was down), and skipping them
	// would lose their lines.
	StartAtBeginning bool
	// FingerprintSize is how many bytes of decompressed content identify a
	// file; 0 means DefaultFingerprintSize.
	FingerprintSize int
	// MaxConcurrentFiles bounds the open descriptors; 0 means
	// DefaultMaxConcurrentFiles.
	MaxConcurrentFiles int
	// MaxConcurrentDecoders bounds the compressed files read at once, each
	// with a decoder (whose window may be large) and a line reader; the
	// others wait for their turn. 0 means DefaultMaxConcurrentDecoders.
	MaxConcurrentDecoders int
	// Compression is decompress.Auto (detect by magic bytes) or a forced kind.
	Compression decompress.Kind
	// MaxLineSize cuts longer lines into pieces (see File.Split); 0 means
	// unlimited.
	MaxLineSize int
	// Newline is what ends a line in the files' encoding (UTF-16's "\n\x00");
	// nil means '\n'. Offsets and fingerprints stay in the files' bytes.
	Newline []byte
	// Ordering selects which listed files are followed (file_log's
	// ordering_criteria); nil follows them all.
	Ordering *Ordering
	// DeleteAfterRead deletes a file once it is read to its end and all of it
	// is committed.
	DeleteAfterRead bool
	// MaxDeletedBytes bounds the disk space held by files deleted while open
	// and not yet read to their end (their space is freed only when the
	// descriptor closes): beyond it the ones seen last the longest ago are
	// closed and their unread bytes counted lost (Stats.BytesLost). Unix only
	// (elsewhere an open file's deletion is not seen); 0 means no bound.
	MaxDeletedBytes int64
	// Watch lists, between full listings, only the paths that directory
	// watches (inotify) report changed, instead of globbing and stating every
	// path at every poll. Where watches are unavailable (not Linux, the
	// system's limits) every poll lists fully, as without it.
	Watch bool
	// FullScanInterval is how often, with Watch, every path is listed anyway:
	// the longest a change that raised no event waits to be seen. 0 means
	// DefaultFullScanInterval.
	FullScanInterval time.Duration
	// Logger receives the reports of unreadable files; nil means none.
	Logger *zap.Logger
}

// Defaults and limits, as file_log's.
const (
	DefaultFingerprintSize    = 1000
	MinFingerprintSize        = 16
	DefaultMaxConcurrentFiles = 1024
	// DefaultMaxConcurrentDecoders: a compressed file is read to its end
	// once started, and the reading is one goroutine, so more at once
	// would cost memory without reading faster.
	DefaultMaxConcurrentDecoders = 4
	// DefaultFullScanInterval is how often, with directory watches, every path is
	// globbed and stated again however quiet the watches are: the longest a change
	// that raised no event (a network file system, a write through a memory
	// mapping) waits to be seen.
	DefaultFullScanInterval = 10 * time.Second
)

const (
	// settlePolls is how many polls without growth a file gets before an
	// undecided question about it is settled (a copy still being written, a
	// compressed stream cut short).
	settlePolls = 3
	// forgetPolls is how many polls an identity is kept after its last file
	// was seen: long enough for a rotation's copy or compressed file to turn
	// up, short enough to keep the checkpoint small.
	forgetPolls = 20
)

// withDefaults validates o and returns it with its defaults filled in.
func (o Options) withDefaults() (Options, error) {
	if len(o.Include) == 0 {
		return o, errors.New("filetrack: no include pattern")
	}
	for _, p := range slices.Concat(o.Include, o.Exclude) {
		if !doublestar.ValidatePathPattern(p) {
			return o, fmt.Errorf("filetrack: bad glob %q", p)
		}
	}
	switch {
	case o.FingerprintSize == 0:
		o.FingerprintSize = DefaultFingerprintSize
	case o.FingerprintSize < MinFingerprintSize:
		return o, fmt.Errorf("filetrack: fingerprint size %d below %d", o.FingerprintSize, MinFingerprintSize)
	}
	switch {
	case o.MaxConcurrentFiles == 0:
		o.MaxConcurrentFiles = DefaultMaxConcurrentFiles
	case o.MaxConcurrentFiles < 1:
		return o, fmt.Errorf("filetrack: max concurrent files %d below 1", o.MaxConcurrentFiles)
	}
	switch {
	case o.MaxConcurrentDecoders == 0:
		o.MaxConcurrentDecoders = DefaultMaxConcurrentDecoders
	case o.MaxConcurrentDecoders < 1:
		return o, fmt.Errorf("filetrack: max concurrent decoders %d below 1", o.MaxConcurrentDecoders)
	}
	if o.ExcludeOlderThan < 0 || o.MaxLineSize < 0 || o.MaxDeletedBytes < 0 {
		return o, errors.New("filetrack: negative exclude_older_than, max line size or max deleted bytes")
	}
	switch {
	case o.FullScanInterval == 0:
		o.FullScanInterval = DefaultFullScanInterval
	case o.FullScanInterval < 0:
		return o, fmt.Errorf("filetrack: negative full scan interval %s", o.FullScanInterval)
	}
	if err := o.Ordering.validate(); err != nil {
		return o, err
	}
	if o.Compression < decompress.Auto || o.Compression > decompress.Zstd {
		return o, fmt.Errorf("filetrack: invalid compression %v", o.Compression)
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
	return o, nil
}
