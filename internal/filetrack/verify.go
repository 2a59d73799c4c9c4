package filetrack

import (
	"bytes"
	"io"
	"os"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// verdict is the outcome of comparing a candidate file with an identity.
type verdict uint8

const (
	differ  verdict = iota
	unknown         // cannot tell yet
	weak            // same, on the fingerprint's word only
	strong          // same, content compared beyond the fingerprint
)

// verify compares candidate c (open as fd) with identity x,
// following the rules in the package documentation.
func (t *Tracker) verify(c *diskFile, fd *os.File, x *File) verdict {
	if x.skipped {
		if x.key == c.key {
			return strong
		}
		return differ
	}
	if x.key == c.key && x.src == nil {
		if c.kind == decompress.Plain && x.r.kind == decompress.Plain && c.size < x.r.off {
			return differ
		}
		if v := t.compareChecks(c, fd, x); v == strong || v == differ {
			return v
		}
		return weak
	}
	if v, ok := t.compareDirect(c, fd, x); ok {
		return v
	}
	return t.compareChecks(c, fd, x)
}

// compareDirect compares a candidate with the identity's plain source while that exists: the
// surest test, and one that needs no check point. A compressed candidate is compared at the
// end of what of it decodes now, so that one still being written (kubelet's <name>.tmp,
// logrotate's .gz) is told for the copy it is before it is complete.
func (t *Tracker) compareDirect(c *diskFile, fd *os.File, x *File) (verdict, bool) {
	src := x.src
	if src == nil || src == c || x.r.kind != decompress.Plain {
		return 0, false
	}
	if c.kind == decompress.Plain && c.size > src.size {
		return differ, true
	}
	xfd := x.r.fd
	if xfd == nil {
		if !t.fds.slot() {
			t.current.starved = true
			return 0, false
		}
		var size int64
		if xfd, size, _ = t.fds.openKnown(src.path, src.key); xfd == nil {
			return 0, false
		}
		defer t.fds.closeRaw(xfd)
		if !t.sameStart(x, xfd, size) {
			return 0, false // no longer x's stream (see checkSources): the check points tell
		}
	}
	end, a, okA, complete := c.size, []byte(nil), false, false
	c.match.whole = whole{}
	if c.kind == decompress.Plain {
		a, okA = readWindow(fd, end, &t.scratch.winA)
	} else {
		end, a, okA, complete = t.decodedEnd(c, fd, src.size)
		if okA && end > src.size {
			return differ, true // a copy is never larger than its original
		}
	}
	b, okB := readWindow(xfd, end, &t.scratch.winB)
	if !okA || !okB {
		return 0, false
	}
	if bytes.Equal(a, b) {
		if complete {
			c.match.whole = whole{size: c.size, mtime: c.mtime, end: end}
		}
		return strong, true
	}
	return differ, true
}

// decodedEnd decodes compressed candidate c as far as it goes now, at most limit+1 bytes, and
// returns where it stopped, the checkWindow bytes before that (in scratch.winA) and whether
// its stream ended there, complete (not cut short, nor stopped at the limit); false if
// nothing decodes.
func (t *Tracker) decodedEnd(c *diskFile, fd *os.File, limit int64) (int64, []byte, bool, bool) {
	dec, err := decompress.NewReaderKind(io.NewSectionReader(fd, 0, c.size), c.kind)
	if err != nil {
		return 0, nil, false, false
	}
	defer func() { _ = dec.Close() }() // releases decoder buffers only; never fails
	tl := &tail{r: dec}
	_, err = io.CopyN(io.Discard, tl, limit+1) // cut short while being written: compared where it stops
	if tl.pos == 0 {
		return 0, nil, false, false
	}
	n := copy(t.scratch.winA[:], tl.buf[checkWindow-tl.n:])
	return tl.pos, t.scratch.winA[:n], true, err == io.EOF
}

// compareChecks compares the candidate with x's last check point within its
// size.
func (t *Tracker) compareChecks(c *diskFile, fd *os.File, x *File) verdict {
	cs := x.r.checks.list
	if len(cs) == 0 {
		if x.r.off <= int64(len(x.fp)) {
			return weak
		}
		return unknown
	}
	var (
		i   int
		got uint64
	)
	if c.kind == decompress.Plain {
		if i = lastCheck(cs, c.size); i >= 0 {
			w, ok := readWindow(fd, cs[i].off, &t.scratch.winA)
			if !ok {
				return unknown
			}
			got = sum(w)
		}
	} else {
		i, got = streamChecks(c, fd, cs)
	}
	switch {
	case i < 0:
		return unknown
	case got == cs[i].sum:
		return strong
	}
	return differ
}

// streamChecks decompresses c up to the check points cs, returning the index
// of the last one reached and the hash there.
func streamChecks(c *diskFile, fd *os.File, cs []check) (int, uint64) {
	dec, err := decompress.NewReaderKind(io.NewSectionReader(fd, 0, c.size), c.kind)
	if err != nil {
		return -1, 0
	}
	defer func() { _ = dec.Close() }() // releases decoder buffers only; never fails
	tl := &tail{r: dec}
	i, got := -1, uint64(0)
	for j, ck := range cs {
		if _, err := io.CopyN(io.Discard, tl, ck.off-tl.pos); err != nil {
			break
		}
		i, got = j, tl.sum()
	}
	return i, got
}

// sameStart verifies that an open plain file still holds f's stream: its
// fingerprint, and its last check point within the file (a file truncated
// and refilled past the read offset can start with the same header). The
// fingerprint grows with the file.
func (t *Tracker) sameStart(f *File, fd *os.File, size int64) bool {
	b := t.scratch.fpRaw[:min(size, int64(t.opts.FingerprintSize))]
	if _, err := fd.ReadAt(b, 0); err != nil {
		return true // reading will report it
	}
	if !bytes.HasPrefix(b, f.fp) {
		return false
	}
	cs := f.r.checks.list
	if i := lastCheck(cs, size); i >= 0 {
		if w, ok := readWindow(fd, cs[i].off, &t.scratch.winA); ok && sum(w) != cs[i].sum {
			return false
		}
	}
	if len(b) > len(f.fp) {
		t.files.byFP.remove(f)
		f.fp = append(f.fp, b[len(f.fp):]...)
		t.files.byFP.insert(f)
	}
	return true
}
