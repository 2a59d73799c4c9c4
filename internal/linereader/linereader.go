// Package linereader cuts lines out of a stream with large reads and
// bytes.IndexByte, returning them as slices of its own buffer: no copy and no
// allocation per line in steady state. NewBytes cuts lines out of a byte slice
// held by the caller (a memory-mapped file), without even the read's copy.
package linereader

import (
	"bytes"
	"io"
)

// DefaultBufSize is the read buffer size when Options.BufSize is not set:
// large enough that a syscall is amortised over thousands of lines.
const DefaultBufSize = 256 << 10

// maxEmptyReads bounds successive (0, nil) reads, as bufio does, so that a
// broken reader cannot spin Next forever.
const maxEmptyReads = 100

// Options configures a Reader.
type Options struct {
	// BufSize is the initial read buffer size; 0 means DefaultBufSize.
	BufSize int
	// MaxLineSize, when > 0, caps the length of a returned line: a longer
	// line comes back in pieces of exactly MaxLineSize bytes, each reported
	// by Split, then its rest; the buffer never grows beyond MaxLineSize+1.
	// 0 means unlimited: the buffer grows until the line fits, and lines are
	// never cut.
	MaxLineSize int
	// Newline is what ends a line in the stream's encoding: nil means '\n'; an
	// encoding of more bytes (UTF-16's "\n\x00") is searched for as a whole,
	// so that lines are cut where the decoded text has its newlines while
	// offsets stay in the stream's bytes.
	Newline []byte
}

// Reader reads lines. It is not safe for concurrent use.
type Reader struct {
	rd      io.Reader
	buf     []byte
	start   int // buf[start:end] holds the bytes not yet returned
	end     int
	scanned int // buf[start:start+scanned] is known to hold no '\n'
	offset  int64
	maxLine int
	newline []byte // nil: '\n', searched with IndexByte
	nlLen   int    // len(newline), 1 for '\n'
	split   bool
	view    bool  // buf is the caller's data (NewBytes): never read into nor moved
	err     error // from rd, returned once no complete line is left
}

// New returns a Reader of rd.
func New(rd io.Reader, opts Options) *Reader {
	size := opts.BufSize
	if size <= 0 {
		size = DefaultBufSize
	}
	r := &Reader{rd: rd, buf: make([]byte, size), maxLine: max(opts.MaxLineSize, 0), nlLen: 1}
	if len(opts.Newline) > 1 || len(opts.Newline) == 1 && opts.Newline[0] != '\n' {
		r.newline, r.nlLen = opts.Newline, len(opts.Newline)
	}
	return r
}

// NewBytes returns a Reader of data itself: lines and Partial are slices of
// data, valid as long as data is, and data is never written. The end of data is
// the end of the input: Next returns io.EOF there, every time, and lines are
// never cut. Reset gives the Reader a buffer of its own.
func NewBytes(data []byte) *Reader {
	return &Reader{buf: data, end: len(data), view: true, err: io.EOF, nlLen: 1}
}

// Next returns the next complete line without its newline ('\n', or
// Options.Newline); every other byte (CR, NUL, invalid UTF-8) is left as it is. The line is valid until the next
// call of a Reader method that reads or resets. Its capacity is its length, as
// for Partial's slice: an append copies it instead of writing over the bytes
// after it (which NewBytes's data may not even allow: a read-only mapping).
//
// When the data available from the underlying reader is exhausted, Next
// returns (nil, io.EOF) and keeps the bytes after the last '\n' buffered
// (see Partial). Other errors likewise come after every complete line before
// them. Neither error is sticky: calling Next again reads the underlying
// reader again, which lets a caller follow a growing file.
func (r *Reader) Next() ([]byte, error) {
	for {
		if i := r.index(r.buf[r.start+r.scanned : r.end]); i >= 0 {
			n := r.scanned + i
			if r.maxLine > 0 && n > r.maxLine {
				return r.piece(n), nil
			}
			line := r.buf[r.start : r.start+n : r.start+n]
			r.start += n + r.nlLen
			r.scanned = 0
			r.offset += int64(n + r.nlLen)
			r.split = false
			return line, nil
		}
		// The last nlLen-1 bytes may start a newline the next read completes.
		r.scanned = max(r.end-r.start-(r.nlLen-1), 0)
		if r.maxLine > 0 && r.scanned > r.maxLine {
			return r.piece(r.scanned), nil
		}
		if r.err != nil {
			err := r.err
			r.err = nil
			return nil, err
		}
		r.fill()
	}
}

