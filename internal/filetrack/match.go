package filetrack

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"os"
	"slices"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

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
	if err != nil || !hasKey(fd.Name(), info, ph.key) {
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
