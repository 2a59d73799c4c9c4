package mergelogreceiver

import (
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A container's log rotates: kubelet renames <restart>.log to <restart>.log.<time> (gzipped
// later) and the runtime opens a new <restart>.log. The receiver begins a container's live file
// only once the files rotated before it are read to their end (at most split_line_wait later):
// the pieces of a line split across the rotation then wait at the end of the older file when the
// first piece of the live one looks for them (continueSplit), and the container's lines leave in
// the order they were written. A file longer than a read round's chunk, or found in the same
// poll as the new file, would otherwise have its end read after the new file's beginning.

// rotations is, by container log, the files of it the receiver follows, and the live files held
// back for an older one. Owned by the run goroutine.
type rotations struct {
	logs map[string][]*tailedFile  // by containerLog of their path; nil without split_line_wait
	held map[*tailedFile]time.Time // live files not begun for an older one, since when
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

// rotatedBefore reports whether a's file was rotated before b's: a rotated file before the live
// one, and files of the same kind in the order the tracker found them (kubelet's names sort by
// time, and a poll lists them in that order).
func rotatedBefore(a, b *tailedFile) bool {
	aLive, bLive := a.live(), b.live()
	if aLive != bLive {
		return bLive
	}
	return a.id < b.id
}

// live reports whether f's path is its container's live log, the file the runtime writes.
func (f *tailedFile) live() bool {
	path := f.file.Path()
	return containerLog(path) == path
}

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

// holds reports whether f, a live file not begun, waits at now for a file of its container
// rotated before it that still holds bytes to read; at most split_line_wait from the first time.
func (r *rotations) holds(f *tailedFile, now time.Time) bool {
	if r.logs == nil || f.begun() || !f.live() {
		return false
	}
	for _, o := range r.logs[containerLog(f.file.Path())] {
		if o == f || !rotatedBefore(o, f) || !o.unread() {
			continue
		}
		since, ok := r.held[f]
		if !ok {
			r.held[f] = now
			return true
		}
		if now.Before(since.Add(r.wait)) {
			return true
		}
		break
	}
	delete(r.held, f)
	return false
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
