package filetrack

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"sync"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
	"github.com/mergelog/otelcol-mergelog/internal/linereader"
)

// File is an identity: one log stream, whichever files on disk hold it over
// time (renamed, copied, compressed). Its offsets count decompressed bytes.
type File struct {
	t              *Tracker
	id             uint64
	fp             []byte // fingerprint; grows with a short file
	skipped        bool   // a compressed file skipped unread at the first poll
	kind           decompress.Kind
	key            fileKey // device and inode of the last source
	path, resolved string
	src            *diskFile // the file read; nil while there is none
	best           *diskFile // adopt's scratch

	// Reading state, owned by the reader between polls.
	fd       *os.File
	dec      *decompress.Reader
	lr       *linereader.Reader // lent from t.lines for a read round (kept by a compressed stream)
	pending  []byte             // with lr nil: the partial line read at the end of a plain file's data
	tail     tail
	off      int64 // end of the last line returned or partial consumed
	counted  int64 // part of off added to Stats.BytesRead
	needSeek bool  // fd is not positioned at off
	eof      bool  // reading reached the end of the available data
	stalled  bool  // a compressed stream ended mid-way
	stalls   int   // polls without growth since it stalled
	// A stalled stream is decoded again from its start (it cannot resume), so that is done
	// only when the file has doubled since (stalledSize), or when its growth paused for
	// pauseNeed polls (quiet), pauseNeed doubling each time: the decoding work for a file
	// written in many small steps stays within about twice its size.
	stalledSize int64
	quiet       int
	pauseNeed   int
	stallErr    error
	err         error // to be returned once by Next
	done        bool
	failed      bool
	draining    bool // no longer seen: read to its end
	// The largest size seen of its plain sources, or the size of its compressed source, to
	// count what was never read if it goes away (see lose).
	seenSize, seenCompressed int64
	truncated                bool // its last source was truncated or rewritten away from it

	// Poll's bookkeeping.
	handedOut, chosen, listed bool
	lastSeen, lastServed      uint64
	visited                   uint64 // the last poll that visited it (see visits)
	forgotten                 bool
	committed                 int64 // guarded by t.mu
	records                   int64 // the caller's record count at committed; guarded by t.mu

	mu       sync.Mutex // guards checks, which Next adds to outside t.mu
	checks   []check
	checkGen uint64 // counts changes of checks
}

// ID is stable for the life of the identity, across rotation, renaming,
// compression and restarts.
func (f *File) ID() uint64 { return f.id }

// Path is the path the identity is read from now (the last one known once
// it has no file).
func (f *File) Path() string { return f.path }

// ResolvedPath is Path with symbolic links resolved.
func (f *File) ResolvedPath() string { return f.resolved }

// Name is Path's base name.
func (f *File) Name() string { return filepath.Base(f.path) }

// Records is the caller's count of records up to the committed offset, as given to Commit
// (kept across restarts by the checkpoint), so that record numbers go on where they stopped.
func (f *File) Records() int64 {
	f.t.mu.Lock()
	defer f.t.mu.Unlock()
	return f.records
}

// Offset is where reading goes on: the end of the last line returned or partial consumed.
func (f *File) Offset() int64 { return f.off }

// Kind is the compression of the file read now; never Auto once handed out.
func (f *File) Kind() decompress.Kind { return f.kind }

// Finished reports that no more data will come: a compressed file read to
// its end, a deleted or rotated-away file read to its end, a file whose
// reading failed, or an identity whose files are gone.
func (f *File) Finished() bool { return f.done }

// Split reports whether the line last returned by Next is a piece of a line
// longer than MaxLineSize; the next line continues it.
func (f *File) Split() bool { return f.lr != nil && f.lr.Split() }

// partialKeep is the largest capacity of pending kept once the partial line is
// gone: an idle file holds a few KiB at most.
const partialKeep = 4 << 10

// Yield ends the caller's read round of f when it stops before io.EOF: the
// line reader goes back to the Tracker for the next file, so that the files
// waiting for their turn hold no buffer. A plain file reads its unreturned
// bytes again from Offset next time (it can seek). A compressed stream keeps
// its reader: its decoder is where the stream is, and what the reader holds
// could only be had again by decoding from the start; at most
// MaxConcurrentDecoders of them are read at once. The lines returned by Next
// are invalid after Yield.
func (f *File) Yield() {
	if f.lr == nil || f.kind != decompress.Plain {
		return
	}
	f.tail.rewind(f.off)
	f.checkAtOffset()
	f.needSeek = true
	f.giveBack()
}

// checkAtOffset records a check point where the caller stopped reading a plain file before its
// end (the tail's window lies beyond it, in what was read ahead): a copy made before reading
// comes back here (copytruncate while the caller's deliveries wait) is then told for what it
// is, not left undecided until it counts as a new file and is read again from its start.
func (f *File) checkAtOffset() {
	if f.off <= int64(f.t.opts.FingerprintSize) || f.fd == nil {
		return
	}
	var buf [checkWindow]byte
	if w, ok := readWindow(f.fd, f.off, &buf); ok {
		f.record(check{off: f.off, sum: sum(w)})
	}
}

// Next returns the next complete line, without its newline, and the offset
// just after it. At the end of the data available now it returns io.EOF:
// call it again after the next Poll. Any other error ends this file's
// reading; it is returned once, and the file is then Finished.
func (f *File) Next() (line []byte, end int64, err error) {
	if f.lr == nil {
		if err := f.start(); err != nil {
			return nil, f.off, err
		}
	}
	line, err = f.lr.Next()
	if err != nil {
		return nil, f.off, f.end(err)
	}
	f.off = f.lr.Offset()
	return line, f.off, nil
}

