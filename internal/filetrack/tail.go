package filetrack

import "io"

// tail passes reads through and keeps the last checkWindow bytes, so that a
// check point can be taken wherever reading stops, for compressed streams
// too, without reading anything again.
type tail struct {
	r   io.Reader
	pos int64 // stream offset after the last byte read
	n   int   // valid bytes at the end of buf
	buf [checkWindow]byte
}

// reset makes t read r, whose next byte is at stream offset pos. The kept
// bytes stay valid if reading goes on where it stopped (another source of
// the same stream, or the same descriptor later).
func (t *tail) reset(r io.Reader, pos int64) {
	if pos != t.pos {
		t.n = 0
	}
	t.r, t.pos = r, pos
}

// rewind moves t back to pos, before t.pos, for the bytes after pos to be
// read again: the kept bytes after pos are dropped, those before it stay.
// Reading stops at an end only after reading the dropped bytes again, so the
// window is whole again wherever a check point can be taken.
func (t *tail) rewind(pos int64) {
	d := t.pos - pos
	if d <= 0 {
		return
	}
	n := max(t.n-int(d), 0)
	copy(t.buf[checkWindow-n:], t.buf[checkWindow-t.n:checkWindow-t.n+n])
	t.pos, t.n = pos, n
}

func (t *tail) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n >= checkWindow {
		copy(t.buf[:], p[n-checkWindow:n])
		t.n = checkWindow
	} else if n > 0 {
		copy(t.buf[:], t.buf[n:])
		copy(t.buf[checkWindow-n:], p[:n])
		t.n = min(t.n+n, checkWindow)
	}
	t.pos += int64(n)
	return n, err
}

// complete reports whether the kept bytes are all the bytes before pos that
// a check point covers.
func (t *tail) complete() bool { return int64(t.n) == min(t.pos, checkWindow) }

func (t *tail) sum() uint64 { return sum(t.buf[checkWindow-t.n:]) }
