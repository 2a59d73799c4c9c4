package filetrack

import (
	"io"
	"slices"
	"sort"
	"sync"

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

// checkPoints are an identity's check points, in offset order. Its reader adds to them as it
// reads, outside the Tracker's lock, while Checkpoint may copy them: both take mu. Poll reads
// them without it, as it never runs while a File is read.
type checkPoints struct {
	mu   sync.Mutex
	list []check
	gen  uint64 // counts changes of list
}

// init gives cs room for maxChecks points and one more, so that adding never allocates.
func (cs *checkPoints) init() { cs.list = make([]check, 0, maxChecks+1) }

// add records c.
func (cs *checkPoints) add(c check) {
	cs.mu.Lock()
	var changed bool
	if cs.list, changed = addCheck(cs.list, c); changed {
		cs.gen++
	}
	cs.mu.Unlock()
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
