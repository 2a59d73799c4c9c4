package filetrack

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"math"
	"os"
	"slices"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// resolveAll matches new, changed and undecided files to identities.
func (t *Tracker) resolveAll() {
	work := t.scratch.work[:0]
	for _, df := range t.v.disks {
		if df.seen != t.poll || df.size == 0 {
			continue
		}
		switch df.role {
		case roleNew:
			if df.changed || df.match.retry {
				work = append(work, df)
			}
		case roleShadow:
			if df.changed || df.match.retry || !df.match.strong && df.match.verifiedGen != df.ident.r.checks.gen {
				work = append(work, df)
			}
		}
	}
	slices.SortFunc(work, func(a, b *diskFile) int { return cmp.Compare(a.path, b.path) })
	for _, df := range work {
		t.resolve(df)
	}
	clear(work)
	t.scratch.work = work[:0]
}

func (t *Tracker) resolve(df *diskFile) {
	df.match.retry = false
	fd, fp, ok := t.identify(df)
	if !ok {
		return
	}
	defer t.fds.closeRaw(fd)
	if df.role == roleShadow {
		x := df.ident
		if bytes.HasPrefix(fp, x.fp) || bytes.HasPrefix(x.fp, fp) {
			if v := t.verify(df, fd, x); v >= weak {
				df.match.strong, df.match.verifiedGen = v == strong, x.r.checks.gen
				return
			}
		}
		t.setRole(df, roleNew, nil)
	}
	cands := t.files.byFP.compatible(fp, t.scratch.cands[:0])
	slices.SortFunc(cands, func(a, b *File) int {
		// its own inode first, then identities waiting for a source
		if (a.key == df.key) != (b.key == df.key) {
			if a.key == df.key {
				return -1
			}
			return 1
		}
		wa, wb := a.src == nil && !a.r.done, b.src == nil && !b.r.done
		if wa != wb {
			if wa {
				return -1
			}
			return 1
		}
		return cmp.Compare(a.id, b.id)
	})
	undecided := false
	t.current.starved = false
	for _, x := range cands {
		if x == df.match.truncatedFrom {
			continue
		}
		switch v := t.verify(df, fd, x); v {
		case differ:
		case unknown:
			undecided = true
		default:
			clear(cands)
			t.scratch.cands = cands[:0]
			t.attach(df, x, v == strong)
			return
		}
	}
	clear(cands)
	t.scratch.cands = cands[:0]
	if undecided {
		if df.changed || t.current.starved {
			// Growing, or not compared for want of a descriptor: not settling.
			df.match.stalls = 0
		} else {
			df.match.stalls++
		}
		if df.match.stalls < settlePolls {
			df.match.retry = true
			return
		}
	}
	t.create(df, fd, fp)
}

// identify opens df and reads its kind and fingerprint. The descriptor is
// the caller's to close.
func (t *Tracker) identify(df *diskFile) (*os.File, []byte, bool) {
	if !t.fds.slot() {
		df.match.retry = true
		return nil, nil, false
	}
	fd, _, err := t.fds.openKnown(df.path, df.key)
	if err != nil {
		df.match.retry = true // permission denied or vanished: try again next poll
		t.reports.report(df.path, err)
		return nil, nil, false
	}
	if fd == nil {
		df.match.retry = true // replaced since the stat: the next poll sees the new file
		return nil, nil, false
	}
	t.reports.readable(df.path)
	n, err := fd.ReadAt(t.scratch.fpRaw, 0)
	if err != nil && err != io.EOF {
		t.fds.closeRaw(fd)
		t.reports.report(df.path, err)
		df.match.retry = true
		return nil, nil, false
	}
	if n == 0 {
		t.fds.closeRaw(fd) // emptied since the stat
		return nil, nil, false
	}
	raw := t.scratch.fpRaw[:n]
	kind := t.opts.Compression
	if kind == decompress.Auto {
		kind = decompress.Sniff(raw)
	}
	df.kind = kind
	if kind == decompress.Plain {
		return fd, raw, true
	}
	dec, err := decompress.NewReaderKind(io.NewSectionReader(fd, 0, df.size), kind)
	if err == nil {
		n, err = io.ReadFull(dec, t.scratch.fpDec)
		_ = dec.Close() // releases decoder buffers only; never fails
	}
	if n == 0 {
		t.fds.closeRaw(fd)
		if err != nil && err != io.EOF && !errors.Is(err, io.ErrUnexpectedEOF) {
			t.reports.reportAs(df.path, "corrupt", err) // tried again when it changes
		}
		return nil, nil, false // nothing decodable yet: tried again when it grows
	}
	return fd, t.scratch.fpDec[:n], true
}