// index finds the newline in b.
func (r *Reader) index(b []byte) int {
	if r.newline == nil {
		return bytes.IndexByte(b, '\n')
	}
	return bytes.Index(b, r.newline)
}

// piece returns the first MaxLineSize bytes of a longer line, of which the
// first noNL bytes are known to hold no '\n'.
func (r *Reader) piece(noNL int) []byte {
	line := r.buf[r.start : r.start+r.maxLine : r.start+r.maxLine]
	r.start += r.maxLine
	r.scanned = noNL - r.maxLine
	r.offset += int64(r.maxLine)
	r.split = true
	return line
}

// fill reads once more from rd after the buffered bytes, making room first.
func (r *Reader) fill() {
	if r.view {
		r.err = io.EOF
		return
	}
	if r.start > 0 {
		// Only a partial line is left: moving it is cheap, and it makes room
		// for a full-sized read.
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	}
	if r.end == len(r.buf) {
		// One line fills the buffer. With MaxLineSize set it is at most
		// MaxLineSize bytes here (a longer one was cut), so the cap below
		// still leaves room to see the newline after it.
		size := 2 * len(r.buf)
		if r.maxLine > 0 {
			size = min(size, r.maxLine+r.nlLen)
		}
		buf := make([]byte, size)
		copy(buf, r.buf[:r.end])
		r.buf = buf
	}
	for range maxEmptyReads {
		n, err := r.rd.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// Split reports whether the line last returned by Next is a piece of a line
// longer than MaxLineSize: the next line returned (or the Partial bytes)
// continues it. The last piece of a cut line, ended by its '\n', is not Split.
func (r *Reader) Split() bool { return r.split }

// Partial returns the buffered bytes after the last '\n': a last line
// without a newline at EOF, or the start of a line still being written.
// They remain buffered; the slice is valid until the next read or reset.
func (r *Reader) Partial() []byte { return r.buf[r.start:r.end:r.end] }

// ConsumePartial returns Partial and consumes it, as a complete line: Offset
// moves past it and the next line starts after it. Call it to take a last line
// that has no '\n' at the end of the input, or to deliver a line whose writer
// stopped before its '\n' (what is appended to it later is then a new line).
func (r *Reader) ConsumePartial() []byte {
	p := r.buf[r.start:r.end:r.end]
	r.offset += int64(len(p))
	r.start, r.scanned = r.end, 0
	return p
}

// Offset returns the number of bytes consumed by the lines returned so far,
// newlines included, plus the offset given to Reset: where to resume.
func (r *Reader) Offset() int64 { return r.offset }

// Reset makes r read rd, keeping its buffer, as if rd's first byte were at
// offset (for a file reopened and positioned there by the caller).
func (r *Reader) Reset(rd io.Reader, offset int64) {
	r.ResetPending(rd, offset, nil)
}

// ResetPending is Reset for a stream of which pending, the bytes at offset,
// were read already (a partial line the caller kept while r served other
// streams): they come first, then rd's bytes. pending is copied.
func (r *Reader) ResetPending(rd io.Reader, offset int64, pending []byte) {
	if r.view {
		r.buf, r.view = make([]byte, max(DefaultBufSize, len(pending))), false
	} else if len(pending) > len(r.buf) {
		r.buf = make([]byte, len(pending))
	}
	r.rd = rd
	r.start, r.end, r.scanned = 0, copy(r.buf, pending), 0
	r.offset = offset
	r.split = false
	r.err = nil
}

// BufSize returns the size of r's buffer, which grows with the longest line
// (up to MaxLineSize+1): a caller that pools Readers can drop grown ones.
func (r *Reader) BufSize() int { return len(r.buf) }
