package filetrack

import (
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// checkSources looks at the files being read: drained ones that are done,
// stalled compressed ones, truncated or rewritten ones. It collects the drained
// ones for boundDeleted.
func (t *Tracker) checkSources() {
	clear(t.scratch.drained)
	t.scratch.drained = t.scratch.drained[:0]
	for _, f := range t.v.files {
		df := f.src
		if df == nil || f.r.done {
			continue
		}
		if df.changed {
			f.noteSize(df)
		}
		if f.r.draining {
			t.scratch.drained = append(t.scratch.drained, f)
		}
		switch {
		case f.r.stall.on:
			switch f.r.stall.decide(df.size, df.changed) {
			case stallRetry:
				t.fds.closeFile(f) // read again from the start of the stream
			case stallGiveUp:
				t.failStalled(f)
			}
		case f.r.draining:
			if f.r.kind == decompress.Plain {
				if info, err := f.r.fd.Stat(); err == nil {
					df.size = info.Size()
					f.noteSize(df)
				}
				if !t.sameStart(f, f.r.fd, df.size) {
					t.goneRewritten(f, df)
				} else if f.r.eof && df.size == f.r.tail.pos {
					t.current.finish(f)
				}
			}
		case !df.changed:
		case df.size < df.prevSize || f.r.kind == decompress.Plain && df.size < f.r.tail.pos:
			t.stats.truncations.Add(1)
			t.log.Info("file truncated, reading it again from the start", zap.String("path", df.path))
			t.detach(f, df)
		case f.r.kind != decompress.Plain:
		case f.r.fd != nil:
			if !t.sameStart(f, f.r.fd, df.size) {
				t.rewritten(f, df)
			}
		case t.fds.slot():
			// Opened now, before anything compares with it, not at the read: a file deleted and
			// its inode given at once to a new file at the same path looks like f's file grown or
			// touched (logrotate's copytruncate with delaycompress removes name.1 and creates the
			// next one, which takes the freed inode). openForRead checks its start, and keeps the
			// descriptor for the read that follows.
			t.openForRead(f)
		}
	}
}

// failStalled gives up a compressed stream that ended mid-way and does not grow (see stall).
func (t *Tracker) failStalled(f *File) {
	t.fds.closeFile(f)
	f.r.err, f.r.failed = f.r.stall.err, true
	t.stats.readErrors.Add(1)
	t.log.Warn("compressed file cut short and not growing, giving it up",
		zap.String("path", f.path), zap.Int64("offset", f.r.off), zap.Error(f.r.stall.err))
	t.current.finish(f)
}

func (t *Tracker) rewritten(f *File, df *diskFile) {
	t.stats.truncations.Add(1)
	t.log.Info("file rewritten, reading it again from the start", zap.String("path", df.path))
	t.detach(f, df)
}

// goneRewritten lets go of a file that is gone and was rewritten before it went (a
// copytruncate refilled past what was read, then rotated away): what it holds is another
// stream, read from its own copy if one appears, and the rest of f's stream is in f's copy.
func (t *Tracker) goneRewritten(f *File, df *diskFile) {
	t.stats.truncations.Add(1)
	t.log.Info("file gone, and rewritten before it went; continuing it from a copy if one appears",
		zap.String("path", df.path), zap.Int64("offset", f.r.off))
	t.fds.closeFile(f)
	f.src, f.r.draining, f.sizes.truncated = nil, false, true
	t.dropDisk(df)
}

// detach takes df away from identity f: df is matched again as a new
// candidate that is never f's continuation, and f waits for a copy.
func (t *Tracker) detach(f *File, df *diskFile) {
	t.fds.closeFile(f)
	f.src, f.r.draining, f.r.stall.on, f.sizes.truncated = nil, false, false, true
	t.setRole(df, roleNew, nil)
	df.match.truncatedFrom, df.match.retry = f, true
}
