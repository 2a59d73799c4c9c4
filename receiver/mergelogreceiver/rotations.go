package mergelogreceiver

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A container's log rotates: kubelet renames <restart>.log to <restart>.log.<time> (gzipped
// later) and the runtime opens a new <restart>.log. The receiver begins a file of a container's
// log only once the file right before it (by kubelet's names) is read to the end of its data, at
// most split_line_wait later: the pieces of a line, or the stack trace being joined, left at the
// end of the older file then wait there when the first lines of the next one look for them
// (continueSplit), which takes them over only from the file right before it; and the
// container's lines leave in the order they were written. A file longer than a read round's
// chunk, or found in the same poll as the next one, would otherwise have its end read after the
// next file's beginning.

// rotations is, by container log, the files of it the receiver follows, and the files held back
// for the one before them. Owned by the run goroutine.
type rotations struct {
	logs map[string][]*tailedFile  // by containerLog of their path; nil without split_line_wait
	held map[*tailedFile]time.Time // files not begun, held for the one before them, since when
	wait time.Duration             // split_line_wait: the longest a file is held back
}

// containerLog is the live path of the container log path belongs to: <dir>/<restart>.log for
// <dir>/<restart>.log.<time> and <dir>/<restart>.log.<time>.gz.
func containerLog(path string) string {
	dir, name := filepath.Split(path)
	if base, _, ok := strings.Cut(name, ".log"); ok && name != "" {
		return dir + base + ".log"
	}
	return path
}

// rotationRank orders the files of a container log by kubelet's names: 0.log.<time>.gz, then
// 0.log.<time> (kubelet compresses a file before it renames the next one in the same second),
// then the live 0.log, last.
func rotationRank(path string) string {
	_, rest, _ := strings.Cut(filepath.Base(path), ".log")
	if rest == "" {
		return liveRank
	}
	if at, ok := strings.CutSuffix(rest, ".gz"); ok {
		return at + "0"
	}
	return rest + "1"
}

// liveRank is the rotationRank of a live file, after every rotated one.
const liveRank = "~"

// rotated reports whether f's file was rotated: its name is its container's log's (0.log) with
// a suffix (0.log.<timestamp>, 0.log.<timestamp>.gz).
func (f *tailedFile) rotated() bool { return rotationRank(f.file.Path()) != liveRank }

// add follows f, with format container and a split_line_wait.
func (r *rotations) add(f *tailedFile) {
	if r.wait <= 0 || f.parser == nil {
		return
	}
	if r.logs == nil {
		r.logs, r.held = map[string][]*tailedFile{}, map[*tailedFile]time.Time{}
	}
	k := containerLog(f.file.Path())
	r.logs[k] = append(r.logs[k], f)
}

// remove forgets f, forgotten by the receiver.
func (r *rotations) remove(f *tailedFile) {
	if r.logs == nil {
		return
	}
	delete(r.held, f)
	if r.removeFrom(containerLog(f.file.Path()), f) {
		return
	}
	for k := range r.logs { // moved to another container's log: not by kubelet
		if r.removeFrom(k, f) {
			return
		}
	}
}

// removeFrom takes f out of container log k's files, if there.
func (r *rotations) removeFrom(k string, f *tailedFile) bool {
	fs := r.logs[k]
	i := slices.Index(fs, f)
	if i < 0 {
		return false
	}
	if fs = slices.Delete(fs, i, i+1); len(fs) == 0 {
		delete(r.logs, k)
	} else {
		r.logs[k] = fs
	}
	return true
}

// holds reports whether f, a container file not begun, waits at now for the file right before
// it in its container log, which still holds bytes to read; at most split_line_wait from the
// first time.
func (r *rotations) holds(f *tailedFile, now time.Time) bool {
	if r.logs == nil || f.begun() {
		return false
	}
	if o := r.before(f); o != nil && o.unread() {
		since, ok := r.held[f]
		if !ok {
			r.held[f] = now
			return true
		}
		if now.Before(since.Add(r.wait)) {
			return true
		}
	}
	delete(r.held, f)
	return false
}

// before returns the file right before f in its container log by rotationRank (the latest
// found among equals), nil if the receiver follows none.
func (r *rotations) before(f *tailedFile) *tailedFile {
	to := rotationRank(f.file.Path())
	var best *tailedFile
	bestRank := ""
	for _, g := range r.logs[containerLog(f.file.Path())] {
		rank := rotationRank(g.file.Path())
		if g != f && rank < to && (best == nil || rank > bestRank || rank == bestRank && g.id > best.id) {
			best, bestRank = g, rank
		}
	}
	return best
}

// follows reports whether f comes right after o in their container log: no file the receiver
// follows is between them by rotationRank (o's pieces and entry continue in that one). When
// the names do not order them (the receiver has not seen o renamed yet, or before it was
// removed), o must have been found first.
func (r *rotations) follows(f, o *tailedFile) bool {
	from, to := rotationRank(o.file.Path()), rotationRank(f.file.Path())
	if from >= to {
		return o.id < f.id
	}
	for _, g := range r.logs[containerLog(f.file.Path())] {
		if rank := rotationRank(g.file.Path()); g != f && g != o && from < rank && rank < to {
			return false
		}
	}
	return true
}

// begun reports whether a stream of f took a line.
func (f *tailedFile) begun() bool {
	for _, s := range f.streams {
		if s.begun {
			return true
		}
	}
	return false
}

// unread reports whether f holds bytes not read yet that the receiver will read: not held back
// by the merge window, and either handed out and not read to the end of its data, or grown on
// disk since.
func (f *tailedFile) unread() bool {
	if f.state.done || f.state.blocked {
		return false
	}
	return !f.state.drained || f.unreadOnDisk()
}
