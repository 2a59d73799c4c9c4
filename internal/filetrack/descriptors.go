package filetrack

import (
	"cmp"
	"os"
	"slices"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// allocate hands out descriptors, at most MaxConcurrentFiles: pinned files
// keep theirs; the others with data take turns, least recently served
// first; idle descriptors are closed before busy ones. Compressed files
// start only while fewer than MaxConcurrentDecoders are being decoded.
func (t *Tracker) allocate() []*File {
	limit := t.opts.MaxConcurrentFiles
	cands, comp := t.cands[:0], t.compressed[:0]
	pinned, decoding := 0, 0
	for _, f := range t.v.files {
		if f.forgotten {
			continue
		}
		f.chosen = false
		switch {
		case f.fd != nil && f.pinned():
			pinned++
			if f.kind != decompress.Plain {
				decoding++
			}
		case f.wants():
			// A compressed file that wants data has no descriptor: it
			// would be pinned.
			if f.kind != decompress.Plain {
				comp = append(comp, f)
			} else {
				cands = append(cands, f)
			}
		}
	}
	if free := max(t.opts.MaxConcurrentDecoders-decoding, 0); len(comp) > free {
		slices.SortFunc(comp, byService)
		comp = comp[:free]
	}
	cands = append(cands, comp...)
	clear(comp[:cap(comp)])
	t.compressed = comp[:0]
	if slots := max(limit-pinned, 0); len(cands) > slots {
		slices.SortFunc(cands, byService)
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
	// Pass 0 closes idle descriptors; pass 1 those of files with data, to give others their
	// turn, unless the caller is not reading (PollHolding): then what is open stays open.
	passes := 2
	if t.holding {
		passes = 1
	}
	for pass := 0; pass < passes && need > limit-t.fdsOpen; pass++ {
		for f := range t.v.opened {
			if need <= limit-t.fdsOpen {
				break
			}
			if f.fd != nil && !f.chosen && !f.pinned() && (pass == 1 || !f.wants()) {
				t.closeFile(f)
			}
		}
	}
	out := t.out[:0]
	for _, f := range cands {
		if f.fd != nil || t.fdsOpen < limit && t.openForRead(f) {
			out = append(out, f)
			f.listed = true
		}
	}
	clear(cands)
	t.cands = cands[:0]
	for _, f := range t.v.files {
		if !f.forgotten && !f.listed && (f.fd != nil && f.pinned() || f.err != nil) {
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
		f.listed, f.handedOut = false, true
		if !t.holding {
			f.lastServed = t.poll
		}
	}
	t.out = out
	return out
}

// byService orders files least recently served first.
func byService(a, b *File) int {
	return cmp.Or(cmp.Compare(a.lastServed, b.lastServed), cmp.Compare(a.id, b.id))
}

// openForRead opens f's source, verifying first that it is still f.
func (t *Tracker) openForRead(f *File) bool {
	df := f.src
	fd, err := t.open(df.path)
	if err != nil {
		t.report(df.path, err)
		return false
	}
	t.fdsOpen++
	info, err := fd.Stat()
	if err != nil || !hasKey(fd.Name(), info, df.key) {
		t.closeRaw(fd)
		return false
	}
	t.readable(df.path)
	if f.kind == decompress.Plain && !t.sameStart(f, fd, info.Size()) {
		t.closeRaw(fd)
		t.rewritten(f, df)
		return false
	}
	f.fd, f.needSeek = fd, true
	t.v.opened[f] = struct{}{}
	return true
}

// openSource opens df for a look, if a descriptor is free and df is still the file at its
// path; the descriptor is the caller's to close with closeRaw.
func (t *Tracker) openSource(df *diskFile) (*os.File, bool) {
	if !t.slot() {
		return nil, false
	}
	fd, err := t.open(df.path)
	if err != nil {
		return nil, false
	}
	t.fdsOpen++
	if info, err := fd.Stat(); err != nil || !hasKey(fd.Name(), info, df.key) {
		t.closeRaw(fd)
		return nil, false
	}
	return fd, true
}

// slot makes room for one more descriptor if it can, closing the least
// useful open file.
func (t *Tracker) slot() bool {
	if t.fdsOpen < t.opts.MaxConcurrentFiles {
		return true
	}
	var victim *File
	for f := range t.v.opened {
		if f.pinned() {
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

// closeFile closes f's descriptor, if it has one, and ends its reader. The
// descriptor was opened read-only, so a failed close loses no data: it is
// logged at debug and otherwise ignored. Tracker.Close, which returns it,
// calls closeFileErr.
func (t *Tracker) closeFile(f *File) {
	if err := t.closeFileErr(f); err != nil {
		t.logCloseErr(f.path, err)
	}
}

// closeFileErr is closeFile returning the descriptor's close error.
func (t *Tracker) closeFileErr(f *File) error {
	f.releaseReader()
	if f.fd == nil {
		return nil
	}
	err := t.closeFd(f.fd)
	f.fd = nil
	delete(t.v.opened, f)
	return err
}

// closeRaw closes a descriptor that belongs to no File. It was opened
// read-only: a failed close loses no data, and is logged at debug.
func (t *Tracker) closeRaw(fd *os.File) {
	if err := t.closeFd(fd); err != nil {
		t.logCloseErr(fd.Name(), err)
	}
}

func (t *Tracker) closeFd(fd *os.File) error {
	t.fdsOpen--
	return fd.Close()
}

func (t *Tracker) logCloseErr(path string, err error) {
	t.log.Debug("closing a read-only file failed", zap.String("path", path), zap.Error(err))
}
