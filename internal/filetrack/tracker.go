package filetrack

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
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

// Stats are counters for telemetry.
type Stats struct {
	FilesOpen       int   // descriptors open now
	FilesTracked    int   // identities known now
	FilesDiscovered int64 // identities created
	BytesRead       int64 // decompressed bytes delivered, newlines included
	Rotations       int64 // moves of a file being read, and continuations from a copy
	Truncations     int64 // files truncated or rewritten in place
	ReadErrors      int64 // files given up because of a read or decompression error
	// DecodedAgain is decompressed bytes decoded a second time: a compressed file that
	// stalled (still being written) is decoded again from its start up to where it was read.
	DecodedAgain int64
	// BytesLost is bytes of files that went away, or were closed to bound the space deleted
	// files hold, before they were read to their end (bytes on disk: compressed ones for a
	// compressed file). Each loss is logged, naming the file.
	BytesLost int64
}

// Tracker discovers, identifies and reads files. See the package
// documentation.
type Tracker struct {
	opts Options
	log  *zap.Logger
	open func(string) (*os.File, error)
	// lines lends line readers for read rounds: a plain file gives its reader
	// back when a round leaves it (File.Yield, io.EOF), so only the file
	// being read and the compressed ones being decoded hold one.
	lines sync.Pool // *linereader.Reader

	mu       sync.Mutex
	closed   bool
	resumed  bool // a checkpoint was restored
	holding  bool // this poll is PollHolding's
	poll     uint64
	nextID   uint64
	files    map[uint64]*File
	changed  map[uint64]struct{} // identities created, restored or committed further since Changes
	gone     []uint64            // identities forgotten since Changes
	idx      index
	disk     map[fileKey]*diskFile
	reported map[string]string // path → problem reported
	fdsOpen  int
	starved  bool // resolve's comparison wanted a descriptor over MaxConcurrentFiles

	listing []listed // the matched paths, sorted (see list)
	watch   watching
	v       visits // what this poll looks at (see visits)

	// scratch, reused across polls
	paths, again []string
	work         []*diskFile
	cands, out   []*File
	compressed   []*File
	finished     []*File
	drained      []*File // checkSources' drained files, for boundDeleted
	fpRaw, fpDec []byte
	tailBuf      []byte
	winA, winB   [checkWindow]byte

	discovered, rotations, truncations, readErrors, bytesRead, decodedAgain, bytesLost atomic.Int64
}

