package filetrack

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
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
	// ExcludeOlderThan skips files not yet tracked whose modification time
	// is older than this; 0 disables it. A tracked file stays tracked.
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
	// Compression is decompress.Auto (detect by magic bytes) or a forced kind.
	Compression decompress.Kind
	// MaxLineSize cuts longer lines into pieces (see File.Split); 0 means
	// unlimited.
	MaxLineSize int
	// DeleteAfterRead deletes a file once it is read to its end and all of it
	// is committed.
	DeleteAfterRead bool
	// Logger receives the reports of unreadable files; nil means none.
	Logger *zap.Logger
}

// Defaults and limits, as file_log's.
const (
	DefaultFingerprintSize    = 1000
	MinFingerprintSize        = 16
	DefaultMaxConcurrentFiles = 1024
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
	// startTail is how far back from the end a start at the end looks for
	// the last newline, so that a line being written is not cut.
	startTail = 64 << 10
	// whole is the offset of a compressed file skipped at the first poll:
	// all of it, whatever its decompressed size.
	whole = math.MaxInt64
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
}

type role uint8

const (
	roleNew    role = iota // not matched to an identity (yet)
	roleSource             // the file an identity is read from
	roleShadow             // a copy of an identity that has its source: not read
)

// phys is a file on disk, known by device and inode.
type phys struct {
	key            fileKey
	path, resolved string
	size, prevSize int64
	mtime          int64
	seen           uint64 // last poll in which a matched path led here
	atStart        bool   // found at the first poll
	changed        bool   // size or modification time changed at the last poll
	retry          bool   // to be matched again at the next poll even if unchanged
	stalls         int    // polls without change while undecided
	role           role
	ident          *File
	exclude        *File // the identity it was truncated away from
	strong         bool  // a shadow verified beyond the fingerprint
	verGen         uint64
	kind           decompress.Kind
}

// Tracker discovers, identifies and reads files. See the package
// documentation.
type Tracker struct {
	opts  Options
	log   *zap.Logger
	open  func(string) (*os.File, error)
	lines sync.Pool // *linereader.Reader, held only while a file is being read

	mu       sync.Mutex
	closed   bool
	resumed  bool // a checkpoint was restored
	poll     uint64
	nextID   uint64
	files    map[uint64]*File
	idx      index
	phys     map[fileKey]*phys
	reported map[string]string // path → problem reported
	nopen    int

	// scratch, reused across polls
	paths        []string
	work         []*phys
	cands, out   []*File
	finished     []*File
	fpRaw, fpDec []byte
	tailBuf      []byte
	winA, winB   [checkWindow]byte

	discovered, rotations, truncations, readErrors, bytesRead atomic.Int64
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
	if opts.ExcludeOlderThan < 0 || opts.MaxLineSize < 0 {
		return nil, errors.New("filetrack: negative exclude_older_than or max line size")
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
		idx:      index{lens: map[int]int{}},
		phys:     map[fileKey]*phys{},
		reported: map[string]string{},
		fpRaw:    make([]byte, opts.FingerprintSize),
		fpDec:    make([]byte, opts.FingerprintSize),
	}
	t.lines.New = func() any {
		return linereader.New(nil, linereader.Options{MaxLineSize: opts.MaxLineSize})
	}
	return t, nil
}

// Poll discovers files, matches them to identities, opens and closes
// descriptors, and returns the files to read this round (sorted by ID): those
// with data, those being drained, and, once, those that finished during this
// poll. The slice is valid until the next Poll.
func (t *Tracker) Poll() []*File {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return nil
	}
	t.poll++
	t.finished = t.finished[:0]
	t.housekeep()
	t.scan()
	t.sweep()
	t.checkSources()
	t.resolveAll()
	t.adopt()
	t.deleteRead()
	t.forget()
	return t.allocate()
}

// housekeep closes the files that finished before this poll (the caller has
// had its round to flush their partial lines) and counts bytes read by
// rounds that stopped before the end.
func (t *Tracker) housekeep() {
	for _, f := range t.files {
		if f.done && (f.fd != nil || f.lr != nil) {
			t.closeFile(f)
		}
		if f.off > f.counted {
			t.bytesRead.Add(f.off - f.counted)
			f.counted = f.off
		}
	}
}