// start sets up reading at f.off.
func (f *File) start() error {
	if err := f.err; err != nil {
		f.err = nil
		return err
	}
	if f.fd == nil || f.done || f.stalled {
		return io.EOF
	}
	if f.kind == decompress.Plain {
		if f.needSeek {
			if _, err := f.fd.Seek(f.off, io.SeekStart); err != nil {
				return f.fail(err)
			}
			f.needSeek = false
			f.dropPending() // read again from the file
		}
		// The descriptor is after the pending bytes, if any.
		f.tail.reset(f.fd, f.off+int64(len(f.pending)))
	} else {
		// A compressed stream cannot seek: decode it again from its start.
		if _, err := f.fd.Seek(0, io.SeekStart); err != nil {
			return f.fail(err)
		}
		dec, err := decompress.NewReaderKind(f.fd, f.kind)
		if err != nil {
			return f.fail(err)
		}
		f.dec = dec
		f.tail.reset(dec, 0)
		skipped, err := io.CopyN(io.Discard, &f.tail, f.off)
		f.t.decodedAgain.Add(skipped)
		if err != nil {
			if err == io.EOF {
				f.addCheck()
			}
			return f.stop(err)
		}
	}
	f.lr = f.t.lines.Get().(*linereader.Reader)
	f.lr.ResetPending(&f.tail, f.off, f.pending)
	f.dropPending()
	return nil
}

// end handles the end of the lines available now.
func (f *File) end(err error) error {
	f.eof = true
	f.t.bytesRead.Add(f.off - f.counted)
	f.counted = f.off
	if err == io.EOF {
		f.addCheck()
		if f.kind == decompress.Plain {
			// The buffer serves other files until this one grows; a partial
			// line is kept apart (at its size: data waiting, not a buffer),
			// for Partial, and the descriptor stays after it.
			f.pending = append(f.pending[:0], f.lr.Partial()...)
			f.giveBack()
			return io.EOF
		}
	}
	return f.stop(err)
}

// stop handles the end of a compressed stream, or an error.
func (f *File) stop(err error) error {
	switch {
	case err == io.EOF:
		f.done = true
		return io.EOF
	case f.kind != decompress.Plain && errors.Is(err, io.ErrUnexpectedEOF):
		// Probably still being written: Poll retries once it grows.
		f.stalled, f.stallErr = true, err
		if info, err := f.fd.Stat(); err == nil {
			f.stalledSize = info.Size()
		}
		f.releaseReader()
		return io.EOF
	}
	return f.fail(err)
}

func (f *File) fail(err error) error {
	f.done, f.failed = true, true
	f.releaseReader()
	f.t.readErrors.Add(1)
	f.t.log.Warn("cannot read file, giving it up",
		zap.String("path", f.path), zap.Int64("offset", f.off), zap.Error(err))
	return err
}

// addCheck records a check point where reading stopped.
func (f *File) addCheck() {
	if f.tail.pos <= int64(f.t.opts.FingerprintSize) || !f.tail.complete() {
		return
	}
	f.record(check{off: f.tail.pos, sum: f.tail.sum()})
}

// record adds c to f's check points.
func (f *File) record(c check) {
	f.mu.Lock()
	var changed bool
	if f.checks, changed = addCheck(f.checks, c); changed {
		f.checkGen++
	}
	f.mu.Unlock()
}

// giveBack returns the line reader to the Tracker; a reader grown past the
// default size by a long line is dropped, so that the pool only holds
// default-sized buffers.
func (f *File) giveBack() {
	if f.lr == nil {
		return
	}
	f.lr.Reset(nil, 0)
	if f.lr.BufSize() <= linereader.DefaultBufSize {
		f.t.lines.Put(f.lr)
	}
	f.lr = nil
}

// dropPending empties pending, letting a large one go.
func (f *File) dropPending() {
	if cap(f.pending) > partialKeep {
		f.pending = nil
	} else {
		f.pending = f.pending[:0]
	}
}

// releaseReader ends reading with the descriptor's position: it is read
// again from off, partial line included, if at all.
func (f *File) releaseReader() {
	f.giveBack()
	f.dropPending()
	if f.dec != nil {
		_ = f.dec.Close() // releases decoder buffers only; never fails
		f.dec = nil
	}
}

// Partial returns the bytes after the last newline buffered at the end of
// the available data, and the offset after them, for a force flush. It is
// meaningful after Next returned io.EOF.
func (f *File) Partial() (tail []byte, end int64) {
	if f.lr == nil {
		return f.pending, f.off + int64(len(f.pending))
	}
	p := f.lr.Partial()
	return p, f.off + int64(len(p))
}

// ConsumePartial marks the Partial bytes as delivered: reading goes on after
// them, and a later continuation of that line is read as a new line.
func (f *File) ConsumePartial() {
	f.t.mu.Lock()
	f.t.stirFile(f) // the next poll counts the bytes consumed (see quietFile)
	f.t.mu.Unlock()
	if f.lr == nil {
		f.off += int64(len(f.pending))
		f.dropPending()
		return
	}
	f.lr.ConsumePartial()
	f.off = f.lr.Offset()
}

// pinned reports whether f's descriptor must stay open: it could not be
// opened again (a drained file), or reopening would decode it again.
func (f *File) pinned() bool {
	return f.draining || f.kind != decompress.Plain && !f.stalled && !f.done
}

// wants reports whether f has data to read.
func (f *File) wants() bool {
	if f.src == nil || f.done || f.stalled {
		return false
	}
	if f.kind != decompress.Plain || f.draining {
		return true
	}
	return f.src.size > f.tail.pos
}