// New validates opts and returns a Tracker.
func New(opts Options) (*Tracker, error) {
	if len(opts.Include) == 0 {
		return nil, errors.New("filetrack: no include pattern")
	}
	for _, p := range slices.Concat(opts.Include, opts.Exclude) {
		if !doublestar.ValidatePathPattern(p) {
			return nil, fmt.Errorf("filetrack: bad glob %q", p)
		}
	}
	switch {
	case opts.FingerprintSize == 0:
		opts.FingerprintSize = DefaultFingerprintSize
	case opts.FingerprintSize < MinFingerprintSize:
		return nil, fmt.Errorf("filetrack: fingerprint size %d below %d", opts.FingerprintSize, MinFingerprintSize)
	}
	switch {
	case opts.MaxConcurrentFiles == 0:
		opts.MaxConcurrentFiles = DefaultMaxConcurrentFiles
	case opts.MaxConcurrentFiles < 1:
		return nil, fmt.Errorf("filetrack: max concurrent files %d below 1", opts.MaxConcurrentFiles)
	}
	switch {
	case opts.MaxConcurrentDecoders == 0:
		opts.MaxConcurrentDecoders = DefaultMaxConcurrentDecoders
	case opts.MaxConcurrentDecoders < 1:
		return nil, fmt.Errorf("filetrack: max concurrent decoders %d below 1", opts.MaxConcurrentDecoders)
	}
	if opts.ExcludeOlderThan < 0 || opts.MaxLineSize < 0 || opts.MaxDeletedBytes < 0 {
		return nil, errors.New("filetrack: negative exclude_older_than, max line size or max deleted bytes")
	}
	switch {
	case opts.FullScanInterval == 0:
		opts.FullScanInterval = DefaultFullScanInterval
	case opts.FullScanInterval < 0:
		return nil, fmt.Errorf("filetrack: negative full scan interval %s", opts.FullScanInterval)
	}
	if err := opts.Ordering.validate(); err != nil {
		return nil, err
	}
	if opts.Compression < decompress.Auto || opts.Compression > decompress.Zstd {
		return nil, fmt.Errorf("filetrack: invalid compression %v", opts.Compression)
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	t := &Tracker{
		opts:     opts,
		log:      opts.Logger,
		open:     os.Open,
		files:    map[uint64]*File{},
		changed:  map[uint64]struct{}{},
		idx:      index{lens: map[int]int{}},
		disk:     map[fileKey]*diskFile{},
		reported: map[string]string{},
		fpRaw:    make([]byte, opts.FingerprintSize),
		fpDec:    make([]byte, opts.FingerprintSize),
		watch:    newWatching(),
		v:        newVisits(),
	}
	t.lines.New = func() any {
		return linereader.New(nil, linereader.Options{MaxLineSize: opts.MaxLineSize, Newline: opts.Newline})
	}
	return t, nil
}

// Poll discovers files, matches them to identities, opens and closes
// descriptors, and returns the files to read this round (sorted by ID): those
// with data, those being drained, and, once, those that finished during this
// poll. The slice is valid until the next Poll.
func (t *Tracker) Poll() []*File {
	return t.pollFor(false)
}

// PollHolding is Poll for a caller that cannot read now (its deliveries are blocked): files are
// discovered and descriptors opened as by Poll, but none with unread data is closed to give
// its turn to another, so that a file deleted or rotated away meanwhile can still be read to
// its end from the descriptor held.
func (t *Tracker) PollHolding() []*File {
	return t.pollFor(true)
}

func (t *Tracker) pollFor(holding bool) []*File {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.holding = holding
	moved, all := t.list()
	if !moved && t.watch.rest {
		t.v.relisted = t.v.relisted[:0]
		return nil // nothing changed, and the last poll left nothing to do
	}
	t.poll++
	t.finished = t.finished[:0]
	t.beginVisits(all)
	t.housekeep()
	t.scan()
	t.sweep()
	t.checkSources()
	t.boundDeleted()
	t.resolveAll()
	t.adopt()
	t.deleteRead()
	t.forget()
	out := t.allocate()
	t.endVisits(out)
	t.watch.rest = t.atRest(out)
	return out
}

// Commit records that the caller's data of file id up to end (a decompressed
// offset returned by Next or Partial) was accepted downstream, and that it
// held records records (the caller's count, kept in the checkpoint). It
// reports whether the committed offset moved, so that an unchanged
// checkpoint need not be written again.
func (t *Tracker) Commit(id uint64, end, records int64) (moved bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if f := t.files[id]; f != nil && end > f.committed {
		f.committed, f.records = end, records
		t.changed[id] = struct{}{}
		t.watch.rest = false
		t.stirFile(f)
		return true
	}
	return false
}

// Stats returns the counters.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	open, tracked := t.fdsOpen, len(t.files)
	t.mu.Unlock()
	return Stats{
		FilesOpen:       open,
		FilesTracked:    tracked,
		FilesDiscovered: t.discovered.Load(),
		BytesRead:       t.bytesRead.Load(),
		Rotations:       t.rotations.Load(),
		Truncations:     t.truncations.Load(),
		ReadErrors:      t.readErrors.Load(),
		DecodedAgain:    t.decodedAgain.Load(),
		BytesLost:       t.bytesLost.Load(),
	}
}

// Close closes every descriptor. Poll returns nothing after it.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var errs []error
	for _, f := range t.files {
		errs = append(errs, t.closeFileErr(f))
	}
	if t.watch.hints != nil {
		errs = append(errs, t.watch.hints.Close())
	}
	return errors.Join(errs...)
}
