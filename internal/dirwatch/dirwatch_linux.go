package dirwatch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

const (
	// readSize is one read of the kernel's queue: about a thousand events of
	// the short names pod logs have.
	readSize = 32 << 10
	// maxReadsPerCall bounds one call of Changes, so that a flood of events
	// cannot keep it draining: the rest wait for the next call (or overflow the
	// kernel's queue, fs.inotify.max_queued_events, which asks for a rescan).
	maxReadsPerCall = 16
	// watchMask is what a directory's watch reports: names added, removed and
	// renamed, files written or their attributes changed, and the directory
	// itself gone or moved.
	watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MOVED_FROM | unix.IN_MOVED_TO |
		unix.IN_MODIFY | unix.IN_ATTRIB | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR
)

// Watcher watches a set of directories. It is not safe for concurrent use,
// except that Close may be called at any time.
type Watcher struct {
	queue *os.File        // the inotify instance, non-blocking
	conn  syscall.RawConn // queue's, so that a read and Close do not race
	// watched maps each watched directory, as the system resolves it, to its
	// watch; aliases maps a watch to the paths its directory was asked for
	// under: the events are reported under each.
	watched map[string]int32
	aliases map[int32][]string
	changed map[string]struct{}
	// overflowed says events were lost: an IN_IGNORED among them may have been, leaving in
	// watched a watch the system removed; the next Sync renews every watch.
	overflowed bool
	paths      []string
	events     []byte // one read of the queue
	path       []byte // a changed path being built
}

// New returns a Watcher watching nothing yet.
func New() (*Watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err) // the system's limit of instances, most often
	}
	queue := os.NewFile(uintptr(fd), "inotify")
	conn, err := queue.SyscallConn()
	if err != nil {
		_ = queue.Close() // never used
		return nil, err
	}
	return &Watcher{
		queue: queue, conn: conn,
		watched: map[string]int32{}, aliases: map[int32][]string{}, changed: map[string]struct{}{},
		events: make([]byte, readSize),
	}, nil
}

// Sync makes dirs the watched set: new ones are watched, the others no longer;
// after an overflow, every watch is renewed (a directory removed and made again
// meanwhile gets a new one). A directory that does not exist (any more) is
// skipped. It returns how many directories were newly watched (changes in them
// before now were not seen) and the errors of the ones that could not be
// watched (the system's limit of watches, most often); the others are watched
// all the same.
func (w *Watcher) Sync(dirs []string) (added int, err error) {
	want := make(map[string][]string, len(dirs))
	for _, d := range dirs {
		resolved, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // gone since it was listed: the caller's next listing sees what is there
		}
		want[resolved] = append(want[resolved], d)
	}
	for dir := range w.watched {
		if _, ok := want[dir]; !ok {
			w.unwatch(dir)
		}
	}
	clear(w.aliases)
	var errs []error
	var replaced []int32
	for dir, paths := range want {
		wd, ok := w.watched[dir]
		if !ok || w.overflowed {
			renewed, err := w.watch(dir)
			if err != nil {
				if ok {
					w.unwatch(dir) // perhaps a dead watch: watched as new at the next Sync
				}
				if !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.ENOTDIR) {
					errs = append(errs, fmt.Errorf("watch %s: %w", dir, err))
				}
				continue
			}
			if ok && renewed != wd {
				replaced = append(replaced, wd) // the directory that was here, if it still is
			}
			if !ok || renewed != wd { // the system returns a watch it still has as it is
				added++
			}
			wd = renewed
		}
		w.aliases[wd] = append(w.aliases[wd], paths...)
	}
	for _, wd := range replaced {
		if !w.used(wd) {
			w.remove(wd)
		}
	}
	w.overflowed = false
	return added, errors.Join(errs...)
}

func (w *Watcher) watch(dir string) (wd int32, err error) {
	ctlErr := w.conn.Control(func(fd uintptr) {
		var n int
		n, err = unix.InotifyAddWatch(int(fd), dir, watchMask)
		wd = int32(n)
	})
	if err == nil {
		err = ctlErr
	}
	if err == nil {
		w.watched[dir] = wd
	}
	return wd, err
}

// unwatch stops watching dir, unless another watched path is the same
// directory (a bind mount): the system gives both one watch.
func (w *Watcher) unwatch(dir string) {
	wd := w.watched[dir]
	delete(w.watched, dir)
	if !w.used(wd) {
		w.remove(wd)
	}
}

// used reports whether a watched directory has watch wd.
func (w *Watcher) used(wd int32) bool {
	for _, other := range w.watched {
		if other == wd {
			return true
		}
	}
	return false
}

