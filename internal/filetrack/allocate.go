package filetrack

import (
	"cmp"
	"slices"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// allocate hands out descriptors, at most MaxConcurrentFiles: pinned files
// keep theirs; the others with data take turns, least recently served
// first; idle descriptors are closed before busy ones. Compressed files
// start only while fewer than MaxConcurrentDecoders are being decoded.
func (t *Tracker) allocate() []*File {
	limit := t.opts.MaxConcurrentFiles
	cands, comp := t.scratch.cands[:0], t.scratch.compressed[:0]
	pinned, decoding := 0, 0
	for _, f := range t.v.files {
		if f.marks.forgotten {
			continue
		}
		f.marks.chosen = false
		switch {
		case f.r.fd != nil && f.r.pinned():
			pinned++
			if f.r.kind != decompress.Plain {
				decoding++
			}
		case f.wants():
			// A compressed file that wants data has no descriptor: it
			// would be pinned.
			if f.r.kind != decompress.Plain {
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
	t.scratch.compressed = comp[:0]
	if slots := max(limit-pinned, 0); len(cands) > slots {
		slices.SortFunc(cands, byService)
		clear(cands[slots:])
		cands = cands[:slots]
	}
	need := 0
	for _, f := range cands {
		f.marks.chosen = true
		if f.r.fd == nil {
			need++
		}
	}
	// Pass 0 closes idle descriptors; pass 1 those of files with data, to give others their
	// turn, unless the caller is not reading (PollHolding): then what is open stays open.
	passes := 2
	if t.current.holding {
		passes = 1
	}
	for pass := 0; pass < passes && need > limit-t.fds.n; pass++ {
		for f := range t.fds.opened {
			if need <= limit-t.fds.n {
				break
			}
			if f.r.fd != nil && !f.marks.chosen && !f.r.pinned() && (pass == 1 || !f.wants()) {
				t.fds.closeFile(f)
			}
		}
	}
	out := t.scratch.out[:0]
	for _, f := range cands {
		if f.r.fd != nil || t.fds.n < limit && t.openForRead(f) {
			out = append(out, f)
			f.marks.listed = true
		}
	}
	clear(cands)
	t.scratch.cands = cands[:0]
	for _, f := range t.v.files {
		if !f.marks.forgotten && !f.marks.listed && (f.r.fd != nil && f.r.pinned() || f.r.err != nil) {
			out = append(out, f)
			f.marks.listed = true
		}
	}
	for _, f := range t.current.finished {
		if !f.marks.listed {
			out = append(out, f)
			f.marks.listed = true
		}
	}
	slices.SortFunc(out, func(a, b *File) int { return cmp.Compare(a.id, b.id) })
	for _, f := range out {
		f.marks.listed, f.marks.handedOut = false, true
		if !t.current.holding {
			f.marks.lastServed = t.poll
		}
	}
	t.scratch.out = out
	return out
}

// byService orders files least recently served first.
func byService(a, b *File) int {
	return cmp.Or(cmp.Compare(a.marks.lastServed, b.marks.lastServed), cmp.Compare(a.id, b.id))
}

// openForRead opens f's source, verifying first that it is still f.
func (t *Tracker) openForRead(f *File) bool {
	df := f.src
	fd, size, err := t.fds.openKnown(df.path, df.key)
	if err != nil {
		t.reports.report(df.path, err)
		return false
	}
	if fd == nil {
		return false
	}
	t.reports.readable(df.path)
	if f.r.kind == decompress.Plain && !t.sameStart(f, fd, size) {
		t.fds.closeRaw(fd)
		t.rewritten(f, df)
		return false
	}
	t.fds.hold(f, fd)
	return true
}
