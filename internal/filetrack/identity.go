package filetrack

import (
	"bytes"
	"io"
	"io/fs"
	"os"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// fileKey is a file's device and inode: its identity while it exists. keyOf,
// which finds it, depends on the OS.
type fileKey struct{ dev, ino uint64 }

// hasKey reports whether the file at path, whose stat is info, is the one
// known by key.
func hasKey(path string, info fs.FileInfo, key fileKey) bool {
	k, err := keyOf(path, info)
	return err == nil && k == key
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
func (t *Tracker) verify(c *diskFile, fd *os.File, x *File) verdict {
	if x.skipped {
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
func (t *Tracker) compareDirect(c *diskFile, fd *os.File, x *File) (verdict, bool) {
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
		if info, err := xfd.Stat(); err != nil || !hasKey(xfd.Name(), info, src.key) {
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
func (t *Tracker) compareChecks(c *diskFile, fd *os.File, x *File) verdict {
	cs := x.checks
	if len(cs) == 0 {
		if x.off <= int64(len(x.fp)) {
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