// attach makes df a shadow of identity x; adopt promotes it to source if x
// has none.
func (t *Tracker) attach(df *diskFile, x *File, strong bool) {
	df.match.stalls, df.match.truncatedFrom = 0, nil
	t.setRole(df, roleShadow, x)
	df.match.strong, df.match.verifiedGen = strong, x.r.checks.gen
}

func (t *Tracker) setSource(x *File, df *diskFile) {
	if x.marks.handedOut && df.key != x.key {
		t.stats.rotations.Add(1)
		t.log.Info("continuing a file from its copy",
			zap.String("from", x.path), zap.String("to", df.path), zap.Int64("offset", x.r.off))
	}
	t.setRole(df, roleSource, x)
	x.src, x.key, x.r.kind, x.r.whole = df, df.key, df.kind, df.match.whole
	x.path, x.resolved = df.path, df.resolved
	x.r.draining, x.r.eof, x.sizes.truncated = false, false, false
	x.noteSize(df)
}

const (
	// startTail is how far back from the end a start at the end looks for
	// the last newline, so that a line being written is not cut.
	startTail = 64 << 10
	// skippedOffset is the offset of a compressed file skipped at the first
	// poll: all of it, whatever its decompressed size.
	skippedOffset = math.MaxInt64
)

// create makes df a new identity.
func (t *Tracker) create(df *diskFile, fd *os.File, fp []byte) {
	t.files.nextID++
	f := newFile(&t.read, t.files.nextID, fp, df.key)
	if df.atStart && !t.opts.StartAtBeginning && !t.resumed {
		if df.kind == decompress.Plain {
			f.r.off = t.startOffset(f, fd, df.size)
		} else {
			f.r.off, f.skipped, f.r.done = skippedOffset, true, true
		}
	}
	f.committed, f.r.counted, f.r.tail.pos = f.r.off, f.r.off, f.r.off
	df.match.stalls, df.match.truncatedFrom = 0, nil
	t.setSource(f, df)
	t.files.add(f)
	t.stats.discovered.Add(1)
}

// startOffset returns where a plain file found at the first poll starts
// being read: after its last newline. The bytes before it seed the identity's
// check points, so a copy can be told apart before anything is read.
func (t *Tracker) startOffset(f *File, fd *os.File, size int64) int64 {
	n := min(size, startTail)
	if t.scratch.tailBuf == nil {
		t.scratch.tailBuf = make([]byte, startTail)
	}
	b := t.scratch.tailBuf[:n]
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
		f.r.tail.n = copy(f.r.tail.buf[checkWindow-len(win):], win)
		if off > int64(t.opts.FingerprintSize) {
			f.r.checks.list, _ = addCheck(f.r.checks.list, check{off: off, sum: sum(win)})
		}
	}
	return off
}

// adopt gives identities without a source their best shadow: a copy made
// by copytruncate, a compressed rotation, the file itself after a restart.
func (t *Tracker) adopt() {
	waiting := t.scratch.cands[:0]
	for _, df := range t.v.disks {
		if df.role != roleShadow || df.seen != t.poll {
			continue
		}
		x := df.ident
		if x.src != nil || x.r.done && (x.r.failed || x.skipped) {
			continue
		}
		if x.best == nil {
			waiting = append(waiting, x)
		}
		if x.best == nil || better(x, df, x.best) {
			x.best = df
		}
	}
	for _, x := range waiting {
		if x.r.done {
			// Its file went away and was read to its end; now it is back (moved back, or
			// replaced by a link to it).
			t.readOn(x, x.best.path)
		}
		t.setSource(x, x.best)
		x.best = nil
	}
	clear(waiting)
	t.scratch.cands = waiting[:0]
}

// readOn unfinishes x, whose file went away and was read to its end, now that the file is seen
// again at path: reading goes on from where it stopped.
func (t *Tracker) readOn(x *File, path string) {
	t.log.Info("file seen again after it was read to its end, reading on",
		zap.String("path", path), zap.Int64("offset", x.r.off))
	t.fds.closeFile(x)
	x.r.done = false
}

// better prefers, as x's source, the file x was read from (its inode), then
// plain files (they may grow, and read cheaper), then the larger, then the
// path order.
func better(x *File, a, b *diskFile) bool {
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
