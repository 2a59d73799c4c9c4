package container

import "github.com/mergelog/otelcol-mergelog/internal/longbuf"

// Reassembler joins the pieces of one stream's lines that the runtime split (CRI lines tagged
// P, Docker logs without their newline) or that the reader cut at its maximum line size, back
// into whole lines of at most max bytes: beyond max, split gives the pieces collected so far as
// a line of their own and collects on; truncate drops the rest of the line.
type Reassembler struct {
	max      int
	truncate bool
	emit     func(log []byte, start, end, at int64)

	buf     []byte
	open    bool  // pieces are being collected
	carried bool  // the pieces collected so far came from another file (see TakeOver)
	start   int64 // offset of the first piece (in this file)
	end     int64 // end offset of the last piece
	at      int64 // the runtime's time of the first piece
}

// NewReassembler returns a Reassembler that gives each whole line to emit: its log, where it
// starts and ends in the file, and the runtime's time of its first piece. The log is valid
// only during the call.
func NewReassembler(maxBytes int, truncate bool, emit func(log []byte, start, end, at int64)) *Reassembler {
	return &Reassembler{max: maxBytes, truncate: truncate, emit: emit}
}

// Add takes the log of one line of the stream, from start to end in the file, written at at;
// more is true when the next line of the stream continues it. A line that is whole by itself
// goes to emit without a copy.
func (r *Reassembler) Add(log []byte, start, end, at int64, more bool) {
	if !more && !r.open {
		r.emit(log, start, end, at)
		return
	}
	if r.carried {
		r.carried, r.start, r.end = false, start, start // the line's first bytes in this file
	}
	if r.open && len(r.buf)+len(log) > r.max {
		if r.truncate {
			log = log[:max(r.max-len(r.buf), 0)]
		} else {
			r.Flush()
		}
	}
	if !r.open {
		r.open, r.start, r.at = true, start, at
	}
	// A long line's buffer is lent (longbuf) for the next long line of any stream, instead of
	// each one growing its own from nothing (a 1 MiB line cost ~5 MiB of allocations in
	// doubling steps), and goes back at its end: most lines are short.
	r.buf = append(longbuf.Grow(r.buf, len(log)), log...)
	r.end = end
	if !more {
		r.Flush()
	}
}

// TakeOver continues, in this Reassembler, the line whose pieces from collected: the pieces
// the runtime wrote at the end of the container stream's file before this one (kubelet rotated
// the file between the pieces of a line). from is left empty. The line keeps the runtime's time
// of its first piece; its offsets are those of its pieces in this file, which come next.
func (r *Reassembler) TakeOver(from *Reassembler) {
	if !from.open || r.open {
		return
	}
	r.buf, from.buf = from.buf, r.buf[:0] // r's is empty: the pieces change hands, not bytes
	r.open, r.carried, r.at = true, true, from.at
	from.reset()
}

// Flush gives the pieces collected so far to emit as a line.
func (r *Reassembler) Flush() {
	if !r.open {
		return
	}
	r.emit(r.buf, r.start, r.end, r.at)
	r.reset()
}

// reset empties r for its next line.
func (r *Reassembler) reset() {
	r.open, r.carried = false, false
	r.buf = longbuf.Reset(r.buf)
}

// Held returns the bytes of the pieces collected, which the Reassembler holds until their line
// ends.
func (r *Reassembler) Held() int { return len(r.buf) }

// Pending reports whether pieces are waiting for the rest of their line.
func (r *Reassembler) Pending() bool { return r.open }

// Oldest returns the start of the first piece waiting in this file; ok is false when none
// waits. record is always 0: the pieces are in no entry yet.
func (r *Reassembler) Oldest() (start, record int64, ok bool) {
	return r.start, 0, r.open && !r.carried
}
