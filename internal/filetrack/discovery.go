package filetrack

import (
	"bytes"
	"time"

	"go.uber.org/zap"

	"github.com/mergelog/otelcol-mergelog/internal/decompress"
)

// scan follows each listed file (see list): new, changed, moved. A narrow
// poll (see visits) looks only at the paths relist stated again.
func (t *Tracker) scan() {
	if t.v.wide {
		var cutoff int64
		if t.opts.ExcludeOlderThan > 0 {
			cutoff = time.Now().Add(-t.opts.ExcludeOlderThan).UnixNano()
		}
		// ordering_criteria: the files chosen to be followed (ordering.go)
		listing := t.opts.Ordering.selected(t.paths.entries, t.opts.ExcludeOlderThan)
		for i := range listing {
			t.scanEntry(&listing[i], cutoff)
		}
	} else {
		for _, p := range t.paths.relisted {
			if e := t.paths.find(p); e != nil {
				t.scanEntry(e, 0)
			}
		}
		t.scanUnchanged()
	}
	t.reports.dropUnlisted(&t.paths)
}

func (t *Tracker) scanEntry(e *listed, cutoff int64) {
	switch {
	case e.err != nil:
		t.reports.report(e.path, e.err)
		return
	case e.what != "":
		t.reports.reportAs(e.path, e.what, nil)
		return
	}
	// Too old, at every poll and for tracked files too, as file_log: not seen, so a
	// tracked file is let go as one that went away (read to its end if open, then finished).
	if cutoff != 0 && e.mtime < cutoff {
		return
	}
	df := t.disk[e.key]
	if df != nil && df.seen == t.poll {
		return // another path to the same file: read it once
	}
	if df != nil && df.path != e.path && t.inodeReused(df, e) {
		df = nil
	}
	if df == nil {
		df = &diskFile{key: e.key, atStart: t.poll == 1, changed: true}
		t.disk[e.key] = df
	} else {
		df.changed = e.size != df.size || e.mtime != df.mtime
	}
	t.visitDisk(df)
	if df.path != e.path {
		t.moved(df, e.path)
	}
	df.prevSize, df.size, df.mtime, df.seen = df.size, e.size, e.mtime, t.poll
	if df.role == roleSource {
		f := df.ident
		f.r.draining = false
		if f.r.done && !f.r.failed && f.r.kind == decompress.Plain {
			// Drained and finished when it was not seen (its move was seen late): read on.
			t.readOn(f, e.path)
		}
	}
}

// inodeReused reports whether the file at e, which has known file df's device and inode under
// another path, is another file: df was deleted and its inode given to a file created since
// (kubelet deletes and creates files at every rotation, and file systems reuse a freed inode
// at once). Its content tells: it does not start as df's identity does. Then df is let go as a
// file no longer seen (its identity continues from a copy if one appears) and e is new. A
// file with a descriptor open cannot be freed: it was moved (or rewritten, which reading
// checks). A compressed file is told by its fingerprint only: decoding it to its check
// points at every move would cost more than a rotation should.
//
// A file that cannot be read now (no descriptor free, gone again) is taken as moved,
// the common case, where something looks at it again before trusting it: reading checks a
// plain file's start when it opens it, and a shadow is compared again when it changes. A
// compressed file read to its end is never looked at again: it is taken as new (if it was
// moved after all, matching finds its identity again by its content).
func (t *Tracker) inodeReused(df *diskFile, e *listed) bool {
	x := df.ident
	// A smaller file (a new one, empty as it is created) is not df moved: truncated as well,
	// its content would be lost to df's identity all the same.
	if x == nil || df.role == roleSource && x.r.fd != nil || e.size >= df.size && !t.otherContent(df, e) {
		return false
	}
	t.log.Debug("a file gone, its inode reused by a new file",
		zap.String("gone", df.path), zap.String("new", e.path))
	if df.role == roleSource {
		x.src = nil
	}
	t.visitDisk(df)
	t.dropDisk(df)
	return true
}

// otherContent reports whether the file at e does not hold the stream of df's identity.
func (t *Tracker) otherContent(df *diskFile, e *listed) bool {
	x := df.ident
	probe := &diskFile{key: e.key, path: e.path, size: e.size}
	fd, fp, ok := t.identify(probe)
	if !ok {
		return df.role == roleSource && x.r.done && x.r.kind != decompress.Plain
	}
	defer t.fds.closeRaw(fd)
	if probe.kind != df.kind || !bytes.HasPrefix(fp, x.fp) && !bytes.HasPrefix(x.fp, fp) {
		return true
	}
	// A plain file's check points too, for files that share a header.
	return probe.kind == decompress.Plain && !t.sameStart(x, fd, e.size)
}

// moved records a file's new path.
func (t *Tracker) moved(df *diskFile, p string) {
	if df.path != "" && df.role == roleSource {
		t.stats.rotations.Add(1)
		t.log.Debug("file moved", zap.String("from", df.path), zap.String("to", p))
	}
	df.path, df.resolved = p, resolvedPath(p)
	if df.role == roleSource {
		df.ident.path, df.ident.resolved = df.path, df.resolved
	}
}

// sweep handles the files not seen in this poll: an open one is drained, the
// others are forgotten (an identity can find them again by fingerprint).
func (t *Tracker) sweep() {
	for _, df := range t.v.disks {
		if df.seen == t.poll || df.dropped {
			continue
		}
		df.changed = false
		if df.role == roleSource {
			f := df.ident
			if f.r.fd != nil && !f.r.done {
				if !f.r.draining {
					f.r.draining = true
					t.log.Debug("file gone, reading it to its end", zap.String("path", df.path))
				}
				continue
			}
			f.src = nil
		}
		t.dropDisk(df)
	}
}