// scan globs and stats the matched paths.
func (t *Tracker) scan() {
	t.paths = t.paths[:0]
	for _, pat := range t.opts.Include {
		// New validated the pattern; I/O errors are skipped, as file_log does.
		m, _ := doublestar.FilepathGlob(pat)
		t.paths = append(t.paths, m...)
	}
	slices.Sort(t.paths)
	t.paths = slices.Compact(t.paths)
	var cutoff time.Time
	if t.opts.ExcludeOlderThan > 0 {
		cutoff = time.Now().Add(-t.opts.ExcludeOlderThan)
	}
	for _, p := range t.paths {
		if t.excluded(p) {
			continue
		}
		info, err := os.Lstat(p)
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = os.Stat(p)
		}
		switch {
		case err != nil:
			t.report(p, err)
			continue
		case info.IsDir():
			t.reportAs(p, "is a directory", nil)
			continue
		case !info.Mode().IsRegular():
			t.reportAs(p, "not a regular file", nil)
			continue
		}
		key := keyOf(info)
		ph := t.phys[key]
		if ph != nil && ph.seen == t.poll {
			continue // another path to the same file: read it once
		}
		size, mtime := info.Size(), info.ModTime().UnixNano()
		if ph == nil {
			if !cutoff.IsZero() && info.ModTime().Before(cutoff) {
				continue
			}
			ph = &phys{key: key, atStart: t.poll == 1, changed: true}
			t.phys[key] = ph
		} else {
			ph.changed = size != ph.size || mtime != ph.mtime
		}
		if ph.path != p {
			t.moved(ph, p)
		}
		ph.prevSize, ph.size, ph.mtime, ph.seen = ph.size, size, mtime, t.poll
		if ph.role == roleSource {
			ph.ident.draining = false
		}
	}
	for p := range t.reported {
		if _, ok := slices.BinarySearch(t.paths, p); !ok {
			delete(t.reported, p)
		}
	}
}

func (t *Tracker) excluded(p string) bool {
	for _, pat := range t.opts.Exclude {
		if ok, _ := doublestar.PathMatch(pat, p); ok {
			return true
		}
	}
	return false
}

// moved records a file's new path.
func (t *Tracker) moved(ph *phys, p string) {
	if ph.path != "" && ph.role == roleSource {
		t.rotations.Add(1)
		t.log.Debug("file moved", zap.String("from", ph.path), zap.String("to", p))
	}
	ph.path = p
	ph.resolved = p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		ph.resolved = r
	}
	if ph.role == roleSource {
		ph.ident.path, ph.ident.resolved = ph.path, ph.resolved
	}
}

// sweep handles the files not seen in this poll: an open one is drained, the
// others are forgotten (an identity can find them again by fingerprint).
func (t *Tracker) sweep() {
	for key, ph := range t.phys {
		if ph.seen == t.poll {
			continue
		}
		ph.changed = false
		if ph.role == roleSource {
			f := ph.ident
			if f.fd != nil && !f.done {
				if !f.draining {
					f.draining = true
					t.log.Debug("file gone, reading it to its end", zap.String("path", ph.path))
				}
				continue
			}
			f.src = nil
		}
		delete(t.phys, key)
	}
}

// checkSources looks at the files being read: drained ones that are done,
// stalled compressed ones, truncated or rewritten ones.
func (t *Tracker) checkSources() {
	for _, f := range t.files {
		ph := f.src
		if ph == nil || f.done {
			continue
		}
		switch {
		case f.stalled:
			if ph.changed {
				f.stalled, f.stalls = false, 0
				t.closeFile(f) // read again from the start of the stream
			} else if f.stalls++; f.stalls >= settlePolls {
				t.failStalled(f)
			}
		case f.draining:
			if f.kind == decompress.Plain {
				if info, err := f.fd.Stat(); err == nil {
					ph.size = info.Size()
				}
				if !t.sameStart(f, f.fd, ph.size) {
					t.goneRewritten(f, ph)
				} else if f.eof && ph.size == f.tail.pos {
					t.finish(f)
				}
			}
		case !ph.changed:
		case ph.size < ph.prevSize || f.kind == decompress.Plain && ph.size < f.tail.pos:
			t.truncations.Add(1)
			t.log.Info("file truncated, reading it again from the start", zap.String("path", ph.path))
			t.detach(f, ph)
		case f.kind == decompress.Plain && f.fd != nil && !t.sameStart(f, f.fd, ph.size):
			t.rewritten(f, ph)
		}
	}
}

