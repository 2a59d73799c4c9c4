package filetrack

import (
	"errors"
	"io"
	"os"
	"sync"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
)

// readers is what the readers of a Tracker's identities share: the line readers lent for read
// rounds, the counters they add to and the logger.
type readers struct {
	// lines lends line readers for read rounds: a plain file gives its reader
	// back when a round leaves it (File.Yield, io.EOF), so only the file
	// being read and the compressed ones being decoded hold one.
	lines  sync.Pool // *linereader.Reader
	stats  *counters
	log    *zap.Logger
	fpSize int // Options.FingerprintSize: check points are taken beyond the fingerprint
}

// init sets rs up for opts, counting into stats.
func (rs *readers) init(opts Options, stats *counters) {
	rs.stats, rs.log, rs.fpSize = stats, opts.Logger, opts.FingerprintSize
	rs.lines.New = func() any {
		return linereader.New(nil, linereader.Options{MaxLineSize: opts.MaxLineSize, Newline: opts.Newline})
	}
}

// reader is an identity's reading state: the descriptor of its source and what reads from it,
// where reading is and how it ended, and the check points it takes where it stops. Poll
// opens and closes the descriptor and decides about stalls and draining; the methods of File
// read. The two never run at once (see the package documentation), so only the check points,
// which Checkpoint copies at any time, have a lock.
type reader struct {
	shared   *readers
	kind     decompress.Kind // the compression of the source read now; never Auto once handed out
	fd       *os.File
	dec      *decompress.Reader
	lr       *linereader.Reader // lent from shared.lines for a read round (kept by a compressed stream)
	pending  []byte             // with lr nil: the partial line read at the end of a plain file's data
	tail     tail
	checks   checkPoints
	off      int64 // end of the last line returned or partial consumed
	counted  int64 // part of off added to Stats.BytesRead
	needSeek bool  // fd is not positioned at off
	eof      bool  // reading reached the end of the available data
	stall    stall // a compressed stream that ended mid-way
	whole    whole // a compressed source found complete when compared with its plain original
	err      error // to be returned once by Next
	done     bool
	failed   bool
	draining bool // its source is no longer seen: read to its end
}

// partialKeep is the largest capacity of pending kept once the partial line is
// gone: an idle file holds a few KiB at most.
const partialKeep = 4 << 10

// yield is File.Yield.
func (r *reader) yield() {
	if r.lr == nil || r.kind != decompress.Plain {
		return
	}
	r.tail.rewind(r.off)
	r.checkAtOffset()
	r.needSeek = true
	r.giveBack()
}

// checkAtOffset records a check point where the caller stopped reading a plain file before its
// end (the tail's window lies beyond it, in what was read ahead): a copy made before reading
// comes back here (copytruncate while the caller's deliveries wait) is then told for what it
// is, not left undecided until it counts as a new file and is read again from its start.
func (r *reader) checkAtOffset() {
	if r.off <= int64(r.shared.fpSize) || r.fd == nil {
		return
	}
	var buf [checkWindow]byte
	if w, ok := readWindow(r.fd, r.off, &buf); ok {
		r.checks.add(check{off: r.off, sum: sum(w)})
	}
}

// next is File.Next; path names the file in the log if reading fails.
func (r *reader) next(path string) (line []byte, end int64, err error) {
	if r.lr == nil {
		if err := r.start(path); err != nil {
			return nil, r.off, err
		}
	}
	line, err = r.lr.Next()
	if err != nil {
		return nil, r.off, r.end(err, path)
	}
	r.off = r.lr.Offset()
	return line, r.off, nil
}

// start sets up reading at r.off.
func (r *reader) start(path string) error {
	if err := r.err; err != nil {
		r.err = nil
		return err
	}
	if r.fd == nil || r.done || r.stall.on {
		return io.EOF
	}
	if r.kind == decompress.Plain {
		if r.needSeek {
			if _, err := r.fd.Seek(r.off, io.SeekStart); err != nil {
				return r.fail(err, path)
			}
			r.needSeek = false
			r.dropPending() // read again from the file
		}
		// The descriptor is after the pending bytes, if any.
		r.tail.reset(r.fd, r.off+int64(len(r.pending)))
	} else {
		if r.readWhole() {
			// Nothing in it beyond what was read of its original: finished without decoding
			// it again only to skip all of it (a rotation kubelet compresses, read before).
			return r.stop(io.EOF, path)
		}
		// A compressed stream cannot seek: decode it again from its start.
		if _, err := r.fd.Seek(0, io.SeekStart); err != nil {
			return r.fail(err, path)
		}
		dec, err := decompress.NewReaderKind(r.fd, r.kind)
		if err != nil {
			return r.fail(err, path)
		}
		r.dec = dec
		r.tail.reset(dec, 0)
		skipped, err := io.CopyN(io.Discard, &r.tail, r.off)
		r.shared.stats.decodedAgain.Add(skipped)
		if err != nil {
			if err == io.EOF {
				r.takeCheck()
			}
			return r.stop(err, path)
		}
	}
	r.lr = r.shared.lines.Get().(*linereader.Reader)
	r.lr.ResetPending(&r.tail, r.off, r.pending)
	r.dropPending()
	return nil
}

