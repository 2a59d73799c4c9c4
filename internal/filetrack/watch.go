package filetrack

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/dirwatch"
)

// hinter tells what changed in the watched directories: a dirwatch.Watcher, or
// a test's.
type hinter interface {
	Sync(dirs []string) (added int, err error)
	Changes() (paths []string, rescan bool)
	Close() error
}

// watching is the Tracker's use of directory watches (Options.Watch). A full
// listing globs and stats every path; between two, a poll states again only the
// paths the watches reported. Polling 10 000 files is then a few map lookups
// per file instead of a stat each.
type watching struct {
	enabled  bool          // Options.Watch
	fullScan time.Duration // Options.FullScanInterval
	newHints func() (hinter, error)
	now      func() time.Time
	hints    hinter // nil: a full listing at every poll
	tried    bool   // newHints was called

	lastFull, lastSync time.Time
	// again lists fully at the next poll: directories were watched only after
	// this poll listed them (a file created in between raised no event), or a
	// new link points into a directory not watched yet.
	again bool
	// broken is set while some directory cannot be watched (the system's limit
	// of watches): every poll lists fully, and the watches are tried again at
	// the full-scan interval.
	broken bool
	// rest is set when the last poll left nothing to do until something
	// changes (see atRest): a poll whose listing did not change is skipped.
	// Commit clears it.
	rest    bool
	include []string            // the include patterns, cleaned as globbing cleans them
	links   map[string][]string // a listed link's target → the listed links to it
	watched map[string]struct{} // the directories last synced
}

func newWatching(enabled bool, fullScan time.Duration) watching {
	return watching{
		enabled:  enabled,
		fullScan: fullScan,
		newHints: func() (hinter, error) {
			w, err := dirwatch.New()
			if err != nil {
				return nil, err
			}
			return w, nil
		},
		now:     time.Now,
		links:   map[string][]string{},
		watched: map[string]struct{}{},
	}
}

// list brings the listing up to date: fully at every poll without watches;
// with them, fully at the full-scan interval and at once whenever the watches
// lost track, otherwise only where they reported changes. It reports whether
// the listing may have changed (always, after a full listing), and whether it
// listed fully.
func (l *listing) list() (moved, all bool) {
	w := &l.watch
	if w.enabled && !w.tried {
		l.startWatching()
	}
	if w.hints == nil {
		l.listAll()
		return true, true
	}
	now := w.now()
	changed, rescan := w.hints.Changes()
	if !rescan && !w.again && !w.broken && now.Sub(w.lastFull) < w.fullScan {
		return l.relist(changed), false
	}
	l.listAll()
	w.lastFull = now
	if !w.broken || now.Sub(w.lastSync) >= w.fullScan {
		l.syncWatches(now)
	}
	return true, true
}

// ageing reports whether a listed file grows older than olderThan (Options.ExcludeOlderThan,
// 0 for none) before the next full listing: a poll with nothing else to do then is not idle.
func (l *listing) ageing(olderThan time.Duration) bool {
	if olderThan <= 0 {
		return false
	}
	ages := l.watch.lastFull.Add(l.watch.fullScan).Add(-olderThan).UnixNano()
	for i := range l.entries {
		if l.entries[i].mtime < ages {
			return true
		}
	}
	return false
}

func (l *listing) startWatching() {
	w := &l.watch
	w.tried = true
	hints, err := w.newHints()
	if err != nil {
		level := zap.InfoLevel
		if errors.Is(err, dirwatch.ErrUnsupported) {
			level = zap.DebugLevel
		}
		l.log.Log(level, "directory watches unavailable; listing every file at every poll", zap.Error(err))
		return
	}
	w.hints = hints
	for _, pat := range l.include {
		w.include = append(w.include, filepath.Clean(pat))
	}
}

func (l *listing) syncWatches(now time.Time) {
	w := &l.watch
	w.lastSync = now
	added, err := w.hints.Sync(l.watchDirs())
	w.again = added > 0
	switch {
	case err != nil && !w.broken:
		l.log.Info("some directories cannot be watched; listing every file at every poll until they can", zap.Error(err))
		w.broken = true
	case err == nil && w.broken:
		l.log.Info("every directory watched again")
		w.broken = false
	}
}

// watchDirs returns the directories to watch: those that hold listed paths or
// the targets of listed links, those the globs' directory parts match (empty
// ones may get files), and those between these and the globs' static bases
// (where a new directory appears). It maps the listed links' targets anew.
func (l *listing) watchDirs() []string {
	w := &l.watch
	clear(w.watched)
	clear(w.links)
	for _, pat := range w.include {
		w.globDirs(pat)
	}
	for i := range l.entries {
		w.watched[filepath.Dir(l.entries[i].path)] = struct{}{}
		if dir := w.linked(l.entries[i]); dir != "" {
			w.watched[dir] = struct{}{}
		}
	}
	dirs := make([]string, 0, len(w.watched))
	for d := range w.watched {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return dirs
}

// globDirs adds the directories that pattern's directory part matches, and
// those between them and its static base, the base itself always: the first
// directory to match appears there.
func (w *watching) globDirs(pattern string) {
	dirs := path.Dir(filepath.ToSlash(pattern))
	base, rest := doublestar.SplitPattern(dirs)
	if !strings.ContainsAny(rest, `*?[{\`) {
		w.watched[filepath.FromSlash(dirs)] = struct{}{} // a single directory
		return
	}
	w.watched[filepath.FromSlash(base)] = struct{}{}
	// New validated the pattern; I/O errors are skipped, as globbing does.
	_ = doublestar.GlobWalk(os.DirFS(base), rest, func(p string, d fs.DirEntry) error {
		dir := path.Join(base, p)
		if d.IsDir() || d.Type()&fs.ModeSymlink != 0 && isDir(dir) {
			w.addDirs(base, dir)
		}
		return nil
	})
}

// addDirs adds dir and every directory above it up to base (slash-separated).
func (w *watching) addDirs(base, dir string) {
	for {
		w.watched[filepath.FromSlash(dir)] = struct{}{}
		if len(dir) <= len(base) {
			return
		}
		dir = path.Dir(dir)
	}
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// linked maps a listed link's target to it, so that a change reported in the
// target's directory states the link again; it returns the target's directory
// ("" for a path that is not a link).
func (w *watching) linked(e listed) (dir string) {
	if !e.link {
		return ""
	}
	target := resolvedPath(e.path)
	if !slices.Contains(w.links[target], e.path) {
		w.links[target] = append(w.links[target], e.path)
	}
	return filepath.Dir(target)
}

// relinked is linked for a path stated between full listings: a target in a
// directory not watched yet makes the next poll list fully, which watches it.
func (w *watching) relinked(e listed) {
	if dir := w.linked(e); dir != "" {
		if _, ok := w.watched[dir]; !ok {
			w.again = true
		}
	}
}

// close stops the watches, if any.
func (l *listing) close() error {
	if l.watch.hints == nil {
		return nil
	}
	return l.watch.hints.Close()
}
