package filetrack

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"go.uber.org/zap"
)

// listing is the paths the include globs match (less the excludes), sorted, with what their
// stat said. It is kept between polls: a full listing globs and stats every path; with
// directory watches (see watching), the polls in between stat again only the paths that
// changed.
type listing struct {
	include, exclude []string
	log              *zap.Logger
	entries          []listed
	watch            watching
	// What relist found between full listings, for the poll's visits: the paths it stated
	// again that are listed now, and the keys of the entries it dropped or replaced.
	relisted []string
	unlisted []fileKey
	// count counts the listed paths of each file (hard links, and a link listed
	// beside its target, make more than one).
	count          map[fileKey]int
	globbed, again []string // scratch
}

func newListing(include, exclude []string, watch watching, log *zap.Logger) listing {
	return listing{include: include, exclude: exclude, log: log, watch: watch, count: map[fileKey]int{}}
}

// listed is a path the globs matched (and the excludes did not), with what its
// stat said.
type listed struct {
	path        string
	key         fileKey
	size, mtime int64
	err         error  // the stat failed: reported with report
	what        string // not a regular file: reported with reportAs
	link        bool   // a symbolic link: its target's directory is watched too
}

// problem reports whether the path is skipped for now; such paths are stated
// again at every poll, as a full listing would.
func (e *listed) problem() bool { return e.err != nil || e.what != "" }

// listAll globs and stats every path.
func (l *listing) listAll() {
	l.globbed = l.globbed[:0]
	for _, pat := range l.include {
		// New validated the pattern; I/O errors are skipped, as file_log does.
		m, _ := doublestar.FilepathGlob(pat)
		l.globbed = append(l.globbed, m...)
	}
	slices.Sort(l.globbed)
	l.globbed = slices.Compact(l.globbed)
	clear(l.entries)
	l.entries = l.entries[:0]
	clear(l.count)
	for _, p := range l.globbed {
		if !l.excluded(p) {
			e, _ := statPath(p)
			l.entries = append(l.entries, e)
			l.countPath(&e, 1)
		}
	}
}

// relist states again the paths that changed, the symbolic links whose
// targets did, and the paths skipped for now; a changed path that matches the
// globs and is not listed yet is added, and a listed one that no longer
// exists is dropped. It reports whether the listing changed, and keeps for
// the poll the paths it stated that are listed now and the keys of the entries
// it dropped or replaced.
func (l *listing) relist(changed []string) (moved bool) {
	again := l.again[:0]
	for i := range l.entries {
		if l.entries[i].problem() {
			again = append(again, l.entries[i].path)
		}
	}
	for _, p := range changed {
		again = append(again, p)
		again = append(again, l.watch.links[p]...)
	}
	for _, p := range again {
		e, gone := statPath(p)
		i, found := slices.BinarySearchFunc(l.entries, p, byPath)
		switch {
		case found && gone:
			l.unlisted = append(l.unlisted, l.entries[i].key)
			l.countPath(&l.entries[i], -1)
			l.entries = slices.Delete(l.entries, i, i+1)
			moved = true
		case found:
			moved = moved || !l.entries[i].same(&e)
			if l.entries[i].key != e.key {
				l.unlisted = append(l.unlisted, l.entries[i].key)
			}
			l.countPath(&l.entries[i], -1)
			l.countPath(&e, 1)
			l.entries[i] = e
			l.relisted = append(l.relisted, p)
			l.watch.relinked(e)
		case !gone && l.wanted(p):
			l.countPath(&e, 1)
			l.entries = slices.Insert(l.entries, i, e)
			l.relisted = append(l.relisted, p)
			l.watch.relinked(e)
			moved = true
		}
	}
	clear(again)
	l.again = again[:0]
	return moved
}

// countPath counts a listed entry towards its file's paths (by -1 when it
// leaves the listing).
func (l *listing) countPath(e *listed, by int) {
	if e.problem() {
		return
	}
	if l.count[e.key] += by; l.count[e.key] <= 0 {
		delete(l.count, e.key)
	}
}

// find returns the entry of path p, or nil.
func (l *listing) find(p string) *listed {
	if i, ok := slices.BinarySearchFunc(l.entries, p, byPath); ok {
		return &l.entries[i]
	}
	return nil
}

// settled ends a poll: what relist found is the poll's, done with.
func (l *listing) settled() {
	l.relisted, l.unlisted = l.relisted[:0], l.unlisted[:0]
}

// same reports whether o says what e says.
func (e *listed) same(o *listed) bool {
	if (e.err == nil) != (o.err == nil) || e.err != nil && e.err.Error() != o.err.Error() {
		return false
	}
	return e.key == o.key && e.size == o.size && e.mtime == o.mtime && e.what == o.what && e.link == o.link
}

func byPath(e listed, p string) int { return strings.Compare(e.path, p) }

// statPath states path p, following a symbolic link; gone reports that p
// itself does not exist (a link whose target is missing does).
func statPath(p string) (e listed, gone bool) {
	e.path = p
	info, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		gone = true
	case err == nil && info.Mode()&fs.ModeSymlink != 0:
		e.link = true
		info, err = os.Stat(p)
	}
	switch {
	case err != nil:
		e.err = err
	case info.IsDir():
		e.what = "is a directory"
	case !info.Mode().IsRegular():
		e.what = "not a regular file"
	default:
		e.key, e.err = keyOf(p, info)
		e.size, e.mtime = info.Size(), info.ModTime().UnixNano()
	}
	return e, gone
}

// wanted reports whether a path not listed yet is one the globs match.
func (l *listing) wanted(p string) bool {
	for _, pat := range l.watch.include {
		if ok, _ := doublestar.PathMatch(pat, p); ok {
			return !l.excluded(p)
		}
	}
	return false
}

func (l *listing) excluded(p string) bool {
	for _, pat := range l.exclude {
		if ok, _ := doublestar.PathMatch(pat, p); ok {
			return true
		}
	}
	return false
}

// resolvedPath is a symbolic link's target, or the path itself.
func resolvedPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