// end handles the end of the lines available now.
func (r *reader) end(err error, path string) error {
	r.eof = true
	r.count()
	if err == io.EOF {
		r.takeCheck()
		if r.kind == decompress.Plain {
			// The buffer serves other files until this one grows; a partial
			// line is kept apart (at its size: data waiting, not a buffer),
			// for Partial, and the descriptor stays after it.
			r.pending = append(r.pending[:0], r.lr.Partial()...)
			r.giveBack()
			return io.EOF
		}
	}
	return r.stop(err, path)
}

// readWhole reports whether the compressed source, unchanged (size and modification time)
// since it was compared whole with its plain original, ends where reading is.
func (r *reader) readWhole() bool {
	if r.whole.size == 0 || r.whole.end != r.off {
		return false
	}
	info, err := r.fd.Stat()
	return err == nil && info.Size() == r.whole.size && info.ModTime().UnixNano() == r.whole.mtime
}

// stop handles the end of a compressed stream, or an error.
func (r *reader) stop(err error, path string) error {
	switch {
	case err == io.EOF:
		r.done = true
		return io.EOF
	case r.kind != decompress.Plain && errors.Is(err, io.ErrUnexpectedEOF):
		// Probably still being written: Poll retries once it grows.
		r.stall.on, r.stall.err = true, err
		if info, err := r.fd.Stat(); err == nil {
			r.stall.size = info.Size()
		}
		r.release()
		return io.EOF
	}
	return r.fail(err, path)
}

func (r *reader) fail(err error, path string) error {
	r.done, r.failed = true, true
	r.release()
	r.shared.stats.readErrors.Add(1)
	r.shared.log.Warn("cannot read file, giving it up",
		zap.String("path", path), zap.Int64("offset", r.off), zap.Error(err))
	return err
}

// takeCheck records a check point where reading stopped.
func (r *reader) takeCheck() {
	if r.tail.pos <= int64(r.shared.fpSize) || !r.tail.complete() {
		return
	}
	r.checks.add(check{off: r.tail.pos, sum: r.tail.sum()})
}

// count adds what was read since the last count to Stats.BytesRead.
func (r *reader) count() {
	if r.off > r.counted {
		r.shared.stats.bytesRead.Add(r.off - r.counted)
		r.counted = r.off
	}
}

// giveBack returns the line reader to the pool; a reader grown past the
// default size by a long line is dropped, so that the pool only holds
// default-sized buffers.
func (r *reader) giveBack() {
	if r.lr == nil {
		return
	}
	r.lr.Reset(nil, 0)
	if r.lr.BufSize() <= linereader.DefaultBufSize {
		r.shared.lines.Put(r.lr)
	}
	r.lr = nil
}

// dropPending empties pending, letting a large one go.
func (r *reader) dropPending() {
	if cap(r.pending) > partialKeep {
		r.pending = nil
	} else {
		r.pending = r.pending[:0]
	}
}

// release ends reading with the descriptor's position: it is read
// again from off, partial line included, if at all.
func (r *reader) release() {
	r.giveBack()
	r.dropPending()
	if r.dec != nil {
		_ = r.dec.Close() // releases decoder buffers only; never fails
		r.dec = nil
	}
}

// letGo ends reading and hands over the descriptor, if any, for closing.
func (r *reader) letGo() *os.File {
	r.release()
	fd := r.fd
	r.fd = nil
	return fd
}

// partial is File.Partial.
func (r *reader) partial() (tail []byte, end int64) {
	if r.lr == nil {
		return r.pending, r.off + int64(len(r.pending))
	}
	p := r.lr.Partial()
	return p, r.off + int64(len(p))
}

// consumePartial is File.ConsumePartial. The bytes consumed are counted at once: the file
// may need nothing of the polls after this.
func (r *reader) consumePartial() {
	if r.lr == nil {
		r.off += int64(len(r.pending))
		r.dropPending()
	} else {
		r.lr.ConsumePartial()
		r.off = r.lr.Offset()
	}
	r.count()
}

// pinned reports whether the descriptor must stay open: it could not be
// opened again (a drained file), or reopening would decode it again.
func (r *reader) pinned() bool {
	return r.draining || r.kind != decompress.Plain && !r.stall.on && !r.done
}

// wants reports whether there is data to read in a source of size bytes.
func (r *reader) wants(size int64) bool {
	if r.done || r.stall.on {
		return false
	}
	if r.kind != decompress.Plain || r.draining {
		return true
	}
	return size > r.tail.pos
}

// idle reports whether reading needs nothing of a poll: no descriptor it must keep, not
// stalled, no error to hand out, what was read counted, and closed if done.
func (r *reader) idle() bool {
	return !r.pinned() && !r.stall.on && r.err == nil && r.off == r.counted &&
		(!r.done || r.fd == nil && r.lr == nil)
}
