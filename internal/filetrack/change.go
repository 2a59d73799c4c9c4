package filetrack

import (
	"bytes"
	"os"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// checkSources looks at the files being read: drained ones that are done,
// stalled compressed ones, truncated or rewritten ones. It collects the drained
// ones for boundDeleted.
func (t *Tracker) checkSources() {
	clear(t.drained)
	t.drained = t.drained[:0]
	for _, f := range t.v.files {
		df := f.src
		if df == nil || f.done {
			continue
		}
		if df.changed {
			f.noteSize(df)
		}
		if f.draining {
			t.drained = append(t.drained, f)
		}
		switch {
		case f.stalled:
			t.checkStalled(f, df)
		case f.draining:
			if f.kind == decompress.Plain {
				if info, err := f.fd.Stat(); err == nil {
					df.size = info.Size()
					f.noteSize(df)
				}
				if !t.sameStart(f, f.fd, df.size) {
					t.goneRewritten(f, df)
				} else if f.eof && df.size == f.tail.pos {
					t.finish(f)
				}
			}
		case !df.changed:
		case df.size < df.prevSize || f.kind == decompress.Plain && df.size < f.tail.pos:
			t.truncations.Add(1)
			t.log.Info("file truncated, reading it again from the start", zap.String("path", df.path))
			t.detach(f, df)
		case f.kind == decompress.Plain && !t.holdsStream(f, df):
			t.rewritten(f, df)
		}
	}
}

// holdsStream reports whether f's plain source df, changed in this poll, still holds f's
// stream. A source without a descriptor is opened for the look: a file deleted and its inode
// given at once to a new file at the same path looks like f's file grown or touched
// (logrotate's copytruncate with delaycompress compresses name.1, removes it and creates the
// next name.1, which takes the freed inode). Without a descriptor free it is taken as f's:
// reading checks it when it opens it, and compareDirect before comparing with it.
func (t *Tracker) holdsStream(f *File, df *diskFile) bool {
	if f.fd != nil {
		return t.sameStart(f, f.fd, df.size)
	}
	fd, ok := t.openSource(df)
	if !ok {
		return true
	}
	defer t.closeRaw(fd)
	return t.sameStart(f, fd, df.size)
}

// checkStalled decides when a compressed stream that ended mid-way is decoded again from its
// start: once the file doubled since, or once its growth paused (see File.pauseNeed); a file
// that does not grow at all for settlePolls polls is given up.
func (t *Tracker) checkStalled(f *File, df *diskFile) {
	grown := df.size > f.stalledSize
	switch {
	case df.size < f.stalledSize || grown && (df.size >= 2*f.stalledSize || !df.changed && f.quiet+1 >= max(f.pauseNeed, 1)):
		// Shrunk (rewritten: decoding tells), doubled, or paused long enough.
		if grown && !df.changed {
			f.pauseNeed = 2 * max(f.pauseNeed, 1)
		}
		f.stalled, f.stalls, f.quiet = false, 0, 0
		t.closeFile(f) // read again from the start of the stream
	case grown && !df.changed:
		f.quiet++
	case df.changed || grown:
		f.stalls, f.quiet = 0, 0 // still being written: wait for it to double or pause
	default:
		f.stalls++
		if f.stalls >= settlePolls {
			t.failStalled(f)
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

func (t *Tracker) rewritten(f *File, df *diskFile) {
	t.truncations.Add(1)
	t.log.Info("file rewritten, reading it again from the start", zap.String("path", df.path))
	t.detach(f, df)
}

// goneRewritten lets go of a file that is gone and was rewritten before it went (a
// copytruncate refilled past what was read, then rotated away): what it holds is another
// stream, read from its own copy if one appears, and the rest of f's stream is in f's copy.
func (t *Tracker) goneRewritten(f *File, df *diskFile) {
	t.truncations.Add(1)
	t.log.Info("file gone, and rewritten before it went; continuing it from a copy if one appears",
		zap.String("path", df.path), zap.Int64("offset", f.off))
	t.closeFile(f)
	f.src, f.draining, f.truncated = nil, false, true
	t.dropDisk(df)
}

// detach takes df away from identity f: df is matched again as a new
// candidate that is never f's continuation, and f waits for a copy.
func (t *Tracker) detach(f *File, df *diskFile) {
	t.closeFile(f)
	f.src, f.draining, f.stalled, f.truncated = nil, false, false, true
	t.setRole(df, roleNew, nil)
	df.truncatedFrom, df.retry = f, true
}
