package filetrack

import (
	"io"
	"slices"
	"sort"

	"github.com/mergelog/otelcol-mergelog/internal/filetrack/checkpoint"
)

// checkWindow is how many bytes before a check point its hash covers: enough
// to span a few log lines, so that files sharing a header still differ.
const checkWindow = 256

// maxChecks bounds the check points kept per identity.
const maxChecks = checkpoint.MaxChecks

// check is a point of an identity's stream: the hash of the up to
// checkWindow bytes before off.
type check struct {
	off int64
	sum uint64
}

// addCheck inserts c in offset order and reports whether cs changed. When
// full it drops the second point: the first stays as an anchor near the start
// (for short copies) and the others are the most recent. cs keeps its
// capacity, so steady-state reading does not allocate.
func addCheck(cs []check, c check) ([]check, bool) {
	i := sort.Search(len(cs), func(i int) bool { return cs[i].off >= c.off })
	if i < len(cs) && cs[i].off == c.off {
		if cs[i].sum == c.sum {
			return cs, false
		}
		cs[i] = c // same offset, other bytes: the newest reading is the truth
		return cs, true
	}
	cs = slices.Insert(cs, i, c)
	if len(cs) > maxChecks {
		cs = slices.Delete(cs, 1, 2)
	}
	return cs, true
}

// sum is FNV-1a: the inputs are at most checkWindow bytes, and the value is
// persisted, so it must not depend on a per-process seed.
func sum(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

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

// lastCheck returns the index of the last check point within size, or -1.
func lastCheck(cs []check, size int64) int {
	return sort.Search(len(cs), func(i int) bool { return cs[i].off > size }) - 1
}

// readWindow reads the up to checkWindow bytes before end.
func readWindow(r io.ReaderAt, end int64, buf *[checkWindow]byte) ([]byte, bool) {
	n := min(end, checkWindow)
	w := buf[:n]
	if _, err := r.ReadAt(w, end-n); err != nil {
		return nil, false
	}
	return w, true
}
