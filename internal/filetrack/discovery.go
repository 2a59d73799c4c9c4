package filetrack

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

type role uint8

const (
	roleNew    role = iota // not matched to an identity (yet)
	roleSource             // the file an identity is read from
	roleShadow             // a copy of an identity that has its source: not read
)

// diskFile is a file on disk, known by device and inode.
type diskFile struct {
	key            fileKey
	path, resolved string
	size, prevSize int64
	mtime          int64
	seen           uint64 // last poll in which a matched path led here
	atStart        bool   // found at the first poll
	changed        bool   // size or modification time changed at the last poll
	retry          bool   // to be matched again at the next poll even if unchanged
	stalls         int    // polls without change while undecided
	role           role
	ident          *File
	truncatedFrom  *File  // the identity it was truncated away from
	strong         bool   // a shadow verified beyond the fingerprint
	verifiedGen    uint64 // the identity's checkGen when the shadow was last verified
	kind           decompress.Kind
}

// scan globs and stats the matched paths.
func (t *Tracker) scan() {
	t.paths = t.paths[:0]
	for _, pat := range t.opts.Include {
		// New validated the pattern; I/O errors are skipped, as file_log does.
		m, _ := doublestar.FilepathGlob(pat)
		t.paths = append(t.paths, m...)
	}
	slices.Sort(t.paths)
	t.paths = slices.Compact(t.paths)
	var cutoff time.Time
	if t.opts.ExcludeOlderThan > 0 {
		cutoff = time.Now().Add(-t.opts.ExcludeOlderThan)
	}
	for _, p := range t.paths {
		if t.excluded(p) {
			continue
		}
		info, err := os.Lstat(p)
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = os.Stat(p)
		}
		switch {
		case err != nil:
			t.report(p, err)
			continue
		case info.IsDir():
			t.reportAs(p, "is a directory", nil)
			continue
		case !info.Mode().IsRegular():
			t.reportAs(p, "not a regular file", nil)
			continue
		}
		key, err := keyOf(p, info)
		if err != nil {
			t.report(p, err)
			continue
		}
		// Too old, at every poll and for tracked files too, as file_log: not seen, so a
		// tracked file is let go as one that went away (read to its end if open, then finished).
		if !cutoff.IsZero() && info.ModTime().Before(cutoff) {
			continue
		}
		df := t.disk[key]
		if df != nil && df.seen == t.poll {
			continue // another path to the same file: read it once
		}
		size, mtime := info.Size(), info.ModTime().UnixNano()
		if df == nil {
			df = &diskFile{key: key, atStart: t.poll == 1, changed: true}
			t.disk[key] = df
		} else {
			df.changed = size != df.size || mtime != df.mtime
		}
		if df.path != p {
			t.moved(df, p)
		}
		df.prevSize, df.size, df.mtime, df.seen = df.size, size, mtime, t.poll
		if df.role == roleSource {
			df.ident.draining = false
		}
	}
	for p := range t.reported {
		if _, ok := slices.BinarySearch(t.paths, p); !ok {
			delete(t.reported, p)
		}
	}
}

func (t *Tracker) excluded(p string) bool {
	for _, pat := range t.opts.Exclude {
		if ok, _ := doublestar.PathMatch(pat, p); ok {
			return true
		}
	}
	return false
}

// moved records a file's new path.
func (t *Tracker) moved(df *diskFile, p string) {
	if df.path != "" && df.role == roleSource {
		t.rotations.Add(1)
		t.log.Debug("file moved", zap.String("from", df.path), zap.String("to", p))
	}
	df.path = p
	df.resolved = p
	if r, err := filepath.EvalSymlinks(p); err == nil {
		df.resolved = r
	}
	if df.role == roleSource {
		df.ident.path, df.ident.resolved = df.path, df.resolved
	}
}

// sweep handles the files not seen in this poll: an open one is drained, the
// others are forgotten (an identity can find them again by fingerprint).
func (t *Tracker) sweep() {
	for key, df := range t.disk {
		if df.seen == t.poll {
			continue
		}
		df.changed = false
		if df.role == roleSource {
			f := df.ident
			if f.fd != nil && !f.done {
				if !f.draining {
					f.draining = true
					t.log.Debug("file gone, reading it to its end", zap.String("path", df.path))
				}
				continue
			}
			f.src = nil
		}
		delete(t.disk, key)
	}
}