func (t *Tracker) failStalled(f *File) {
	t.closeFile(f)
	f.err, f.failed = f.stallErr, true
	t.readErrors.Add(1)
	t.log.Warn("compressed file cut short and not growing, giving it up",
		zap.String("path", f.path), zap.Int64("offset", f.off), zap.Error(f.stallErr))
	t.finish(f)
}

// sameStart verifies that an open plain file still holds f's stream: its
// fingerprint, and its last check point within the file (a file truncated
// and refilled past the read offset can start with the same header). The
// fingerprint grows with the file.
func (t *Tracker) sameStart(f *File, fd *os.File, size int64) bool {
	b := t.fpRaw[:min(size, int64(t.opts.FingerprintSize))]
	if _, err := fd.ReadAt(b, 0); err != nil {
		return true // reading will report it
	}
	if !bytes.HasPrefix(b, f.fp) {
		return false
	}
	if i := lastCheck(f.checks, size); i >= 0 {
		if w, ok := readWindow(fd, f.checks[i].off, &t.winA); ok && sum(w) != f.checks[i].sum {
			return false
		}
	}
	if len(b) > len(f.fp) {
		t.idx.remove(f)
		f.fp = append(f.fp, b[len(f.fp):]...)
		t.idx.insert(f)
	}
	return true
}

func (t *Tracker) rewritten(f *File, ph *phys) {
	t.truncations.Add(1)
	t.log.Info("file rewritten, reading it again from the start", zap.String("path", ph.path))
	t.detach(f, ph)
}

// goneRewritten lets go of a file that is gone and was rewritten before it went (a
// copytruncate refilled past what was read, then rotated away): what it holds is another
// stream, read from its own copy if one appears, and the rest of f's stream is in f's copy.
func (t *Tracker) goneRewritten(f *File, ph *phys) {
	t.truncations.Add(1)
	t.log.Info("file gone, and rewritten before it went; continuing it from a copy if one appears",
		zap.String("path", ph.path), zap.Int64("offset", f.off))
	t.closeFile(f)
	f.src, f.draining = nil, false
	delete(t.phys, ph.key)
}

// detach takes ph away from identity f: ph is matched again as a new
// candidate that is never f's continuation, and f waits for a copy.
func (t *Tracker) detach(f *File, ph *phys) {
	t.closeFile(f)
	f.src, f.draining, f.stalled = nil, false, false
	ph.role, ph.ident, ph.exclude, ph.retry = roleNew, nil, f, true
}

// resolveAll matches new, changed and undecided files to identities.
func (t *Tracker) resolveAll() {
	work := t.work[:0]
	for _, ph := range t.phys {
		if ph.seen != t.poll || ph.size == 0 {
			continue
		}
		switch ph.role {
		case roleNew:
			if ph.changed || ph.retry {
				work = append(work, ph)
			}
		case roleShadow:
			if ph.changed || ph.retry || !ph.strong && ph.verGen != ph.ident.checkGen {
				work = append(work, ph)
			}
		}
	}
	slices.SortFunc(work, func(a, b *phys) int { return cmp.Compare(a.path, b.path) })
	for _, ph := range work {
		t.resolve(ph)
	}
	clear(work)
	t.work = work[:0]
}

