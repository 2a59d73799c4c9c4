// Package dirwatch tells which paths in a set of directories changed since it
// was last asked, from the system's directory notifications (inotify on
// Linux, through fsnotify). One watch per directory, never one per file.
//
// What it says is a hint, not a record: notifications can be lost (the
// kernel's queue overflows), never come (network and FUSE file systems, a
// write through a memory mapping), or come late. The caller keeps a full
// listing on a longer interval as its safety net, and lists everything again
// whenever Changes asks for a rescan.
package dirwatch

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"

	"github.com/fsnotify/fsnotify"
)

// ErrUnsupported is returned by New where a directory watch does not report
// writes to the files in it (kqueue on macOS and the BSDs reports only names
// added and removed) or is not used here at all (Windows, untested).
var ErrUnsupported = errors.New("dirwatch: directory watches do not report file writes on " + runtime.GOOS)

const (
	// bufferedEvents is how many events wait between two calls of Changes
	// before fsnotify stops reading the kernel's queue. While it waits the
	// kernel merges repeated writes to one file into one event, so a busy file
	// costs one event per call, not one per write; past the kernel's queue
	// (fs.inotify.max_queued_events) the overflow asks for a rescan.
	bufferedEvents = 4096
	// maxEventsPerCall bounds one call of Changes, so that a flood of events
	// cannot keep it draining: the rest wait for the next call (or overflow).
	maxEventsPerCall = 4 * bufferedEvents
)

// Watcher watches a set of directories. It is not safe for concurrent use,
// except that Close may be called at any time.
type Watcher struct {
	notify *fsnotify.Watcher
	// aliases maps each watched directory, as the system resolves it, to the
	// paths it was asked for under: the events are reported under each.
	aliases map[string][]string
	changed map[string]struct{}
	paths   []string
}

// New returns a Watcher watching nothing yet.
func New() (*Watcher, error) {
	if runtime.GOOS != "linux" {
		return nil, ErrUnsupported
	}
	notify, err := fsnotify.NewBufferedWatcher(bufferedEvents)
	if err != nil {
		return nil, err // the system's limit of inotify instances, most often
	}
	return &Watcher{notify: notify, aliases: map[string][]string{}, changed: map[string]struct{}{}}, nil
}

// Sync makes dirs the watched set: new ones are watched, the others no longer.
// A directory that does not exist (any more) is skipped. It returns how many
// directories were newly watched (changes in them before now were not seen)
// and the errors of the ones that could not be watched (the system's limit of
// watches, most often); the others are watched all the same.
func (w *Watcher) Sync(dirs []string) (added int, err error) {
	want := make(map[string][]string, len(dirs))
	for _, d := range dirs {
		resolved, err := filepath.EvalSymlinks(d)
		if err != nil {
			continue // gone since it was listed: the caller's next listing sees what is there
		}
		want[resolved] = append(want[resolved], d)
	}
	watched := map[string]bool{}
	for _, d := range w.notify.WatchList() {
		watched[d] = true
		if _, ok := want[d]; !ok {
			_ = w.notify.Remove(d) // fails only if the system dropped it already (deleted)
		}
	}
	var errs []error
	for resolved := range want {
		if watched[resolved] {
			continue
		}
		if err := w.notify.Add(resolved); err != nil {
			errs = append(errs, err)
			delete(want, resolved)
			continue
		}
		added++
	}
	w.aliases = want
	return added, errors.Join(errs...)
}

// Changes returns the paths that changed in the watched directories since the
// last call (created, written, removed, renamed, their attributes changed),
// each once, under every path its directory was asked for. rescan reports
// that what changed is not fully known: events were lost (overflow), a
// watched directory itself went or changed, or a directory appeared in one
// (its files are not watched yet). The slice is valid until the next call.
func (w *Watcher) Changes() (paths []string, rescan bool) {
	clear(w.changed)
drain:
	for range maxEventsPerCall {
		select {
		case ev := <-w.notify.Events:
			rescan = w.note(ev) || rescan
		case err := <-w.notify.Errors:
			// The queue overflowed (fsnotify.ErrEventOverflow), or reading it failed: what
			// changed is not known.
			rescan = rescan || err != nil
		default:
			break drain
		}
	}
	w.paths = w.paths[:0]
	for p := range w.changed {
		w.paths = append(w.paths, p)
	}
	return w.paths, rescan
}

// note records one event; true if it calls for a rescan.
func (w *Watcher) note(ev fsnotify.Event) (rescan bool) {
	if _, ok := w.aliases[ev.Name]; ok {
		return true // a watched directory itself was removed, renamed or changed mode
	}
	if ev.Has(fsnotify.Create) {
		// A directory created or moved in: what it holds is not watched.
		if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
			return true
		}
	}
	dir, name := filepath.Split(ev.Name)
	for _, alias := range w.aliases[filepath.Clean(dir)] {
		w.changed[filepath.Join(alias, name)] = struct{}{}
	}
	return false
}

// Close stops watching.
func (w *Watcher) Close() error { return w.notify.Close() }