// drop stops watch wd, under whichever paths it was watched.
func (w *Watcher) drop(wd int32) {
	w.forget(wd)
	w.remove(wd)
}

func (w *Watcher) remove(wd int32) {
	_ = w.conn.Control(func(fd uintptr) {
		_, _ = unix.InotifyRmWatch(int(fd), uint32(wd)) // fails only if the system dropped it already (deleted)
	})
}

// Changes returns the paths that changed in the watched directories since the
// last call (created, written, removed, renamed, their attributes changed),
// each once, under every path its directory was asked for. rescan reports
// that what changed is not fully known: events were lost (overflow), a
// watched directory itself went or changed, or a directory appeared in one
// (its files are not watched yet). The slice is valid until the next call.
func (w *Watcher) Changes() (paths []string, rescan bool) {
	clear(w.changed)
	for range maxReadsPerCall {
		n, err := w.read()
		if err != nil {
			rescan = true // reading the queue failed: what changed is not known
		}
		if n == 0 {
			break
		}
		rescan = w.noteAll(w.events[:n]) || rescan
	}
	w.paths = w.paths[:0]
	for p := range w.changed {
		w.paths = append(w.paths, p)
	}
	return w.paths, rescan
}

// read reads what the queue holds, up to one buffer; 0 if it is empty.
func (w *Watcher) read() (n int, err error) {
	var readErr error
	if err := w.conn.Read(func(fd uintptr) bool {
		n, readErr = unix.Read(int(fd), w.events)
		return true // never wait: an empty queue means nothing changed
	}); err != nil {
		return 0, err
	}
	if errors.Is(readErr, unix.EAGAIN) || errors.Is(readErr, unix.EINTR) {
		return 0, nil
	}
	return max(n, 0), readErr
}

// noteAll records the events of one read; true if one calls for a rescan.
func (w *Watcher) noteAll(events []byte) (rescan bool) {
	for len(events) >= unix.SizeofInotifyEvent {
		wd := int32(binary.NativeEndian.Uint32(events[0:]))
		mask := binary.NativeEndian.Uint32(events[4:])
		nameLen := uint64(binary.NativeEndian.Uint32(events[12:]))
		if nameLen > uint64(len(events)-unix.SizeofInotifyEvent) {
			return true // the kernel writes whole events: this read is not one
		}
		size := unix.SizeofInotifyEvent + int(nameLen)
		name := events[unix.SizeofInotifyEvent:size]
		if end := bytes.IndexByte(name, 0); end >= 0 {
			name = name[:end] // the name is padded with NULs
		}
		rescan = w.note(wd, mask, name) || rescan
		events = events[size:]
	}
	return rescan
}

// note records one event; true if it calls for a rescan.
func (w *Watcher) note(wd int32, mask uint32, name []byte) (rescan bool) {
	switch {
	case mask&unix.IN_Q_OVERFLOW != 0:
		w.overflowed = true
		return true
	case mask&unix.IN_IGNORED != 0:
		// The watch is gone: its directory was removed, or unwatch removed it.
		return w.forget(wd)
	case len(name) == 0:
		// A watched directory itself was removed, moved or changed mode. A moved one's
		// watch follows it away from the path it was asked for: dropped, so that the
		// next Sync watches what is at that path then.
		if mask&unix.IN_MOVE_SELF != 0 {
			w.drop(wd)
		}
		return true
	case mask&unix.IN_ISDIR != 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0:
		return true // a directory created or moved in: what it holds is not watched
	}
	for i, alias := range w.aliases[wd] {
		w.path = w.path[:0]
		if alias != "." { // the listing names the files of "." without it, as filepath.Join does
			w.path = append(w.path, alias...)
			if !strings.HasSuffix(alias, "/") {
				w.path = append(w.path, '/')
			}
		}
		w.path = append(w.path, name...)
		if i == 0 && mask&(unix.IN_CREATE|unix.IN_MOVED_TO) != 0 && linksToDirectory(string(w.path)) {
			return true // a link to a directory: what it holds is not watched
		}
		if _, ok := w.changed[string(w.path)]; !ok { // no string made for a path seen already
			w.changed[string(w.path)] = struct{}{}
		}
	}
	return false
}

// linksToDirectory reports whether path, which the kernel did not call a directory, is a
// symbolic link to one (a name created: rare beside the writes).
func linksToDirectory(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// forget drops a watch the system removed; true if it was still in use.
func (w *Watcher) forget(wd int32) (inUse bool) {
	for dir, other := range w.watched {
		if other == wd {
			delete(w.watched, dir)
			inUse = true
		}
	}
	delete(w.aliases, wd)
	return inUse
}

// Close stops watching.
func (w *Watcher) Close() error { return w.queue.Close() }