func (t *Tracker) resolve(ph *phys) {
	ph.retry = false
	fd, fp, ok := t.identify(ph)
	if !ok {
		return
	}
	defer t.closeRaw(fd)
	if ph.role == roleShadow {
		x := ph.ident
		if bytes.HasPrefix(fp, x.fp) || bytes.HasPrefix(x.fp, fp) {
			if v := t.verify(ph, fd, x); v >= weak {
				ph.strong, ph.verGen = v == strong, x.checkGen
				return
			}
		}
		ph.role, ph.ident = roleNew, nil
	}
	cands := t.idx.compatible(fp, t.cands[:0])
	slices.SortFunc(cands, func(a, b *File) int {
		// its own inode first, then identities waiting for a source
		if (a.key == ph.key) != (b.key == ph.key) {
			if a.key == ph.key {
				return -1
			}
			return 1
		}
		wa, wb := a.src == nil && !a.done, b.src == nil && !b.done
		if wa != wb {
			if wa {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})
	undecided := false
	for _, x := range cands {
		if x == ph.exclude {
			continue
		}
		switch v := t.verify(ph, fd, x); v {
		case differ:
		case unknown:
			undecided = true
		default:
			clear(cands)
			t.cands = cands[:0]
			t.attach(ph, x, v == strong)
			return
		}
	}
	clear(cands)
	t.cands = cands[:0]
	if undecided {
		if ph.changed {
			ph.stalls = 0
		} else {
			ph.stalls++
		}
		if ph.stalls < settlePolls {
			ph.retry = true
			return
		}
	}
	t.create(ph, fd, fp)
}

// identify opens ph and reads its kind and fingerprint. The descriptor is
// the caller's to close.
func (t *Tracker) identify(ph *phys) (*os.File, []byte, bool) {
	if !t.slot() {
		ph.retry = true
		return nil, nil, false
	}
	fd, err := t.open(ph.path)
	if err != nil {
		ph.retry = true // permission denied or vanished: try again next poll
		t.report(ph.path, err)
		return nil, nil, false
	}
	t.nopen++
	info, err := fd.Stat()
	if err != nil || keyOf(info) != ph.key {
		t.closeRaw(fd) // replaced since the stat: the next poll sees the new file
		ph.retry = true
		return nil, nil, false
	}
	t.readable(ph.path)
	n, err := fd.ReadAt(t.fpRaw, 0)
	if err != nil && err != io.EOF {
		t.closeRaw(fd)
		t.report(ph.path, err)
		ph.retry = true
		return nil, nil, false
	}
	if n == 0 {
		t.closeRaw(fd) // emptied since the stat
		return nil, nil, false
	}
	raw := t.fpRaw[:n]
	kind := t.opts.Compression
	if kind == decompress.Auto {
		kind = decompress.Sniff(raw)
	}
	ph.kind = kind
	if kind == decompress.Plain {
		return fd, raw, true
	}
	dec, err := decompress.NewReaderKind(io.NewSectionReader(fd, 0, ph.size), kind)
	if err == nil {
		n, err = io.ReadFull(dec, t.fpDec)
		dec.Close()
	}
	if n == 0 {
		t.closeRaw(fd)
		if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.reportAs(ph.path, "corrupt", err) // tried again when it changes
		}
		return nil, nil, false // nothing decodable yet: tried again when it grows
	}
	return fd, t.fpDec[:n], true
}

// attach makes ph a shadow of identity x; adopt promotes it to source if x
// has none.
func (t *Tracker) attach(ph *phys, x *File, strong bool) {
	ph.stalls, ph.exclude = 0, nil
	ph.role, ph.ident, ph.strong, ph.verGen = roleShadow, x, strong, x.checkGen
}

func (t *Tracker) setSource(x *File, ph *phys) {
	if x.handed && ph.key != x.key {
		t.rotations.Add(1)
		t.log.Info("continuing a file from its copy",
			zap.String("from", x.path), zap.String("to", ph.path), zap.Int64("offset", x.off))
	}
	ph.role, ph.ident = roleSource, x
	x.src, x.key, x.kind = ph, ph.key, ph.kind
	x.path, x.resolved = ph.path, ph.resolved
	x.draining, x.eof = false, false
}

// create makes ph a new identity.
func (t *Tracker) create(ph *phys, fd *os.File, fp []byte) {
	t.nextID++
	f := &File{
		t:      t,
		id:     t.nextID,
		fp:     append(make([]byte, 0, t.opts.FingerprintSize), fp...),
		key:    ph.key,
		checks: make([]check, 0, maxChecks+1),
	}
	if ph.atStart && !t.opts.StartAtBeginning && !t.resumed {
		if ph.kind == decompress.Plain {
			f.off = t.startOffset(f, fd, ph.size)
		} else {
			f.off, f.whole, f.done = whole, true, true
		}
	}
	f.committed, f.counted, f.tail.pos = f.off, f.off, f.off
	ph.stalls, ph.exclude = 0, nil
	t.setSource(f, ph)
	t.files[f.id] = f
	t.idx.insert(f)
	t.discovered.Add(1)
}

// startOffset returns where a plain file found at the first poll starts
// being read: after its last newline. The bytes before it seed the identity's
// check points, so a copy can be told apart before anything is read.
func (t *Tracker) startOffset(f *File, fd *os.File, size int64) int64 {
	n := min(size, startTail)
	if t.tailBuf == nil {
		t.tailBuf = make([]byte, startTail)
	}
	b := t.tailBuf[:n]
	if _, err := fd.ReadAt(b, size-n); err != nil {
		return size
	}
	i := bytes.LastIndexByte(b, '\n')
	if i < 0 {
		return size
	}
	off := size - n + int64(i) + 1
	if w := min(off, checkWindow); int64(i+1) >= w {
		win := b[int64(i+1)-w : i+1]
		f.tail.n = copy(f.tail.buf[checkWindow-len(win):], win)
		if off > int64(t.opts.FingerprintSize) {
			f.checks, _ = addCheck(f.checks, check{off: off, sum: sum(win)})
		}
	}
	return off
}

// adopt gives identities without a source their best shadow: a copy made
// by copytruncate, a compressed rotation, the file itself after a restart.
func (t *Tracker) adopt() {
	waiting := t.cands[:0]
	for _, ph := range t.phys {
		if ph.role != roleShadow || ph.seen != t.poll {
			continue
		}
		x := ph.ident
		if x.src != nil || x.done && (x.failed || x.whole) {
			continue
		}
		if x.best == nil {
			waiting = append(waiting, x)
		}
		if x.best == nil || better(x, ph, x.best) {
			x.best = ph
		}
	}
	for _, x := range waiting {
		if x.done {
			// Its file went away and was read to its end; now it is back (moved back, or
			// replaced by a link to it): read on from where reading stopped.
			t.log.Info("file seen again after it was read to its end, reading on",
				zap.String("path", x.best.path), zap.Int64("offset", x.off))
			t.closeFile(x)
			x.done = false
		}
		t.setSource(x, x.best)
		x.best = nil
	}
	clear(waiting)
	t.cands = waiting[:0]
}

// better prefers, as x's source, the file x was read from (its inode), then
// plain files (they may grow, and read cheaper), then the larger, then the
// path order.
func better(x *File, a, b *phys) bool {
	if (a.key == x.key) != (b.key == x.key) {
		return a.key == x.key
	}
	if (a.kind == decompress.Plain) != (b.kind == decompress.Plain) {
		return a.kind == decompress.Plain
	}
	if a.size != b.size {
		return a.size > b.size
	}
	return a.path < b.path
}

// deleteRead deletes the files read to their end and fully committed.
func (t *Tracker) deleteRead() {
	if !t.opts.DeleteAfterRead {
		return
	}
	for _, f := range t.files {
		ph := f.src
		if ph == nil || f.failed || f.whole || f.draining || f.committed < f.off {
			continue
		}
		if f.kind == decompress.Plain {
			if !f.eof || ph.size != f.tail.pos || f.off != f.tail.pos {
				continue
			}
		} else if !f.done {
			continue
		}
		if err := os.Remove(ph.path); err != nil {
			t.reportAs(ph.path, "cannot delete", err)
			continue
		}
		t.log.Debug("deleted file after reading it", zap.String("path", ph.path))
		t.closeFile(f)
		t.finish(f)
		f.src = nil
		delete(t.phys, ph.key)
	}
}

// forget drops the identities whose files have been gone for a while.
func (t *Tracker) forget() {
	for _, ph := range t.phys {
		if ph.ident != nil {
			ph.ident.lastSeen = t.poll
		}
	}
	for id, f := range t.files {
		if f.lastSeen+forgetPolls > t.poll || f.fd != nil || f.committed < f.off {
			continue
		}
		t.finish(f)
		t.idx.remove(f)
		delete(t.files, id)
	}
}

func (t *Tracker) finish(f *File) {
	if f.done {
		return
	}
	f.done = true
	if f.handed {
		t.finished = append(t.finished, f)
	}
}

// allocate hands out descriptors, at most MaxConcurrentFiles: pinned files
// keep theirs; the others with data take turns, least recently served
// first; idle descriptors are closed before busy ones.
func (t *Tracker) allocate() []*File {
	limit := t.opts.MaxConcurrentFiles
	cands := t.cands[:0]
	pinned := 0
	for _, f := range t.files {
		f.chosen = false
		switch {
		case f.fd != nil && f.pinned():
			pinned++
		case f.wants():
			cands = append(cands, f)
		}
	}
	if slots := max(limit-pinned, 0); len(cands) > slots {
		slices.SortFunc(cands, func(a, b *File) int {
			return cmp.Or(cmp.Compare(a.lastServed, b.lastServed), cmp.Compare(a.id, b.id))
		})
		clear(cands[slots:])
		cands = cands[:slots]
	}
	need := 0
	for _, f := range cands {
		f.chosen = true
		if f.fd == nil {
			need++
		}
	}
	for pass := 0; pass < 2 && need > limit-t.nopen; pass++ {
		for _, f := range t.files {
			if need <= limit-t.nopen {
				break
			}
			if f.fd != nil && !f.chosen && !f.pinned() && (pass == 1 || !f.wants()) {
				t.closeFile(f)
			}
		}
	}
	out := t.out[:0]
	for _, f := range cands {
		if f.fd != nil || t.nopen < limit && t.openForRead(f) {
			out = append(out, f)
			f.listed = true
		}
	}
	clear(cands)
	t.cands = cands[:0]
	for _, f := range t.files {
		if !f.listed && (f.fd != nil && f.pinned() || f.err != nil) {
			out = append(out, f)
			f.listed = true
		}
	}
	for _, f := range t.finished {
		if !f.listed {
			out = append(out, f)
			f.listed = true
		}
	}
	slices.SortFunc(out, func(a, b *File) int { return cmp.Compare(a.id, b.id) })
	for _, f := range out {
		f.listed, f.handed, f.lastServed = false, true, t.poll
	}
	t.out = out
	return out
}

// openForRead opens f's source, verifying first that it is still f.
func (t *Tracker) openForRead(f *File) bool {
	ph := f.src
	fd, err := t.open(ph.path)
	if err != nil {
		t.report(ph.path, err)
		return false
	}
	t.nopen++
	info, err := fd.Stat()
	if err != nil || keyOf(info) != ph.key {
		t.closeRaw(fd)
		return false
	}
	t.readable(ph.path)
	if f.kind == decompress.Plain && !t.sameStart(f, fd, info.Size()) {
		t.closeRaw(fd)
		t.rewritten(f, ph)
		return false
	}
	f.fd, f.needSeek = fd, true
	return true
}

// slot makes room for one more descriptor if it can, closing the least
// useful open file.
func (t *Tracker) slot() bool {
	if t.nopen < t.opts.MaxConcurrentFiles {
		return true
	}
	var victim *File
	for _, f := range t.files {
		if f.fd == nil || f.pinned() {
			continue
		}
		if victim == nil || victim.wants() && !f.wants() ||
			victim.wants() == f.wants() && f.lastServed < victim.lastServed {
			victim = f
		}
	}
	if victim == nil {
		return false
	}
	t.closeFile(victim)
	return true
}

func (t *Tracker) closeFile(f *File) error {
	f.releaseReader()
	if f.fd == nil {
		return nil
	}
	err := t.closeRaw(f.fd)
	f.fd = nil
	return err
}

func (t *Tracker) closeRaw(fd *os.File) error {
	t.nopen--
	return fd.Close()
}

// report logs a problem with a path once, until it is solved or the path
// is no longer matched.
func (t *Tracker) report(path string, err error) {
	what := "unreadable"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		what = "vanished"
	case errors.Is(err, fs.ErrPermission):
		what = "permission denied"
	}
	t.reportAs(path, what, err)
}

func (t *Tracker) reportAs(path, what string, err error) {
	if t.reported[path] == what {
		return
	}
	t.reported[path] = what
	t.log.Warn("skipping file for now: "+what, zap.String("path", path), zap.Error(err))
}

func (t *Tracker) readable(path string) {
	if what, ok := t.reported[path]; ok {
		delete(t.reported, path)
		t.log.Info("file readable again after: "+what, zap.String("path", path))
	}
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
		return true
	}
	return false
}

// Stats returns the counters.
func (t *Tracker) Stats() Stats {
	t.mu.Lock()
	open, tracked := t.nopen, len(t.files)
	t.mu.Unlock()
	return Stats{
		FilesOpen:       open,
		FilesTracked:    tracked,
		FilesDiscovered: t.discovered.Load(),
		BytesRead:       t.bytesRead.Load(),
		Rotations:       t.rotations.Load(),
		Truncations:     t.truncations.Load(),
		ReadErrors:      t.readErrors.Load(),
	}
}

// Close closes every descriptor. Poll returns nothing after it.
func (t *Tracker) Close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	var errs []error
	for _, f := range t.files {
		errs = append(errs, t.closeFile(f))
	}
	return errors.Join(errs...)
}
