package filetrack

import (
	"bytes"
	"io"
	"io/fs"
	"os"
	"slices"
	"sort"
	"syscall"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
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

// fileKey is a file's device and inode: its identity while it exists.
type fileKey struct{ dev, ino uint64 }

func keyOf(info fs.FileInfo) fileKey {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileKey{}
	}
	return fileKey{dev: uint64(st.Dev), ino: st.Ino} //nolint:unconvert // Dev is not uint64 everywhere
}

// index holds the identities sorted by fingerprint, so that both kinds of
// compatible fingerprints are found without a scan: longer ones (a range)
// and shorter ones (one lookup per length in use).
type index struct {
	s    []*File
	lens map[int]int // fingerprint length → identities with it
}

func (x *index) search(fp []byte, id uint64) int {
	return sort.Search(len(x.s), func(i int) bool {
		c := bytes.Compare(x.s[i].fp, fp)
		return c > 0 || c == 0 && x.s[i].id >= id
	})
}

func (x *index) insert(f *File) {
	x.s = slices.Insert(x.s, x.search(f.fp, f.id), f)
	x.lens[len(f.fp)]++
}

func (x *index) remove(f *File) {
	i := x.search(f.fp, f.id)
	if i == len(x.s) || x.s[i] != f {
		return
	}
	x.s = slices.Delete(x.s, i, i+1)
	if x.lens[len(f.fp)]--; x.lens[len(f.fp)] == 0 {
		delete(x.lens, len(f.fp))
	}
}

// compatible appends the identities whose fingerprint is a prefix of fp or
// has fp as a prefix.
func (x *index) compatible(fp []byte, out []*File) []*File {
	for i := x.search(fp, 0); i < len(x.s) && bytes.HasPrefix(x.s[i].fp, fp); i++ {
		out = append(out, x.s[i])
	}
	for l := range x.lens {
		if l >= len(fp) {
			continue
		}
		p := fp[:l]
		for i := x.search(p, 0); i < len(x.s) && bytes.Equal(x.s[i].fp, p); i++ {
			out = append(out, x.s[i])
		}
	}
	return out
}

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
func (t *Tracker) verify(c *phys, fd *os.File, x *File) verdict {
	if x.whole {
		if x.key == c.key {
			return strong
		}
		return differ
	}
	if x.key == c.key && x.src == nil {
		if c.kind == decompress.Plain && x.kind == decompress.Plain && c.size < x.off {
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

// compareDirect compares a plain candidate with the identity's plain source
// while that exists: the surest test, and one that needs no check point.
func (t *Tracker) compareDirect(c *phys, fd *os.File, x *File) (verdict, bool) {
	src := x.src
	if src == nil || src == c || c.kind != decompress.Plain || x.kind != decompress.Plain {
		return 0, false
	}
	if c.size > src.size {
		return differ, true
	}
	xfd := x.fd
	if xfd == nil {
		if !t.slot() {
			return 0, false
		}
		var err error
		if xfd, err = t.open(src.path); err != nil {
			return 0, false
		}
		defer t.closeRaw(xfd)
		if info, err := xfd.Stat(); err != nil || keyOf(info) != src.key {
			return 0, false
		}
	}
	a, okA := readWindow(fd, c.size, &t.winA)
	b, okB := readWindow(xfd, c.size, &t.winB)
	if !okA || !okB {
		return 0, false
	}
	if bytes.Equal(a, b) {
		return strong, true
	}
	return differ, true
}

// compareChecks compares the candidate with x's last check point within its
// size.
func (t *Tracker) compareChecks(c *phys, fd *os.File, x *File) verdict {
	cs := x.checks
	if len(cs) == 0 {
		if x.off <= int64(len(x.fp)) {
			return weak
		}
		return unknown
	}
	var (
		i   = -1
		got uint64
	)
	if c.kind == decompress.Plain {
		if i = lastCheck(cs, c.size); i >= 0 {
			w, ok := readWindow(fd, cs[i].off, &t.winA)
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
func streamChecks(c *phys, fd *os.File, cs []check) (int, uint64) {
	dec, err := decompress.NewReaderKind(io.NewSectionReader(fd, 0, c.size), c.kind)
	if err != nil {
		return -1, 0
	}
	defer dec.Close()
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
