package filetrack

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// listed is a path the globs matched (and the excludes did not), with what its
// stat said. The listing, sorted by path, is kept between polls: a full
// listing globs and stats every path; with directory watches, the polls in
// between stat again only the paths that changed.
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
func (t *Tracker) listAll() {
	t.paths = t.paths[:0]
	for _, pat := range t.opts.Include {
		// New validated the pattern; I/O errors are skipped, as file_log does.
		m, _ := doublestar.FilepathGlob(pat)
		t.paths = append(t.paths, m...)
	}
	slices.Sort(t.paths)
	t.paths = slices.Compact(t.paths)
	clear(t.listing)
	t.listing = t.listing[:0]
	clear(t.v.paths)
	for _, p := range t.paths {
		if !t.excluded(p) {
			e, _ := statPath(p)
			t.listing = append(t.listing, e)
			t.v.countPath(&e, 1)
		}
	}
}

// relist states again the paths that changed, the symbolic links whose
// targets did, and the paths skipped for now; a changed path that matches the
// globs and is not listed yet is added, and a listed one that no longer
// exists is dropped. It reports whether the listing changed, and keeps for
// scan the paths it stated that are listed now and the keys of the entries it
// dropped or replaced (see visits).
func (t *Tracker) relist(changed []string) (moved bool) {
	again := t.again[:0]
	for i := range t.listing {
		if t.listing[i].problem() {
			again = append(again, t.listing[i].path)
		}
	}
	for _, p := range changed {
		again = append(again, p)
		again = append(again, t.watch.links[p]...)
	}
	for _, p := range again {
		e, gone := statPath(p)
		i, found := slices.BinarySearchFunc(t.listing, p, byPath)
		switch {
		case found && gone:
			t.v.unlisted = append(t.v.unlisted, t.listing[i].key)
			t.v.countPath(&t.listing[i], -1)
			t.listing = slices.Delete(t.listing, i, i+1)
			moved = true
		case found:
			moved = moved || !t.listing[i].same(&e)
			if t.listing[i].key != e.key {
				t.v.unlisted = append(t.v.unlisted, t.listing[i].key)
			}
			t.v.countPath(&t.listing[i], -1)
			t.v.countPath(&e, 1)
			t.listing[i] = e
			t.v.relisted = append(t.v.relisted, p)
			t.watch.relinked(e)
		case !gone && t.wanted(p):
			t.v.countPath(&e, 1)
			t.listing = slices.Insert(t.listing, i, e)
			t.v.relisted = append(t.v.relisted, p)
			t.watch.relinked(e)
			moved = true
		}
	}
	clear(again)
	t.again = again[:0]
	return moved
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
func (t *Tracker) wanted(p string) bool {
	for _, pat := range t.watch.include {
		if ok, _ := doublestar.PathMatch(pat, p); ok {
			return !t.excluded(p)
		}
	}
	return false
}

func (t *Tracker) excluded(p string) bool {
	for _, pat := range t.opts.Exclude {
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
